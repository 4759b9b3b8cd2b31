/* test_lexer.c — unit tests for the lexer (frontend/lexer.re).
 *
 * Each test lexes a small text and compares a compact rendering of the token list
 * ("VARID(M.x) VARSYM(+) LIT(42)") or inspects one token's fields: literal values,
 * spans (tabs, UTF-8), pragmas and lexical errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "token.h"

static FeLexResult lex(const char *text) {
  LzSource *s = lz_source_add("t.lz", text, strlen(text));
  return fe_lex(s);
}

static const char *kind_name(TokKind k) {
  switch (k) {
  case T_EOF: return "EOF";
  case T_ERROR: return "ERROR";
  case T_VARID: return "VARID";
  case T_CONID: return "CONID";
  case T_VARSYM: return "VARSYM";
  case T_CONSYM: return "CONSYM";
  case T_LITERAL: return "LIT";
  case T_SCC: return "SCC";
  case T_BANG: return "BANG";
  case T_DOTDOT: return "DOTDOT";
  case T_LARROW: return "LARROW";
  case T_RARROW: return "RARROW";
  case T_EQUAL: return "EQUAL";
  case T_DCOLON: return "DCOLON";
  case T_TILDE: return "TILDE";
  case T_AT: return "AT";
  case T_LAMBDA: return "LAMBDA";
  case T_BAR: return "BAR";
  case T_WHERE: return "WHERE";
  case T_LET: return "LET";
  case T_UNDERSCORE: return "UNDERSCORE";
  default: return NULL;
  }
}

/* "KIND(text)" for each token but EOF; literals show their value. */
static const char *render(const char *text) {
  FeLexResult r = lex(text);
  char *out = "";
  for (int i = 0; i < r.n && r.toks[i].kind != T_EOF; i++) {
    const Token *t = &r.toks[i];
    const char *k = kind_name(t->kind);
    char *item;
    if (t->kind == T_LITERAL) {
      const FeLit *l = t->lit;
      switch (l->kind) {
      case L_INT: item = lz_fmt("INT(%s)", l->digits); break;
      case L_PRIM_INT: item = lz_fmt("PINT(%s%s)", l->negative ? "-" : "", l->digits); break;
      case L_FRAC: item = lz_fmt("FRAC(%se%d)", l->mantissa, l->exp10); break;
      case L_PRIM_DOUBLE: item = lz_fmt("PDOUBLE(%se%d)", l->mantissa, l->exp10); break;
      case L_CHAR: item = lz_fmt("CHAR(%u)", (unsigned)l->ch); break;
      case L_PRIM_CHAR: item = lz_fmt("PCHAR(%u)", (unsigned)l->ch); break;
      case L_STRING: item = lz_fmt("STR(%s)", l->str); break;
      case L_PRIM_STRING: item = lz_fmt("PSTR(%s)", l->str); break;
      default: item = "?"; break;
      }
    } else if (t->kind == T_ERROR) {
      item = lz_fmt("ERROR(%s)", t->msg);
    } else if (t->kind == T_SCC) {
      item = lz_fmt("SCC(%s)", t->name);
    } else if (t->name && (t->kind == T_VARID || t->kind == T_CONID || t->kind == T_VARSYM ||
                           t->kind == T_CONSYM)) {
      item = t->qual ? lz_fmt("%s(%s.%s)", k, t->qual, t->name) : lz_fmt("%s(%s)", k, t->name);
    } else {
      item = k ? (char *)k : lz_strndup(t->text, (size_t)t->len);
    }
    out = lz_fmt("%s%s%s", out, *out ? " " : "", item);
  }
  return out;
}

static void test_identifiers(void **state) {
  assert_string_equal(render("x x' _y Foo Foo_Bar' a1"),
                      "VARID(x) VARID(x') VARID(_y) CONID(Foo) CONID(Foo_Bar') VARID(a1)");
  assert_string_equal(render("case of where let _"), "case of WHERE LET UNDERSCORE");
  assert_string_equal(render("qualified as hiding forall"),
                      "VARID(qualified) VARID(as) VARID(hiding) VARID(forall)");
}

static void test_qualified_names(void **state) {
  assert_string_equal(render("M.x M.N.C M.+ M.. Data.List.map"),
                      "VARID(M.x) CONID(M.N.C) VARSYM(M.+) VARSYM(M..) VARID(Data.List.map)");
  assert_string_equal(render("M.:+ x.y"), "CONSYM(M.:+) VARID(x) VARSYM(.) VARID(y)");
  /* [False..True] is famously False.. True */
  assert_string_equal(render("[False ..True] [False..True]"),
                      "[ CONID(False) DOTDOT CONID(True) ] [ VARSYM(False..) CONID(True) ]");
  assert_string_equal(render("Just . f"), "CONID(Just) VARSYM(.) VARID(f)");
}

static void test_operators(void **state) {
  assert_string_equal(
      render("+ <$> :+: : :: = -> <- => \\ | @ ~ .. \\\\"),
      "VARSYM(+) VARSYM(<$>) CONSYM(:+:) CONSYM(:) DCOLON EQUAL RARROW LARROW => LAMBDA "
      "BAR AT TILDE DOTDOT VARSYM(\\\\)");
  assert_string_equal(render("a --> b |-- c"),
                      "VARID(a) VARSYM(-->) VARID(b) VARSYM(|--) VARID(c)");
  assert_string_equal(render("a -- comment\nb --- also\nc"), "VARID(a) VARID(b) VARID(c)");
  assert_string_equal(render("x-1"), "VARID(x) VARSYM(-) INT(1)");
}

static void test_bang_whitespace(void **state) {
  assert_string_equal(render("f !x"), "VARID(f) BANG VARID(x)");
  assert_string_equal(render("a ! b"), "VARID(a) VARSYM(!) VARID(b)");
  assert_string_equal(render("a!b"), "VARID(a) VARSYM(!) VARID(b)");
  assert_string_equal(render("(!x)"), "( BANG VARID(x) )");
  assert_string_equal(render("(!)"), "( VARSYM(!) )");
}

static void test_comments(void **state) {
  assert_string_equal(render("a {- x {- nested -} still -} b"), "VARID(a) VARID(b)");
  assert_string_equal(render("a {-{-x-}-}b"), "VARID(a) VARID(b)");
  assert_string_equal(render("\"{- not -}\" -- c"), "STR({- not -})");
  assert_string_equal(render("a {- x"), "VARID(a) ERROR(unterminated `{-')");
}

static void test_numbers(void **state) {
  assert_string_equal(render("0 42 007 0x1F 0XfF 0o17 0O7"),
                      "INT(0) INT(42) INT(7) INT(31) INT(255) INT(15) INT(7)");
  assert_string_equal(render("0xFFFFFFFFFFFFFFFFFFFF"), "INT(1208925819614629174706175)");
  assert_string_equal(render("123456789012345678901234567890"),
                      "INT(123456789012345678901234567890)");
  assert_string_equal(render("1.5 1e3 1.5e-3 2.5E+2 0.5e-2 100.0"),
                      "FRAC(15e-1) FRAC(1e3) FRAC(15e-4) FRAC(25e1) FRAC(5e-3) FRAC(1000e-1)");
  assert_string_equal(render("[1..5] 1.x 1e"),
                      "[ INT(1) DOTDOT INT(5) ] INT(1) VARSYM(.) VARID(x) INT(1) VARID(e)");
  FeLexResult r = lex("9223372036854775807 9223372036854775808 1.5e-3");
  assert_true(r.toks[0].lit->fits);
  assert_int_equal(r.toks[0].lit->i, INT64_MAX);
  assert_false(r.toks[1].lit->fits);
  assert_true(r.toks[2].lit->d == 1.5e-3);
}

static void test_chars_and_strings(void **state) {
  assert_string_equal(
      render("'a' '\\n' '\\'' '\"' '\\65' '\\x41' '\\o101' '\\DEL' '\\NUL' '\\SOH' '\\^A' '\\^@'"),
      "CHAR(97) CHAR(10) CHAR(39) CHAR(34) CHAR(65) CHAR(65) CHAR(65) CHAR(127) CHAR(0) "
      "CHAR(1) CHAR(1) CHAR(0)");
  assert_string_equal(render("'\\SO' '\\a' '\\v' '\\\\' '\\1114111'"),
                      "CHAR(14) CHAR(7) CHAR(11) CHAR(92) CHAR(1114111)");
  FeLexResult r = lex("\"\\SO\\&H\\SOH\\1234\\&5 a\\\n   \\b\\t\\\"\"");
  const FeLit *l = r.toks[0].lit;
  assert_int_equal(l->kind, L_STRING);
  const char expect[] = "\x0eH\x01\xd3\x92"
                        "5 ab\t\"";
  assert_int_equal(l->len, sizeof expect - 1);
  assert_memory_equal(l->str, expect, sizeof expect - 1);
  r = lex("\"a\\0b\"");
  assert_int_equal(r.toks[0].lit->len, 3);
  assert_int_equal(r.toks[0].lit->str[1], 0);
  r = lex("'\xce\xbb'"); /* λ */
  assert_int_equal(r.toks[0].lit->ch, 0x3bb);
  /* f' 'a' : a prime in an identifier is not a character literal */
  assert_string_equal(render("f' 'a'"), "VARID(f') CHAR(97)");
}

static void test_literal_errors(void **state) {
  assert_string_equal(
      render("x = \"abc\ny"),
      "VARID(x) EQUAL ERROR(lexical error in string/character literal at character '\\n')");
  assert_string_equal(render("\"a\\qb\""),
                      "ERROR(lexical error in string/character literal at character 'q')");
  assert_string_equal(render("\"ab"),
                      "ERROR(lexical error in string/character literal at end of input)");
  assert_string_equal(render("'\\1114112'"),
                      "ERROR(numeric escape sequence out of range at character '2')");
  assert_string_equal(render("\"a\tb\""),
                      "ERROR(lexical error in string/character literal at character '\\t')");
  assert_string_equal(render("a \x01"), "VARID(a) ERROR(lexical error at character '\\SOH')");
  assert_string_equal(render("a \xe2\x80\x8b"),
                      "VARID(a) ERROR(lexical error at character '\\8203')");
  assert_string_equal(render("a \xff"), "VARID(a) ERROR(lexical error at character '\\255')");
  FeLexResult r = lex("x\n  \"ab\\z\"");
  assert_int_equal(r.toks[1].kind, T_ERROR);
  assert_int_equal(r.toks[1].span.line, 2);
  assert_int_equal(r.toks[1].span.col, 7);
}

static void test_magic_hash(void **state) {
  assert_string_equal(
      render("{-# LANGUAGE MagicHash #-}\nI# 3# 3.0## 'c'# \"ab\"# x# +# unpackCString# -1#"),
      "CONID(I#) PINT(3) PDOUBLE(30e-1) PCHAR(99) PSTR(ab) VARID(x#) VARSYM(+#) "
      "VARID(unpackCString#) PINT(-1)");
  assert_string_equal(render("I# 3# x - 1"),
                      "CONID(I) VARSYM(#) INT(3) VARSYM(#) VARID(x) VARSYM(-) INT(1)");
  FeLexResult r = lex("{-# LANGUAGE MagicHash #-}\nx - 1");
  assert_true(r.magic_hash);
  assert_string_equal(render("{-# LANGUAGE MagicHash #-}\nx - 1"), "VARID(x) VARSYM(-) INT(1)");
}

static void test_pragmas(void **state) {
  FeLexResult r = lex("{-# LANGUAGE BangPatterns, NoImplicitPrelude #-}\n{-# OPTIONS_GHC -Wall "
                      "#-}\nmodule M where");
  assert_true(r.bang_patterns);
  assert_true(r.no_implicit_prelude);
  assert_false(r.magic_hash);
  assert_int_equal(r.toks[0].kind, T_MODULE);
  /* a LANGUAGE pragma after the header does not count */
  r = lex("module M where\n{-# LANGUAGE MagicHash #-}\nx");
  assert_false(r.magic_hash);
  assert_string_equal(render("f = {-# SCC \"my cc\" #-} g {-# SCC h #-} {-# INLINE f #-} x"),
                      "VARID(f) EQUAL SCC(my cc) VARID(g) SCC(h) VARID(x)");
  assert_string_equal(render("{-# language bangpatterns #-} x"), "VARID(x)");
}

static void test_spans(void **state) {
  FeLexResult r = lex("main = do\n\tprint 1 )\n  \xce\xbbx + y");
  /* tab to column 9 */
  assert_int_equal(r.toks[3].span.line, 2);
  assert_int_equal(r.toks[3].span.col, 9);
  assert_int_equal(r.toks[3].span.ecol, 13);
  assert_true(r.toks[3].bol);
  assert_false(r.toks[4].bol);
  assert_int_equal(r.toks[5].span.col, 17); /* ) */
  /* a multi-byte character is one column */
  assert_int_equal(r.toks[6].span.col, 3);
  assert_int_equal(r.toks[6].span.ecol, 4);
  assert_int_equal(r.toks[7].span.col, 6);
  /* EOF sits after the last character */
  r = lex("x\n");
  assert_int_equal(r.toks[1].kind, T_EOF);
  assert_int_equal(r.toks[1].span.line, 2);
  assert_int_equal(r.toks[1].span.col, 1);
  /* a token after a comment on its line still starts the line */
  r = lex("a\n{- c -} b");
  assert_true(r.toks[1].bol);
  assert_int_equal(r.toks[1].span.col, 9);
}

static void test_no_crash_on_garbage(void **state) {
  /* every byte value, some truncated constructs: the lexer must just end */
  char buf[300];
  for (int i = 0; i < 256; i++)
    buf[i] = (char)(255 - i);
  memcpy(buf + 256, "'\\x", 4);
  LzSource *s = lz_source_add("g.lz", buf, 260);
  FeLexResult r = fe_lex(s);
  assert_int_equal(r.toks[r.n - 1].kind, T_EOF);
  const char *cases[] = {"'",     "\"\\",  "'\\",     "{-#", "{-# SCC", "0x",
                         "\"\\^", "'\\SO", "\"\\x\"", "-",   "--"};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    r = lex(cases[i]);
    assert_int_equal(r.toks[r.n - 1].kind, T_EOF);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_identifiers),
      cmocka_unit_test(test_qualified_names),
      cmocka_unit_test(test_operators),
      cmocka_unit_test(test_bang_whitespace),
      cmocka_unit_test(test_comments),
      cmocka_unit_test(test_numbers),
      cmocka_unit_test(test_chars_and_strings),
      cmocka_unit_test(test_literal_errors),
      cmocka_unit_test(test_magic_hash),
      cmocka_unit_test(test_pragmas),
      cmocka_unit_test(test_spans),
      cmocka_unit_test(test_no_crash_on_garbage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

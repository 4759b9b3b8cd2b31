/* test_layout.c — unit tests for the layout rule (frontend/layout.c).
 *
 * Two kinds of tests: the token stream the layout engine produces on its own
 * (virtual tokens shown as <{> <;> <}>), and whole modules through the parser, where
 * the parse-error(t) rule closes implicit blocks (`let ... in` on one line, `case`
 * inside parentheses, ...); those are checked by printing the parsed declarations,
 * which always use explicit braces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "passes.h"
#include "token.h"

/* The layout engine's output for `text`, as space-separated tokens. */
static const char *stream(const char *text) {
  LzSource *s = lz_source_add("t.lz", text, strlen(text));
  FeLexResult r = fe_lex(s);
  FeLayout l;
  fe_layout_init(&l, r.toks, r.n);
  char *out = "";
  for (int guard = 0; guard < 1000; guard++) {
    Token t = fe_layout_next(&l);
    if (t.kind == T_EOF) break;
    const char *item;
    if (t.virt)
      item = t.kind == T_LBRACE ? "<{>" : t.kind == T_RBRACE ? "<}>" : "<;>";
    else
      item = lz_strndup(t.text, (size_t)t.len);
    out = lz_fmt("%s%s%s", out, *out ? " " : "", item);
  }
  return out;
}

static void test_module_block(void **state) {
  assert_string_equal(stream("x = 1\ny = 2\n"), "<{> x = 1 <;> y = 2 <}>");
  assert_string_equal(stream("module M where\nx = 1\n"), "module M where <{> x = 1 <}>");
  assert_string_equal(stream("module M where { x = 1 }"), "module M where { x = 1 }");
  assert_string_equal(stream(""), "<{> <}>");
  /* a continuation line is more indented: no token */
  assert_string_equal(stream("f x =\n  x\ng = 1"), "<{> f x = x <;> g = 1 <}>");
}

static void test_nested_blocks(void **state) {
  assert_string_equal(stream("main = do\n  a\n  b\nf = 1"),
                      "<{> main = do <{> a <;> b <}> <;> f = 1 <}>");
  assert_string_equal(stream("f = x where\n  x = 1\n  y = 2\n"),
                      "<{> f = x where <{> x = 1 <;> y = 2 <}> <}>");
  assert_string_equal(
      stream("g = case x of\n  A -> let y = 1\n           z = 2\n       in y\n  B -> 0"),
      "<{> g = case x of <{> A -> let <{> y = 1 <;> z = 2 <}> in y <;> B -> 0 <}> <}>");
}

static void test_empty_blocks(void **state) {
  /* `where` followed by a less indented line: {n} with n <= m gives {} */
  assert_string_equal(stream("f = 1 where\ng = 2"), "<{> f = 1 where <{> <}> <;> g = 2 <}>");
  /* at the end of input */
  assert_string_equal(stream("f = do"), "<{> f = do <{> <}> <}>");
}

static void test_nondecreasing_do(void **state) {
  /* GHC: a do block may start at the column of the enclosing block */
  assert_string_equal(stream("main = do\n  a\n  do\n  b"),
                      "<{> main = do <{> a <;> do <{> b <}> <}> <}>");
  /* but not a where block */
  assert_string_equal(stream("f = do\n  a\n  where\n  b"),
                      "<{> f = do <{> a <;> where <{> <}> <;> b <}> <}>");
}

static void test_explicit_braces(void **state) {
  /* (alone, the engine never pops the explicit context: the parser does when it consumes
   * the `}`, so no virtual `}` closes the module block here) */
  assert_string_equal(stream("f = let { x = 1\n; y = 2 } in x"),
                      "<{> f = let { x = 1 ; y = 2 } in x");
  /* no layout tokens inside explicit braces, even at column 1 */
  assert_string_equal(stream("module M where {\nx = 1\n;y = 2\n}"),
                      "module M where { x = 1 ; y = 2 }");
}

static void test_tabs(void **state) {
  /* a tab moves to column 9 */
  assert_string_equal(stream("f = do a\n\tb"), "<{> f = do <{> a b <}> <}>"); /* a at 8 */
  assert_string_equal(stream("main = do a\n       \tb"),
                      "<{> main = do <{> a <}> b <}>");                            /* a at 11 */
  assert_string_equal(stream("f  = do a\n\tb"), "<{> f = do <{> a <;> b <}> <}>"); /* a at 9 */
}

static void test_save_restore(void **state) {
  LzSource *s = lz_source_add("t.lz", "f = do\n  a\n  b", 14);
  FeLexResult r = fe_lex(s);
  FeLayout l;
  fe_layout_init(&l, r.toks, r.n);
  for (int i = 0; i < 4; i++)
    fe_layout_next(&l); /* { f = do */
  FeLayoutSave sv = fe_layout_save(&l);
  Token a = fe_layout_next(&l); /* { */
  fe_layout_next(&l);           /* a */
  fe_layout_next(&l);           /* ; */
  assert_int_equal(fe_layout_depth(&l), 2);
  fe_layout_restore(&l, &sv);
  assert_int_equal(fe_layout_depth(&l), 1);
  Token b = fe_layout_next(&l);
  assert_int_equal(a.kind, b.kind);
  assert_true(b.virt);
  assert_int_equal(fe_layout_depth(&l), 2);
  /* parse-error(t): closing the implicit do block by hand */
  assert_true(fe_layout_close_implicit(&l));
  assert_true(fe_layout_close_implicit(&l));
  assert_false(fe_layout_close_implicit(&l));
}

/* ---- through the parser -------------------------------------------------------------- */

static const char *parse_print(const char *text) {
  LzSource *s = lz_source_add("t.lz", text, strlen(text));
  FeModule *m = fe_parse_module(s);
  if (!m) return "PARSE ERROR";
  char *out = "";
  for (int i = 0; i < m->decls.len; i++)
    out = lz_fmt("%s%s%s", out, i ? "\n" : "", fe_decl_to_string(m->decls.data[i]));
  return out;
}

static void test_parse_error_rule(void **state) {
  assert_string_equal(parse_print("f x = let y = 1 in x + y"), "f x = (let {y = 1} in (x + y))");
  assert_string_equal(parse_print("g = (case x of Just y -> y)"),
                      "g = ((case x of {(Just y) -> y}))");
  assert_string_equal(parse_print("h = [x | let y = 1, x <- [y]]"),
                      "h = [x | let {y = 1}, x <- [y]]");
  assert_string_equal(parse_print("k = [x | let y = 1]"), "k = [x | let {y = 1}]");
  assert_string_equal(parse_print("t = (do a; b, 1)"), "t = ((do {a; b}), 1)");
  assert_string_equal(parse_print("u = if x then do a else b"), "u = (if x then (do {a}) else b)");
  /* the explicit } of an enclosing block closes an implicit let */
  assert_string_equal(parse_print("main = do { print 1; let x = 1 }"), "PARSE ERROR");
  assert_string_equal(parse_print("main = do { let x = 1 }; y = 2"), "PARSE ERROR");
}

static void test_where_placement(void **state) {
  assert_string_equal(
      parse_print("f x\n  | x > 0 = a\n  | otherwise = b\n  where a = 1\n        b = 2"),
      "f x | (x > 0) = a | otherwise = b where {a = 1; b = 2}");
  /* `where` at the column of the case alternatives belongs to the equation */
  assert_string_equal(parse_print("f x = case x of\n  1 -> y\n  where y = 2"),
                      "f x = (case x of {1 -> y}) where {y = 2}");
  assert_string_equal(parse_print("f x = case x of\n    1 -> y\n  where y = 2"),
                      "f x = (case x of {1 -> y}) where {y = 2}");
  /* an empty where */
  assert_string_equal(parse_print("f = 1 where\ng = 2"), "f = 1\ng = 2");
}

static void test_do_if_then_else(void **state) {
  assert_string_equal(parse_print("main = do\n  if a\n  then b\n  else c\n  d"),
                      "main = (do {(if a then b else c); d})");
  assert_string_equal(parse_print("main = do\n  if a then b\n  else c"),
                      "main = (do {(if a then b else c)})");
  assert_string_equal(parse_print("main = do\n  x <- getLine\n  let y = x\n      z = y\n  print z"),
                      "main = (do {x <- getLine; let {y = x; z = y}; (print z)})");
}

static void test_explicit_and_mixed(void **state) {
  assert_string_equal(parse_print("module Main where { f = 1 ; g = do { a ; b } }"),
                      "f = 1\ng = (do {a; b})");
  assert_string_equal(parse_print("f = let { a = 1; b = 2 } in a"),
                      "f = (let {a = 1; b = 2} in a)");
  assert_string_equal(parse_print("f = case x of { A -> 1\n ; B -> 2 }"),
                      "f = (case x of {A -> 1; B -> 2})");
  assert_string_equal(parse_print("f = do { ; a ; ; b ; }"), "f = (do {a; b})");
}

static int run_quiet(void **state) {
  (void)state;
  lz_set_diag_stream(tmpfile());
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_block),       cmocka_unit_test(test_nested_blocks),
      cmocka_unit_test(test_empty_blocks),       cmocka_unit_test(test_nondecreasing_do),
      cmocka_unit_test(test_explicit_braces),    cmocka_unit_test(test_tabs),
      cmocka_unit_test(test_save_restore),       cmocka_unit_test(test_parse_error_rule),
      cmocka_unit_test(test_where_placement),    cmocka_unit_test(test_do_if_then_else),
      cmocka_unit_test(test_explicit_and_mixed),
  };
  return cmocka_run_group_tests(tests, run_quiet, NULL);
}

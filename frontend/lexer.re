/* lexer.re — the Lz lexer: Haskell 2010 lexical syntax, UTF-8 input (re2c --utf8).
 *
 * The idea: re2c recognises the *shape* of the next lexeme (identifier, operator
 * symbols, number, the start of a comment, char or string literal) and returns an
 * action code; plain C then does the parts that are easier to write by hand than as
 * regular expressions: nested comments, pragmas, escapes in literals, string gaps,
 * hex-to-decimal conversion, reserved words, MagicHash suffixes. The whole file is
 * lexed up front into an array; the first lexical error ends the array with a T_ERROR
 * token (see token.h), reported only if the parser gets that far.
 *
 * Positions: lines and columns are 1-based; a tab advances the column to the next
 * multiple of 8 plus one and a multi-byte UTF-8 character counts as one column, which
 * is what GHC prints in its messages and what the layout rule uses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token.h"

typedef struct Lexer {
  LzSource *src;
  const unsigned char *base, *cur, *lim, *tok, *mar;
  /* incremental position tracking: pp is at (pline, pcol) */
  const unsigned char *pp;
  int pline, pcol;
  /* Tokens grow in malloc'd memory and are copied once into the arena at the end:
   * doubling inside the arena would leave twice the final size behind. */
  struct {
    Token *data;
    int len, cap;
  } toks;
  bool seen_code; /* a real token was emitted: LANGUAGE pragmas no longer count */
  bool failed;
  FeLexResult *res;
} Lexer;

/* ---- positions ------------------------------------------------------------------- */

static void pos_at(Lexer *L, const unsigned char *p, int *line, int *col) {
  if (p < L->pp) { /* never happens in order, but stay correct */
    L->pp = L->base;
    L->pline = L->pcol = 1;
  }
  while (L->pp < p) {
    unsigned char c = *L->pp++;
    if (c == '\n') {
      L->pline++;
      L->pcol = 1;
    } else if (c == '\t') {
      L->pcol = ((L->pcol - 1) / 8 + 1) * 8 + 1;
    } else if ((c & 0xC0) != 0x80) {
      L->pcol++;
    }
  }
  *line = L->pline;
  *col = L->pcol;
}

/* The span of [s, e). */
static LzSpan span_of(Lexer *L, const unsigned char *s, const unsigned char *e) {
  LzSpan sp = {.file = L->src->id};
  pos_at(L, s, &sp.line, &sp.col);
  if (e <= s) {
    sp.eline = sp.line, sp.ecol = sp.col;
    return sp;
  }
  pos_at(L, e, &sp.eline, &sp.ecol);
  sp.ecol--;
  if (sp.ecol < 1) sp.ecol = 1;
  return sp;
}

/* ---- emitting tokens ---------------------------------------------------------------- */

static Token *emit(Lexer *L, TokKind kind, const unsigned char *s, const unsigned char *e) {
  Token t = {.kind = kind};
  t.span = span_of(L, s, e);
  t.text = (const char *)s;
  t.len = (int)(e - s);
  t.bol = L->toks.len == 0 || t.span.line > L->toks.data[L->toks.len - 1].span.eline;
  if (L->toks.len == L->toks.cap) {
    int ncap = L->toks.cap ? 2 * L->toks.cap : 256;
    Token *nd = realloc(L->toks.data, sizeof(Token) * (size_t)ncap);
    if (!nd) {
      fprintf(stderr, "lzc: out of memory\n");
      exit(2);
    }
    L->toks.data = nd;
    L->toks.cap = ncap;
  }
  L->toks.data[L->toks.len++] = t;
  if (kind != T_EOF) L->seen_code = true;
  return &L->toks.data[L->toks.len - 1];
}

/* A lexical error at [s, e): becomes the last real token. */
static void lex_error(Lexer *L, const unsigned char *s, const unsigned char *e, const char *msg) {
  Token *t = emit(L, T_ERROR, s, e);
  t->msg = msg;
  L->failed = true;
}

static void lit_error(Lexer *L, const unsigned char *at) {
  if (at >= L->lim) {
    lex_error(L, at, at, "lexical error in string/character literal at end of input");
    return;
  }
  uint32_t c;
  int n = fe_lex_utf8_decode(at, L->lim, &c);
  if (!n) c = *at, n = 1;
  lex_error(L, at, at + n,
            lz_fmt("lexical error in string/character literal at character %s", fe_lex_show_char(c)));
}

/* ---- escapes ------------------------------------------------------------------------ */

/* Read an escape after the backslash at *pp. Returns the code point, -2 for the empty
 * escape \& or a string gap (strings only), -1 after reporting an error. */
static long lex_escape(Lexer *L, const unsigned char **pp, bool in_string) {
  const unsigned char *p = *pp, *lim = L->lim;
  if (p >= lim) {
    lit_error(L, p);
    return -1;
  }
  unsigned char c = *p;
  static const char simple_from[] = "abfnrtv\\\"'";
  static const char simple_to[] = {7, 8, 12, 10, 13, 9, 11, '\\', '"', '\''};
  const char *k = c ? strchr(simple_from, c) : NULL;
  if (k) {
    *pp = p + 1;
    return simple_to[k - simple_from];
  }
  if (c == '&' && in_string) {
    *pp = p + 1;
    return -2;
  }
  if (in_string && (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')) {
    while (p < lim && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v'))
      p++;
    if (p >= lim || *p != '\\') {
      lit_error(L, p);
      return -1;
    }
    *pp = p + 1;
    return -2;
  }
  if (c == '^') {
    if (p + 1 < lim && p[1] >= '@' && p[1] <= '_') {
      *pp = p + 2;
      return p[1] - '@';
    }
    lit_error(L, p + 1);
    return -1;
  }
  if (c >= 'A' && c <= 'Z') {
    /* longest ASCII control name first (SOH before SO) */
    for (int len = 3; len >= 2; len--) {
      for (int i = 0; i < 34; i++) {
        const char *nm = i < 32 ? fe_lex_ascii_names[i] : i == 32 ? "SP" : "DEL";
        if ((int)strlen(nm) == len && lim - p >= len && memcmp(p, nm, (size_t)len) == 0) {
          *pp = p + len;
          return i < 32 ? i : i == 32 ? ' ' : 127;
        }
      }
    }
    lit_error(L, p);
    return -1;
  }
  int base = 10;
  if (c == 'o') base = 8, p++;
  else if (c == 'x') base = 16, p++;
  else if (!(c >= '0' && c <= '9')) {
    lit_error(L, p);
    return -1;
  }
  long v = 0;
  int nd = 0;
  for (;; p++, nd++) {
    int d;
    if (p >= lim) break;
    if (*p >= '0' && *p <= '9') d = *p - '0';
    else if (base == 16 && (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f') d = (*p | 0x20) - 'a' + 10;
    else break;
    if (d >= base) break;
    v = v * base + d;
    if (v > 0x10FFFF) {
      lex_error(L, p, p + 1, lz_fmt("numeric escape sequence out of range at character %s",
                                    fe_lex_show_char(*p)));
      return -1;
    }
  }
  if (nd == 0) {
    lit_error(L, p);
    return -1;
  }
  *pp = p;
  return v;
}

/* A character or string literal body starting after the opening quote at *pp.
 * Strings: decoded into out. Returns false after an error. */
static bool lex_literal_body(Lexer *L, const unsigned char **pp, char quote, FeCharBuf *out,
                             uint32_t *one) {
  const unsigned char *p = *pp;
  int count = 0;
  for (;;) {
    if (p >= L->lim) {
      lit_error(L, p);
      return false;
    }
    if (*p == (unsigned char)quote) {
      p++;
      break;
    }
    if (quote == '\'' && count == 1) { /* 'ab' */
      lex_error(L, *pp - 1, *pp, lz_fmt("lexical error at character %s", fe_lex_show_char('\'')));
      return false;
    }
    long c;
    if (*p == '\\') {
      p++;
      c = lex_escape(L, &p, quote == '"');
      if (c == -1) return false;
      if (c == -2) continue;
    } else {
      uint32_t cp;
      int n = fe_lex_utf8_decode(p, L->lim, &cp);
      if (!n || cp < 32 || cp == 127) {
        lit_error(L, p);
        return false;
      }
      p += n;
      c = (long)cp;
    }
    if (out) fe_lex_encode_utf8(out, (uint32_t)c);
    *one = (uint32_t)c;
    count++;
  }
  if (quote == '\'' && count == 0) {
    lex_error(L, *pp - 1, p, "Parser error on `''`\nCharacter literals may not be empty");
    return false;
  }
  *pp = p;
  return true;
}

/* ---- comments and pragmas ------------------------------------------------------------- */

/* Skip a nested comment whose "{-" starts at s; returns the end, or NULL on error. */
static const unsigned char *skip_ncomment(Lexer *L, const unsigned char *s) {
  const unsigned char *p = s + 2;
  int depth = 1;
  while (p < L->lim) {
    if (p[0] == '{' && p + 1 < L->lim && p[1] == '-') depth++, p += 2;
    else if (p[0] == '-' && p + 1 < L->lim && p[1] == '}') {
      p += 2;
      if (--depth == 0) return p;
    } else p++;
  }
  lex_error(L, s, L->lim, "unterminated `{-'");
  return NULL;
}

static bool is_idchar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '\'' || c >= 0x80;
}

static bool ieq(const unsigned char *s, size_t n, const char *w) {
  if (strlen(w) != n) return false;
  for (size_t i = 0; i < n; i++)
    if ((s[i] | 0x20) != (w[i] | 0x20)) return false;
  return true;
}

static void language_pragma(Lexer *L, const unsigned char *p, const unsigned char *e) {
  while (p < e) {
    while (p < e && !is_idchar(*p)) p++;
    const unsigned char *w = p;
    while (p < e && is_idchar(*p)) p++;
    if (p == w) break;
    size_t n = (size_t)(p - w);
#define IS(s) (n == strlen(s) && memcmp(w, s, n) == 0)
    if (IS("MagicHash")) L->res->magic_hash = true;
    else if (IS("BangPatterns")) L->res->bang_patterns = true;
    else if (IS("NoImplicitPrelude")) L->res->no_implicit_prelude = true;
    else if (IS("Haskell2010") || IS("Haskell98")) {
    } else
      lz_warning(span_of(L, w, p), "LANGUAGE extension ‘%.*s’ is not supported in Lz and is ignored",
                 (int)n, (const char *)w);
#undef IS
  }
}

/* A pragma whose "{-#" starts at s. Emits a T_SCC token or nothing; returns the end. */
static const unsigned char *lex_pragma(Lexer *L, const unsigned char *s) {
  const unsigned char *end = skip_ncomment(L, s);
  if (!end) return NULL;
  const unsigned char *body_end = end - 2; /* at "-}" */
  if (body_end > s + 3 && body_end[-1] == '#') body_end--;
  const unsigned char *p = s + 3;
  while (p < body_end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  const unsigned char *w = p;
  while (p < body_end && ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')) p++;
  size_t n = (size_t)(p - w);
  if (ieq(w, n, "LANGUAGE")) {
    if (!L->seen_code) language_pragma(L, p, body_end);
  } else if (ieq(w, n, "SCC")) {
    while (p < body_end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    const unsigned char *q = p;
    Sym name = NULL;
    if (q < body_end && *q == '"') {
      q++;
      while (q < body_end && *q != '"') q++;
      if (q < body_end) name = lz_symn((const char *)p + 1, (size_t)(q - p - 1)), q++;
    } else {
      while (q < body_end && (is_idchar(*q) || *q == '.')) q++;
      if (q > p) name = lz_symn((const char *)p, (size_t)(q - p));
    }
    while (q < body_end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')) q++;
    if (!name || q != body_end) {
      lex_error(L, s, end, "malformed SCC pragma: expected {-# SCC \"name\" #-}");
      return NULL;
    }
    Token *t = emit(L, T_SCC, s, end);
    t->name = name;
  }
  return end;
}

/* ---- identifiers and symbols --------------------------------------------------------- */

static const struct {
  const char *word;
  TokKind kind;
} reserved_ids[] = {
    {"case", T_CASE},         {"class", T_CLASS},   {"data", T_DATA},     {"default", T_DEFAULT},
    {"deriving", T_DERIVING}, {"do", T_DO},         {"else", T_ELSE},     {"foreign", T_FOREIGN},
    {"if", T_IF},             {"import", T_IMPORT}, {"in", T_IN},         {"infix", T_INFIX},
    {"infixl", T_INFIXL},     {"infixr", T_INFIXR}, {"instance", T_INSTANCE}, {"let", T_LET},
    {"module", T_MODULE},     {"newtype", T_NEWTYPE}, {"of", T_OF},       {"then", T_THEN},
    {"type", T_TYPE},         {"where", T_WHERE},   {"_", T_UNDERSCORE},
};

static const struct {
  const char *op;
  TokKind kind;
} reserved_ops[] = {
    {"..", T_DOTDOT}, {"::", T_DCOLON}, {"=", T_EQUAL}, {"\\", T_LAMBDA}, {"|", T_BAR},
    {"<-", T_LARROW}, {"->", T_RARROW}, {"@", T_AT},    {"~", T_TILDE},   {"=>", T_DARROW},
};

static TokKind reserved_op(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < sizeof reserved_ops / sizeof *reserved_ops; i++)
    if (strlen(reserved_ops[i].op) == n && memcmp(reserved_ops[i].op, s, n) == 0)
      return reserved_ops[i].kind;
  return T_EOF;
}

static bool all_dashes(const unsigned char *s, const unsigned char *e) {
  if (e - s < 2) return false;
  for (; s < e; s++)
    if (*s != '-') return false;
  return true;
}

/* Is the lexeme [s, e) in prefix position (GHC's whitespace-sensitive operators):
 * preceded by space or an opening bracket, and not followed by space or a closing one. */
static bool prefix_position(Lexer *L, const unsigned char *s, const unsigned char *e) {
  unsigned char b = s > L->base ? s[-1] : '\n';
  bool open = b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '(' || b == '[' ||
              b == ',' || b == ';' || (b == '{' && !(s - 1 > L->base && s[-2] == '-'));
  unsigned char a = e < L->lim ? *e : ' ';
  bool close = a == ' ' || a == '\t' || a == '\n' || a == '\r' || a == ')' || a == ']' || a == ',' ||
               a == ';' || a == '}';
  return open && !close;
}

/* End of the qualifier ("A.B." incl. the last dot) at the start of [s, e), or s. */
static const unsigned char *qualifier_end(const unsigned char *s, const unsigned char *e) {
  const unsigned char *q = s, *p = s;
  while (p < e && ((*p >= 'A' && *p <= 'Z') || *p >= 0x80)) {
    const unsigned char *r = p + 1;
    while (r < e && is_idchar(*r)) r++;
    if (r < e && *r == '.' && r + 1 < e) {
      p = q = r + 1;
    } else {
      break;
    }
  }
  return q;
}

static void ident_token(Lexer *L, TokKind kind, const unsigned char *s, const unsigned char *e) {
  const unsigned char *q = qualifier_end(s, e);
  Sym qual = q > s ? lz_symn((const char *)s, (size_t)(q - s - 1)) : NULL;
  Sym name = lz_symn((const char *)q, (size_t)(e - q));
  if (!qual && kind == T_VARID && (size_t)(e - q) <= 8) {
    for (size_t i = 0; i < sizeof reserved_ids / sizeof *reserved_ids; i++)
      if (strcmp(name, reserved_ids[i].word) == 0) kind = reserved_ids[i].kind;
  }
  Token *t = emit(L, kind, s, e);
  t->qual = qual;
  t->name = name;
}

/* ---- the scanner ------------------------------------------------------------------ */

enum {
  A_EOF, A_SPACE, A_PRAGMA, A_NCOMMENT, A_VARID, A_CONID, A_SYM, A_HEX, A_OCT, A_DEC,
  A_FLOAT, A_CHAR, A_STRING, A_SPECIAL, A_BAD
};

/*!re2c
  re2c:define:YYCTYPE = "unsigned char";
  re2c:define:YYCURSOR = L->cur;
  re2c:define:YYMARKER = L->mar;
  re2c:define:YYLIMIT = L->lim;
  re2c:yyfill:enable = 0;
  re2c:eof = 0;

  unilarge = [\u00C0-\u00D6\u00D8-\u00DE\u0391-\u03A9\u0410-\u042F];
  unismall = [\u00DF-\u00F6\u00F8-\u00FF\u0100-\u024F\u03B1-\u03C9\u0430-\u044F\u3040-\u9FFF];
  unisym   = [\u00D7\u00F7\u2190-\u22FF];
  small  = [a-z_] | unismall;
  large  = [A-Z] | unilarge;
  idc    = [a-zA-Z0-9_'] | unismall | unilarge;
  sym    = [!#$%&*+./<=>?@\\^|~:\-] | unisym;
  conid  = large idc*;
  varid  = small idc*;
  qual   = (conid ".")+;
  dec    = [0-9]+;
  expo   = [eE] [+-]? dec;
*/

static int scan(Lexer *L) {
  L->tok = L->cur;
  /*!re2c
    $                      { return A_EOF; }
    [ \t\r\n\f\v]+         { return A_SPACE; }
    "{-#"                  { return A_PRAGMA; }
    "{-"                   { return A_NCOMMENT; }
    qual? varid            { return A_VARID; }
    qual? conid            { return A_CONID; }
    qual? sym+             { return A_SYM; }
    "0" [xX] [0-9a-fA-F]+  { return A_HEX; }
    "0" [oO] [0-7]+        { return A_OCT; }
    dec                    { return A_DEC; }
    dec "." dec expo? | dec expo { return A_FLOAT; }
    "'"                    { return A_CHAR; }
    "\""                   { return A_STRING; }
    [(),;[\]`{}]           { return A_SPECIAL; }
    *                      { return A_BAD; }
  */
}

/* Number literal [s, cur) of the given action; handles MagicHash suffixes. */
static void number_token(Lexer *L, int act, const unsigned char *s, bool negative) {
  FeLit lit = {0};
  const unsigned char *e = L->cur;
  if (act == A_FLOAT) {
    lit.kind = L_FRAC;
    fe_lex_make_float(&lit, s + negative, e);
  } else {
    lit.kind = L_INT;
    if (act == A_HEX) lit.digits = fe_lex_to_decimal(s + negative + 2, (int)(e - s - negative - 2), 16);
    else if (act == A_OCT) lit.digits = fe_lex_to_decimal(s + negative + 2, (int)(e - s - negative - 2), 8);
    else lit.digits = fe_lex_to_decimal(s + negative, (int)(e - s - negative), 10);
    fe_lex_set_int_value(&lit);
  }
  if (L->res->magic_hash && e < L->lim && *e == '#') {
    bool two = e + 1 < L->lim && e[1] == '#';
    if (lit.kind == L_INT && !two) {
      lit.kind = L_PRIM_INT;
      e++;
    } else if (lit.kind == L_FRAC && two) {
      lit.kind = L_PRIM_DOUBLE;
      e += 2;
    } else {
      lex_error(L, s, e + 1 + two,
                lit.kind == L_INT ? "Word# literals are not supported in Lz"
                                  : "Float# literals are not supported in Lz");
      return;
    }
  }
  lit.negative = negative;
  L->cur = e;
  Token *t = emit(L, T_LITERAL, s, e);
  t->lit = LZ_NEW(FeLit);
  *t->lit = lit;
}

static void lex_all(Lexer *L) {
  for (;;) {
    int act = scan(L);
    const unsigned char *s = L->tok;
    switch (act) {
    case A_EOF:
      return;
    case A_SPACE:
      break;
    case A_NCOMMENT: {
      const unsigned char *e = skip_ncomment(L, s);
      if (!e) return;
      L->cur = e;
      break;
    }
    case A_PRAGMA: {
      const unsigned char *e = lex_pragma(L, s);
      if (!e) return;
      L->cur = e;
      break;
    }
    case A_VARID:
    case A_CONID:
      if (L->res->magic_hash)
        while (L->cur < L->lim && *L->cur == '#') L->cur++;
      ident_token(L, act == A_VARID ? T_VARID : T_CONID, s, L->cur);
      break;
    case A_SYM: {
      const unsigned char *e = L->cur, *q = qualifier_end(s, e);
      if (q == s && all_dashes(s, e)) { /* a line comment */
        while (L->cur < L->lim && *L->cur != '\n') L->cur++;
        break;
      }
      size_t n = (size_t)(e - q);
      TokKind rk = reserved_op(q, n);
      if (q > s && (rk != T_EOF || all_dashes(q, e))) {
        /* M.. is M.(.) ; other reserved operators cannot be qualified: lex "M" alone */
        if (n == 1 && *q == '.') rk = T_EOF;
        else {
          L->cur = q - 1;
          ident_token(L, T_CONID, s, L->cur);
          break;
        }
      }
      if (q == s && L->res->magic_hash && n == 1 && *s == '-' && e < L->lim && *e >= '0' &&
          *e <= '9') {
        /* -1# is one token under MagicHash; otherwise "-" stays an operator */
        const unsigned char *save = L->cur;
        int act2 = scan(L);
        if ((act2 == A_DEC || act2 == A_FLOAT || act2 == A_HEX || act2 == A_OCT) && L->cur < L->lim &&
            *L->cur == '#') {
          number_token(L, act2, s, true);
          break;
        }
        L->cur = save;
      }
      if (q == s && rk != T_EOF) {
        emit(L, rk, s, e);
        break;
      }
      if (q == s && n == 1 && *s == '!' && prefix_position(L, s, e)) {
        Token *t = emit(L, T_BANG, s, e);
        t->name = lz_sym("!");
        break;
      }
      Token *t = emit(L, *q == ':' ? T_CONSYM : T_VARSYM, s, e);
      t->qual = q > s ? lz_symn((const char *)s, (size_t)(q - s - 1)) : NULL;
      t->name = lz_symn((const char *)q, n);
      break;
    }
    case A_HEX:
    case A_OCT:
    case A_DEC:
    case A_FLOAT:
      number_token(L, act, s, false);
      if (L->failed) return;
      break;
    case A_CHAR:
    case A_STRING: {
      const unsigned char *p = L->cur;
      FeCharBuf buf = {0};
      uint32_t one = 0;
      if (!lex_literal_body(L, &p, act == A_CHAR ? '\'' : '"', act == A_STRING ? &buf : NULL,
                            &one))
        return;
      FeLit lit = {0};
      if (act == A_CHAR) {
        lit.kind = L_CHAR;
        lit.ch = one;
      } else {
        lit.kind = L_STRING;
        lit.str = buf.len ? buf.data : "";
        lit.len = (size_t)buf.len;
        LZ_PUSH(buf, 0); /* keep it NUL-terminated for convenience */
        lit.str = buf.data;
      }
      if (L->res->magic_hash && p < L->lim && *p == '#') {
        lit.kind = act == A_CHAR ? L_PRIM_CHAR : L_PRIM_STRING;
        p++;
      }
      L->cur = p;
      Token *t = emit(L, T_LITERAL, s, p);
      t->lit = LZ_NEW(FeLit);
      *t->lit = lit;
      break;
    }
    case A_SPECIAL: {
      static const char chars[] = "(),;[]`{}";
      static const TokKind kinds[] = {T_LPAREN,   T_RPAREN,   T_COMMA,     T_SEMI,   T_LBRACKET,
                                      T_RBRACKET, T_BACKQUOTE, T_LBRACE, T_RBRACE};
      emit(L, kinds[strchr(chars, *s) - chars], s, L->cur);
      break;
    }
    default: { /* A_BAD */
      uint32_t c;
      int n = fe_lex_utf8_decode(s, L->lim, &c);
      if (!n) c = *s, n = 1;
      lex_error(L, s, s + n, lz_fmt("lexical error at character %s", fe_lex_show_char(c)));
      return;
    }
    }
  }
}

FeLexResult fe_lex(LzSource *src) {
  FeLexResult res = {0};
  Lexer L = {0};
  L.src = src;
  L.base = L.cur = L.pp = (const unsigned char *)src->text;
  L.lim = L.base + src->len;
  L.pline = L.pcol = 1;
  L.res = &res;
  lex_all(&L);
  /* EOF sits just after the last character */
  Token *eof = emit(&L, T_EOF, L.lim, L.lim);
  eof->bol = true;
  res.n = L.toks.len;
  res.toks = LZ_NEW_ARRAY(Token, res.n);
  memcpy(res.toks, L.toks.data, sizeof(Token) * (size_t)res.n);
  free(L.toks.data);
  return res;
}

const char *fe_token_text(const Token *t) {
  switch (t->kind) {
  case T_EOF: return "<end of input>";
  case T_SEMI: return t->virt ? "<virtual ;>" : ";";
  case T_LBRACE: return t->virt ? "<virtual {>" : "{";
  case T_RBRACE: return t->virt ? "<virtual }>" : "}";
  default: return lz_strndup(t->text, (size_t)t->len);
  }
}

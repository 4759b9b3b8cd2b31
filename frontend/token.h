/* token.h — tokens, the lexer and the layout engine (internal to frontend/).
 *
 * The lexer (lexer.re) turns a whole source file into an array of raw tokens up
 * front; a lexical error becomes a T_ERROR token carrying its message, so that the
 * error is reported only when the parser actually reaches it (as GHC, whose lexer runs
 * on demand, would). The layout engine (layout.c) runs the Haskell 2010 layout
 * algorithm L lazily over that array: it hands the parser one token at a time,
 * inserting virtual braces and semicolons from its context stack. The parser
 * implements the parse-error(t) rule by asking the engine to pop the innermost
 * implicit context (fe_layout_close_implicit). Because the whole state of the engine
 * is small (a position and the context stack), the parser can save and restore it to
 * parse speculatively (fe_layout_save / fe_layout_restore).
 * See Note [Layout] in layout.c.
 */
#ifndef LZ_FRONTEND_TOKEN_H
#define LZ_FRONTEND_TOKEN_H

#include "ast.h"

typedef enum {
  T_EOF,
  T_ERROR, /* a lexical error: message in Token.msg */
  /* identifiers and operators; qual != NULL when qualified */
  T_VARID,
  T_CONID,
  T_VARSYM,
  T_CONSYM,  /* including ":" */
  T_LITERAL, /* Token.lit */
  T_SCC,     /* {-# SCC name #-}: Token.name is the cost-centre name */
  /* special characters */
  T_LPAREN,
  T_RPAREN,
  T_LBRACKET,
  T_RBRACKET,
  T_COMMA,
  T_SEMI,   /* explicit or virtual (Token.virt) */
  T_LBRACE, /* explicit or virtual */
  T_RBRACE, /* explicit or virtual */
  T_BACKQUOTE,
  /* reserved identifiers */
  T_CASE,
  T_CLASS,
  T_DATA,
  T_DEFAULT,
  T_DERIVING,
  T_DO,
  T_ELSE,
  T_FOREIGN,
  T_IF,
  T_IMPORT,
  T_IN,
  T_INFIX,
  T_INFIXL,
  T_INFIXR,
  T_INSTANCE,
  T_LET,
  T_MODULE,
  T_NEWTYPE,
  T_OF,
  T_THEN,
  T_TYPE,
  T_WHERE,
  T_UNDERSCORE,
  /* reserved operators */
  T_DOTDOT,
  T_DCOLON,
  T_EQUAL,
  T_LAMBDA,
  T_BAR,
  T_LARROW,
  T_RARROW,
  T_AT,
  T_TILDE,
  T_DARROW,
  T_BANG, /* "!" in prefix position (space before, none after): a bang pattern */
  T_COUNT
} TokKind;

typedef struct Token {
  TokKind kind;
  LzSpan span;      /* columns count a tab to the next multiple of 8, as GHC does */
  const char *text; /* source text of the token (not NUL-terminated) */
  int len;
  Sym qual;        /* identifiers and operators: module qualifier or NULL */
  Sym name;        /* identifiers and operators: unqualified name; T_SCC: cc name */
  FeLit *lit;      /* T_LITERAL (NULL otherwise) */
  const char *msg; /* T_ERROR */
  bool bol;        /* first token on its line (gets an indentation token <n>) */
  bool virt;       /* T_SEMI/T_LBRACE/T_RBRACE inserted by the layout engine */
} Token;

typedef struct FeLexResult {
  Token *toks; /* ends with T_EOF (after a T_ERROR when lexing failed) */
  int n;
  bool magic_hash, bang_patterns, no_implicit_prelude;
} FeLexResult;

/* Lex a whole source file. Never fails: errors become a T_ERROR token. Reports
 * warnings (unsupported LANGUAGE extensions) directly. */
FeLexResult fe_lex(LzSource *src);

/* Helpers of the lexer (lex_util.c). */
typedef LZ_VEC(char) FeCharBuf;
int fe_lex_utf8_decode(const unsigned char *p, const unsigned char *lim,
                       uint32_t *cp);     /* 0: invalid */
const char *fe_lex_show_char(uint32_t c); /* as Haskell's show: 'q', '\n', '\SOH', '\8203' */
void fe_lex_encode_utf8(FeCharBuf *out, uint32_t c);
const char *fe_lex_to_decimal(const unsigned char *s, int n, int base); /* digits of any size */
void fe_lex_set_int_value(FeLit *lit);                                  /* i and fits from digits */
void fe_lex_make_float(FeLit *lit, const unsigned char *s, const unsigned char *e);
extern const char *const fe_lex_ascii_names[32]; /* NUL SOH ... US */

/* Printable description of a token for "parse error on input ‘...’". */
const char *fe_token_text(const Token *t);

/* ---- layout ---------------------------------------------------------------------- */

typedef struct FeLayout {
  const Token *toks;
  int n, pos; /* next raw token */
  int *ctx;   /* context stack: 0 = explicit braces, n > 0 = implicit block */
  int nctx, capctx;
  int bol_done;      /* index of the last raw token whose <n> was handled */
  bool expect_block; /* previous token was let/where/do/of: a {n} is due */
  bool expect_do;    /* ... and it was `do` (GHC's NondecreasingIndentation) */
  bool empty_close;  /* a `{}` pair is half emitted: emit `}` next */
  bool force_indent; /* process <n> for the next token even if not first on line */
} FeLayout;

/* Saved layout state for backtracking. */
typedef struct FeLayoutSave {
  FeLayout l;
  int *ctx_copy;
} FeLayoutSave;

void fe_layout_init(FeLayout *l, const Token *toks, int n);
Token fe_layout_next(FeLayout *l);
/* parse-error(t): pop the innermost context if it is implicit. Returns false when
 * the innermost context is explicit (or there is none): then t is a real error. */
bool fe_layout_close_implicit(FeLayout *l);
/* The parser consumed an explicit `}`: pop the explicit context. Returns false if the
 * innermost context is not explicit. */
bool fe_layout_close_explicit(FeLayout *l);
/* Number of open layout contexts. */
int fe_layout_depth(const FeLayout *l);
FeLayoutSave fe_layout_save(const FeLayout *l);
void fe_layout_restore(FeLayout *l, const FeLayoutSave *s);

#endif

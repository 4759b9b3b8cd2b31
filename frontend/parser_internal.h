/* parser_internal.h — what the parser's files (parse_*.c) share: the parser state,
 * token helpers, error reporting, speculative parsing and the grammar entry points.
 *
 * The parser is recursive descent over the token stream of the layout engine, with
 * one token of lookahead (Parser.tok). The few places where Haskell's grammar needs
 * more (is `x <- e` a bind or an expression? is `x, y :: T` a signature?) parse
 * speculatively: fe_try runs a sub-parser with errors redirected to a local jump
 * buffer and restores the token position and the layout state when it fails.
 * The first real error is reported with lz_error and ends the parse through a longjmp
 * back to fe_parse_module (the parser stops at the first error, as GHC does).
 */
#ifndef LZ_FRONTEND_PARSER_INTERNAL_H
#define LZ_FRONTEND_PARSER_INTERNAL_H

#include <setjmp.h>

#include "passes.h"
#include "token.h"

/* Nesting deeper than this (parentheses, blocks, lambdas...) is reported as an
 * error rather than risking the C stack. */
#define FE_MAX_DEPTH 400

/* Copy a vector into a field of a different (anonymous) LZ_VEC type. */
#define FE_VEC_SET(dst, src) ((dst).data = (src).data, (dst).len = (src).len, (dst).cap = (src).cap)

typedef LZ_VEC(FeDecl *) FeDeclVec;
typedef LZ_VEC(FeStmt *) FeStmtVec;

typedef struct Parser {
  LzSource *src;
  FeModule *mod;
  FeLayout lay;
  Token tok;   /* current token */
  LzSpan prev; /* span of the last consumed real token */
  int depth;
  jmp_buf *on_error; /* where an error jumps: the innermost fe_try, or the top */
  jmp_buf *top;      /* fe_parse_module's buffer (hard errors: lexical) */
  int trial;         /* > 0 while parsing speculatively: errors are not reported */
  bool has_bad_bang; /* a bang pattern seen without BangPatterns (reported later) */
  LzSpan bad_bang;
  bool bang_patterns, magic_hash;
  /* Errors that GHC finds after parsing (in its renamer): reported only when the
   * whole module parsed, so that a later parse error wins as in GHC. */
  LZ_VEC(struct FeDeferred {
    LzSpan at;
    const char *msg;
  })
  deferred;
} Parser;

typedef struct ParserSave {
  FeLayoutSave lay;
  Token tok;
  LzSpan prev;
  int depth;
  bool has_bad_bang;
  LzSpan bad_bang;
  int ndeferred;
} ParserSave;

/* ---- tokens (parse_module.c) ---- */
void fe_p_advance(Parser *p);
bool fe_p_at(Parser *p, TokKind k);
bool fe_p_accept(Parser *p, TokKind k);
void fe_p_expect(Parser *p, TokKind k);
bool fe_p_at_varsym(Parser *p, const char *name); /* unqualified operator `name` */
Token fe_p_peek(Parser *p);                       /* the token after p->tok */
LzSpan fe_p_from(Parser *p, LzSpan start);        /* start .. end of the last consumed token */
const char *fe_p_span_text(Parser *p, LzSpan sp); /* source text (first line only) */
/* After `(`: report `(# ... #)` (with MagicHash), which Lz does not have. */
void fe_p_check_unboxed(Parser *p, LzSpan lparen);
ParserSave fe_p_save(Parser *p);
void fe_p_restore(Parser *p, const ParserSave *s);
/* Run f speculatively: on failure (error or false) restore and return false. */
bool fe_try(Parser *p, bool (*f)(Parser *p, void *arg), void *arg);

/* ---- errors ---- */
_Noreturn void fe_p_error(Parser *p); /* parse error on the current token */
_Noreturn void fe_p_fail(Parser *p, LzSpan at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error GHC would report after parsing: see Parser.deferred. */
void fe_p_defer(Parser *p, LzSpan at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void fe_p_enter(Parser *p); /* depth limit */
void fe_p_leave(Parser *p);

/* ---- blocks: `{ item ; item ... }` with explicit or virtual braces ---- */
bool fe_p_block_open(Parser *p); /* returns true for explicit braces */
bool fe_p_block_at_end(Parser *p, bool explicit_);
void fe_p_block_close(Parser *p, bool explicit_);

/* ---- identifiers ---- */
FeIdent fe_p_ident(Parser *p); /* the current token's identifier (and advance) */
bool fe_p_at_var(Parser *p);   /* varid or ( varsym ) */
FeIdent fe_p_var(Parser *p);   /* var = varid | ( varsym ) */
bool fe_p_at_qop(Parser *p);
FeIdent fe_p_qop(Parser *p, bool *is_con); /* qvarsym | qconsym | `qvarid` | `qconid` */
Sym fe_p_module_name(const Token *t);

/* ---- grammar entry points ---- */
/* expressions (parse_expr.c) */
FeExpr *fe_p_exp(Parser *p);
bool fe_p_starts_exp(Parser *p);
void fe_p_stmt(Parser *p, FeStmtVec *out);
FeStmtVec fe_p_quals(Parser *p); /* qual, qual, ... (guards and comprehensions) */
/* patterns (parse_pat.c) */
FePat *fe_p_pat(Parser *p);
FePat *fe_p_apat(Parser *p);
bool fe_p_starts_apat(Parser *p);
void fe_p_check_bangs(Parser *p);
/* The left-hand side of a binding: fills a D_FUN or D_PAT declaration's name/matches
 * or pat. Returns the declaration with its rhs still to be parsed. */
FeDecl *fe_p_binding_lhs(Parser *p);
/* types (parse_type.c) */
FeType *fe_p_type(Parser *p);
FeType *fe_p_btype(Parser *p);
FeType *fe_p_atype(Parser *p);
bool fe_p_starts_atype(Parser *p);
FeQualType *fe_p_qualtype(Parser *p);
void fe_p_type_to_context(Parser *p, FeType *t, FeQualType *into);
/* declarations (parse_decl.c) */
FeDeclVec fe_p_decls(Parser *p); /* a block of nested declarations */
bool fe_p_starts_decl(Parser *p);
void fe_p_decl(Parser *p, FeDeclVec *out);                /* one nested declaration */
void fe_p_topdecl(Parser *p, FeDeclVec *out);             /* one top-level declaration */
FeRhs *fe_p_rhs(Parser *p, TokKind eq);                   /* = e | guards, [where decls] */
void fe_p_add_decl(Parser *p, FeDeclVec *out, FeDecl *d); /* groups equations */

#endif

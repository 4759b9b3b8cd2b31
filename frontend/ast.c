/* ast.c — constructors for the syntax tree of ast.h.
 *
 * Nodes are zeroed arena objects; the constructors only fill in the kind and span so
 * that every other field starts empty (NULL pointers, empty vectors, false flags).
 * The printer is in ast_print.c.
 */
#include "ast.h"

FeIdent fe_ident(Sym qual, Sym name, LzSpan span) {
  FeIdent id = {.qual = qual, .name = name, .span = span};
  return id;
}

FeIdent fe_ident_orig(Sym module, const char *name) {
  FeIdent id = {.name = lz_sym(name), .orig_module = module};
  return id;
}

FeExpr *fe_expr_new(FeExprKind kind, LzSpan span) {
  FeExpr *e = LZ_NEW(FeExpr);
  e->kind = kind;
  e->span = span;
  return e;
}

FePat *fe_pat_new(FePatKind kind, LzSpan span) {
  FePat *p = LZ_NEW(FePat);
  p->kind = kind;
  p->span = span;
  return p;
}

FeType *fe_type_new(FeTypeKind kind, LzSpan span) {
  FeType *t = LZ_NEW(FeType);
  t->kind = kind;
  t->span = span;
  return t;
}

FeDecl *fe_decl_new(FeDeclKind kind, LzSpan span) {
  FeDecl *d = LZ_NEW(FeDecl);
  d->kind = kind;
  d->span = span;
  return d;
}

FeStmt *fe_stmt_new(FeStmtKind kind, LzSpan span) {
  FeStmt *s = LZ_NEW(FeStmt);
  s->kind = kind;
  s->span = span;
  return s;
}

FeRhs *fe_rhs_plain(FeExpr *e) {
  FeRhs *r = LZ_NEW(FeRhs);
  r->plain = e;
  if (e) r->span = e->span;
  return r;
}

/* Uniques only grow, also across lz_reset: a stale FeName can never alias a new one. */
static int next_uniq;

FeName *fe_name_new(FeNameKind kind, Sym occ, Sym module, LzSpan def) {
  FeName *n = LZ_NEW(FeName);
  n->kind = kind;
  n->occ = occ;
  n->module = module;
  if (next_uniq == 0x7fffffff) next_uniq = 0; /* a very long fuzzing run: wrap, never overflow */
  n->uniq = ++next_uniq;
  n->def = def;
  n->assoc = ASSOC_LEFT;
  n->prec = 9;
  if (occ) {
    unsigned char c = (unsigned char)occ[0];
    n->is_op = !(c == '_' || c == '(' || c == '[' || c >= 0x80 || (c >= 'a' && c <= 'z') ||
                 (c >= 'A' && c <= 'Z'));
  }
  return n;
}

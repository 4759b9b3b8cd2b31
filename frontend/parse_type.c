/* parse_type.c — types and contexts.
 *
 * Types are parsed as in the Haskell 2010 grammar (type, btype, atype); the special
 * syntax becomes applications of the special constructors of ast.h: [t] is
 * TY_APP(TY_CON "[]", t), (a, b) is TY_APP(TY_APP(TY_CON "(,)", a), b), () is
 * TY_CON "()", and `a -> b` is TY_FUN. A context is first parsed as a type (we only
 * know it was a context when `=>` follows) and then converted to predicates.
 */
#include <string.h>

#include "parser_internal.h"

static FeType *con_type(Sym qual, const char *name, LzSpan sp) {
  FeType *t = fe_type_new(TY_CON, sp);
  t->id = fe_ident(qual, lz_sym(name), sp);
  return t;
}

static FeType *app_type(FeType *f, FeType *a) {
  FeType *t = fe_type_new(TY_APP, lz_span_join(f->span, a->span));
  t->left = f;
  t->right = a;
  return t;
}

static const char *tuple_name(int n) {
  char *s = lz_alloc((size_t)n + 2);
  s[0] = '(';
  for (int i = 1; i < n; i++)
    s[i] = ',';
  s[n] = ')';
  return s;
}

bool fe_p_starts_atype(Parser *p) {
  switch (p->tok.kind) {
  case T_VARID:
  case T_CONID:
  case T_LPAREN:
  case T_LBRACKET: return true;
  default: return false;
  }
}

/* atype = tyvar | qtycon | () | (->) | (,...) | ( type ) | ( type, ..., type )
 *       | [] | [ type ] */
FeType *fe_p_atype(Parser *p) {
  LzSpan start = p->tok.span;
  FeType *t;
  switch (p->tok.kind) {
  case T_VARID:
    if (!p->tok.qual && strcmp(p->tok.name, "forall") == 0)
      fe_p_fail(p, p->tok.span,
                "explicit ‘forall’ (rank-N or existential types) is not supported in Lz");
    if (p->tok.qual) fe_p_error(p);
    t = fe_type_new(TY_VAR, start);
    t->id = fe_p_ident(p);
    return t;
  case T_CONID:
    t = fe_type_new(TY_CON, start);
    t->id = fe_p_ident(p);
    return t;
  case T_LBRACKET:
    fe_p_advance(p);
    if (fe_p_accept(p, T_RBRACKET)) return con_type(NULL, "[]", fe_p_from(p, start));
    fe_p_enter(p);
    t = fe_p_type(p);
    fe_p_leave(p);
    fe_p_expect(p, T_RBRACKET);
    t = app_type(con_type(NULL, "[]", start), t);
    t->span = fe_p_from(p, start);
    return t;
  case T_LPAREN: {
    fe_p_advance(p);
    fe_p_check_unboxed(p, start);
    if (fe_p_accept(p, T_RPAREN)) return con_type(NULL, "()", fe_p_from(p, start));
    if (fe_p_accept(p, T_RARROW)) {
      fe_p_expect(p, T_RPAREN);
      return con_type(NULL, "->", fe_p_from(p, start));
    }
    if (fe_p_at(p, T_COMMA)) {
      int n = 1;
      while (fe_p_accept(p, T_COMMA))
        n++;
      fe_p_expect(p, T_RPAREN);
      return con_type(NULL, tuple_name(n), fe_p_from(p, start));
    }
    fe_p_enter(p);
    t = fe_p_type(p);
    if (fe_p_at(p, T_COMMA)) {
      LZ_VEC(FeType *) elems = {0};
      LZ_PUSH(elems, t);
      while (fe_p_accept(p, T_COMMA))
        LZ_PUSH(elems, fe_p_type(p));
      t = con_type(NULL, tuple_name(elems.len), start);
      for (int i = 0; i < elems.len; i++)
        t = app_type(t, elems.data[i]);
    }
    fe_p_leave(p);
    fe_p_expect(p, T_RPAREN);
    t->span = fe_p_from(p, start);
    return t;
  }
  default: fe_p_error(p);
  }
}

/* btype = atype+ */
FeType *fe_p_btype(Parser *p) {
  FeType *t = fe_p_atype(p);
  while (fe_p_starts_atype(p))
    t = app_type(t, fe_p_atype(p));
  return t;
}

/* type = btype [-> type]   (right-associative; built without recursion) */
FeType *fe_p_type(Parser *p) {
  LZ_VEC(FeType *) parts = {0};
  LZ_PUSH(parts, fe_p_btype(p));
  while (fe_p_accept(p, T_RARROW))
    LZ_PUSH(parts, fe_p_btype(p));
  FeType *t = parts.data[parts.len - 1];
  for (int i = parts.len - 2; i >= 0; i--) {
    FeType *f = fe_type_new(TY_FUN, lz_span_join(parts.data[i]->span, t->span));
    f->left = parts.data[i];
    f->right = t;
    t = f;
  }
  return t;
}

/* One class constraint C t from the type `C t`. */
static FePred type_to_pred(Parser *p, FeType *t) {
  FeType *head = t;
  int nargs = 0;
  while (head->kind == TY_APP)
    head = head->left, nargs++;
  if (head->kind != TY_CON || nargs == 0 || strcmp(head->id.name, "[]") == 0 ||
      head->id.name[0] == '(' || strcmp(head->id.name, "->") == 0)
    fe_p_fail(p, t->span, "malformed class constraint: %s", fe_type_to_string(t));
  if (nargs > 1)
    fe_p_fail(p, t->span, "multi-parameter type classes are not supported in Lz: %s",
              fe_type_to_string(t));
  FePred pr = {.cls = head->id, .type = t->right, .span = t->span};
  return pr;
}

/* context = class | ( class, ..., class ), given as the type it was parsed as */
void fe_p_type_to_context(Parser *p, FeType *t, FeQualType *into) {
  if (t->kind == TY_CON && strcmp(t->id.name, "()") == 0) return;
  FeType *head = t;
  int nargs = 0;
  while (head->kind == TY_APP)
    head = head->left, nargs++;
  if (head->kind == TY_CON && head->id.name[0] == '(' && head->id.name[1] == ',' &&
      (int)strlen(head->id.name) == nargs + 1) {
    /* a tuple of constraints: the arguments, left to right */
    FeType **args = lz_alloc(sizeof(FeType *) * (size_t)nargs);
    FeType *a = t;
    for (int i = nargs - 1; i >= 0; i--, a = a->left)
      args[i] = a->right;
    for (int i = 0; i < nargs; i++)
      LZ_PUSH(into->ctx, type_to_pred(p, args[i]));
    return;
  }
  LZ_PUSH(into->ctx, type_to_pred(p, t));
}

/* qualtype = [context =>] type */
FeQualType *fe_p_qualtype(Parser *p) {
  FeQualType *q = LZ_NEW(FeQualType);
  LzSpan start = p->tok.span;
  FeType *t = fe_p_type(p);
  if (fe_p_accept(p, T_DARROW)) {
    fe_p_type_to_context(p, t, q);
    t = fe_p_type(p);
  }
  q->type = t;
  q->span = fe_p_from(p, start);
  return q;
}

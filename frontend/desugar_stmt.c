/* desugar_stmt.c — do blocks, list comprehensions, arithmetic sequences and records.
 *
 * do:   `e; ss` = (>>) e ss;  `let ds; ss` = let ds in ss;  `p <- e; ss` =
 *       (>>=) e (\x -> case x of p -> ss), where a failable pattern (GHC's rule: not
 *       irrefutable) fails with MonadFail's `fail "Pattern match failure in do
 *       expression at FILE:SPAN"`.
 * [e | Q]: Wadler's translation (SPJ 1987, ch. 7), which builds the result directly
 *       without concatMap or intermediate lists. TQ[Q](L) is the list of e for Q,
 *       followed by the list L (always [] or a call `h us`, so it may be copied):
 *         TQ[](L)           = e : L
 *         TQ[b, Q](L)       = if b then TQ[Q](L) else L
 *         TQ[let ds, Q](L)  = let ds in TQ[Q](L)
 *         TQ[p <- l, Q](L)  = let h xs = case xs of [] -> L
 *                                                  y : us -> case y of p -> TQ[Q](h us)
 *                                                                  _ -> h us
 *                             in h l
 * [a ..] and friends: enumFrom, enumFromThen, enumFromTo, enumFromThenTo.
 * Records: construction puts the fields in declaration order (a missing field is a
 * runtime error with GHC's message, a missing strict field a compile-time one);
 * update is a case over the constructors that have all the updated fields; field
 * selectors are generated here for every record declaration.
 */
#include <string.h>

#include "desugar_internal.h"

/* ---- do ------------------------------------------------------------------------------------- */

typedef struct DoEnv {
  FeStmt **stmts;
  int n;
  LzSpan span;
} DoEnv;

static KExpr *do_stmts(Ds *d, FeStmt **s, int n, LzSpan span);

static KExpr *do_rest(Ds *d, void *env, MBind *binds, Fail *fail) {
  DoEnv *e = env;
  return do_stmts(d, e->stmts, e->n, e->span);
}

static KExpr *do_let_rest(Ds *d, void *env) {
  DoEnv *e = env;
  return do_stmts(d, e->stmts, e->n, e->span);
}

static KExpr *do_stmt(Ds *d, FeStmt **s, int n, LzSpan span) {
  FeStmt *st = s[0];
  if (n == 1) {
    if (st->kind != S_EXPR) {
      lz_error(st->span, "The last statement in a 'do' block must be an expression");
      return fe_ds_pat_error("bad do", st->span);
    }
    return fe_ds_expr(d, st->e);
  }
  DoEnv *rest = LZ_NEW(DoEnv);
  *rest = (DoEnv){s + 1, n - 1, span};
  switch (st->kind) {
  case S_EXPR: {
    KExpr *e = fe_ds_expr(d, st->e);
    KExpr *r = k_app(k_app(fe_ds_wired(DS_W_THEN, st->span), e), do_stmts(d, s + 1, n - 1, span));
    r->span = st->span;
    return r;
  }
  case S_LET: return fe_ds_let_decls(d, st->decls.data, st->decls.len, st->span, do_let_rest, rest);
  case S_BIND: {
    KExpr *m = fe_ds_expr(d, st->e);
    FePat *p = st->pat;
    KExpr *lam;
    if (p->kind == P_VAR && p->id.ref) {
      lam = k_lam(p->id.ref, do_stmts(d, s + 1, n - 1, span), st->span);
    } else {
      FeName *x = fe_ds_fresh("ds", p->span);
      MBody *b = LZ_NEW(MBody);
      b->build = do_rest;
      b->env = rest;
      b->span = st->span;
      FePat ***pats = LZ_NEW_ARRAY(FePat **, 1);
      pats[0] = LZ_NEW_ARRAY(FePat *, 1);
      pats[0][0] = p;
      FeName **occ = LZ_NEW_ARRAY(FeName *, 1);
      occ[0] = x;
      MProblem mp = {1, occ, NULL, 1, pats, b, st->span, false};
      KExpr *fx;
      if (fe_ds_pat_failable(p)) {
        char *msg = lz_fmt("Pattern match failure in do expression at %s", lz_span_ghc(p->span));
        fx = k_app(fe_ds_wired(DS_W_FAIL, p->span), fe_ds_string(msg, p->span));
      } else {
        char *msg =
            lz_fmt("%s: Non-exhaustive patterns in %s", lz_span_ghc(st->span), fe_ds_pat_string(p));
        fx = fe_ds_pat_error(msg, st->span);
      }
      Fail *f = fe_ds_fail_new(fx);
      lam = k_lam(x, fe_ds_fail_wrap(f, fe_ds_match(d, &mp, f)), st->span);
    }
    KExpr *r = k_app(k_app(fe_ds_wired(DS_W_BIND, st->span), m), lam);
    r->span = st->span;
    return r;
  }
  }
  return fe_ds_pat_error("bad statement", st->span);
}

static KExpr *do_stmts(Ds *d, FeStmt **s, int n, LzSpan span) {
  if (n <= 0) {
    lz_error(span, "Empty 'do' block");
    return fe_ds_pat_error("empty do", span);
  }
  /* a run of expression statements is built from its end without recursion, so long
   * straight-line do blocks do not nest the translation */
  int k = 0;
  while (k < n - 1 && s[k]->kind == S_EXPR)
    k++;
  if (!fe_ds_enter(d, s[0]->span)) return fe_ds_pat_error("too deep", span);
  KExpr *r = do_stmt(d, s + k, n - k, span);
  for (int i = k - 1; i >= 0; i--) {
    r = k_app(k_app(fe_ds_wired(DS_W_THEN, s[i]->span), fe_ds_expr(d, s[i]->e)), r);
    r->span = s[i]->span;
  }
  fe_ds_leave(d);
  return r;
}

KExpr *fe_ds_do(Ds *d, FeExpr *e) { return do_stmts(d, e->stmts.data, e->stmts.len, e->span); }

/* ---- list comprehensions ------------------------------------------------------------------ */

/* The list that follows: [] (h == NULL) or h us. */
typedef struct Tail {
  FeName *h, *us;
} Tail;

static KExpr *tail_expr(Tail t, LzSpan at) {
  if (!t.h) return k_var(fe_builtin_nil(), at);
  return k_app(k_var(t.h, at), k_var(t.us, at));
}

typedef struct CompEnv {
  FeStmt **q;
  int n;
  FeExpr *body;
  Tail tail;
  LzSpan span;
} CompEnv;

static KExpr *comp(Ds *d, CompEnv *c);

static KExpr *comp_rest(Ds *d, void *env, MBind *binds, Fail *fail) { return comp(d, env); }
static KExpr *comp_let_rest(Ds *d, void *env) { return comp(d, env); }

static KExpr *comp_qual(Ds *d, CompEnv *c) {
  if (c->n == 0) {
    KExpr *x = fe_ds_expr(d, c->body);
    KExpr *r =
        k_app(k_app(k_var(fe_builtin_cons(), c->body->span), x), tail_expr(c->tail, c->span));
    r->span = c->span;
    return r;
  }
  FeStmt *s = c->q[0];
  CompEnv *rest = LZ_NEW(CompEnv);
  *rest = *c;
  rest->q++;
  rest->n--;
  switch (s->kind) {
  case S_EXPR:
    return fe_ds_if(fe_ds_expr(d, s->e), comp(d, rest), tail_expr(c->tail, s->span), s->span);
  case S_LET: return fe_ds_let_decls(d, s->decls.data, s->decls.len, s->span, comp_let_rest, rest);
  case S_BIND: {
    FeName *h = fe_ds_fresh("go", s->span);
    FeName *xs = fe_ds_fresh("xs", s->span);
    FeName *us = fe_ds_fresh("us", s->span);
    FePat *p = s->pat;
    bool var = p->kind == P_VAR && p->id.ref;
    FeName *y = var ? p->id.ref : fe_ds_fresh("y", p->span);
    rest->tail = (Tail){h, us};
    KExpr *ok;
    if (var) {
      ok = comp(d, rest);
    } else {
      MBody *b = LZ_NEW(MBody);
      b->build = comp_rest;
      b->env = rest;
      b->span = s->span;
      FePat ***pats = LZ_NEW_ARRAY(FePat **, 1);
      pats[0] = LZ_NEW_ARRAY(FePat *, 1);
      pats[0][0] = p;
      FeName **occ = LZ_NEW_ARRAY(FeName *, 1);
      occ[0] = y;
      MProblem mp = {1, occ, NULL, 1, pats, b, s->span, false};
      Fail *f = fe_ds_fail_new(tail_expr(rest->tail, p->span));
      ok = fe_ds_fail_wrap(f, fe_ds_match(d, &mp, f));
    }
    KExpr *cs = k_new(K_CASE, s->span);
    cs->body = k_var(xs, s->span);
    KAlt nil = {0}, cons = {0};
    nil.kind = cons.kind = KA_CON;
    nil.con = fe_builtin_nil();
    nil.rhs = tail_expr(c->tail, s->span);
    nil.span = s->span;
    cons.con = fe_builtin_cons();
    LZ_PUSH(cons.vars, y);
    LZ_PUSH(cons.vars, us);
    cons.rhs = ok;
    cons.span = s->span;
    LZ_PUSH(cs->alts, nil);
    LZ_PUSH(cs->alts, cons);
    KExpr *let = k_new(K_LET, s->span);
    KBind *hb = k_bind(h, k_lam(xs, cs, s->span), s->span);
    hb->restricted = true;
    LZ_PUSH(let->binds, hb);
    let->body = k_app(k_var(h, s->span), fe_ds_expr(d, s->e));
    return let;
  }
  }
  return fe_ds_pat_error("bad qualifier", s->span);
}

static KExpr *comp(Ds *d, CompEnv *c) {
  if (!fe_ds_enter(d, c->span)) return fe_ds_pat_error("too deep", c->span);
  KExpr *r = comp_qual(d, c);
  fe_ds_leave(d);
  return r;
}

KExpr *fe_ds_comp(Ds *d, FeExpr *e) {
  CompEnv c = {e->stmts.data, e->stmts.len, e->e1, {NULL, NULL}, e->span};
  return comp(d, &c);
}

/* ---- arithmetic sequences -------------------------------------------------------------------- */

KExpr *fe_ds_arith(Ds *d, FeExpr *e) {
  int id = e->e2 ? (e->e3 ? DS_W_ENUM_FROM_THEN_TO : DS_W_ENUM_FROM_THEN)
                 : (e->e3 ? DS_W_ENUM_FROM_TO : DS_W_ENUM_FROM);
  KExpr *r = k_app(fe_ds_wired(id, e->span), fe_ds_expr(d, e->e1));
  if (e->e2) r = k_app(r, fe_ds_expr(d, e->e2));
  if (e->e3) r = k_app(r, fe_ds_expr(d, e->e3));
  r->span = e->span;
  return r;
}

/* ---- records ----------------------------------------------------------------------------------
 */

static const char *field_occ(const FeIdent *f) {
  return f->ref && f->ref->occ ? f->ref->occ : f->name ? f->name : "?";
}

KExpr *fe_ds_reccon(Ds *d, FeExpr *e) {
  FeName *con = e->id.ref;
  FeConDecl *info = fe_ds_con_info(con);
  if (!con || !info) {
    lz_error(e->span, "‘%s’ is not a record constructor", e->id.name ? e->id.name : "?");
    return fe_ds_pat_error("bad record", e->span);
  }
  int n = info->fields.len;
  KExpr **args = LZ_NEW_ARRAY(KExpr *, n > 0 ? n : 1);
  for (int i = 0; i < e->fields.len; i++) {
    FeFieldBind *fb = &e->fields.data[i];
    int k = fe_ds_field_index(con, &fb->field);
    if (k < 0) {
      lz_error(fb->field.span, "Constructor ‘%s’ does not have field ‘%s’", con->occ,
               field_occ(&fb->field));
      continue;
    }
    if (args[k]) {
      lz_error(e->span, "duplicate field name ‘%s’ in record construction", field_occ(&fb->field));
      continue;
    }
    args[k] = fe_ds_expr(d, fb->e);
  }
  const char *strict_missing = NULL;
  for (int k = 0; k < n; k++) {
    if (args[k]) continue;
    FeField *f = &info->fields.data[k];
    const char *name = f->label.name ? f->label.name : "";
    if (f->strict) {
      strict_missing = strict_missing ? lz_fmt("%s, %s", strict_missing, name) : name;
      continue;
    }
    args[k] = fe_ds_pat_error(
        lz_fmt("%s: Missing field in record construction %s", lz_span_ghc(e->span), name), e->span);
  }
  if (strict_missing) {
    lz_error(e->span, "Constructor ‘%s’ does not have the required strict field(s): %s", con->occ,
             strict_missing);
    return fe_ds_pat_error("bad record", e->span);
  }
  KExpr *r = k_var(con, e->id.span);
  for (int k = 0; k < n; k++) {
    r = k_app(r, args[k]);
    r->span = e->span;
  }
  return r;
}

KExpr *fe_ds_recupd(Ds *d, FeExpr *e) {
  int nf = e->fields.len;
  if (nf == 0) {
    lz_error(e->span, "Empty record update");
    return fe_ds_pat_error("bad update", e->span);
  }
  /* the type: the parent of the first field */
  FeName *f0 = e->fields.data[0].field.ref;
  FeDecl *data = f0 && f0->parent ? f0->parent->decl : NULL;
  if (!data || (data->kind != D_DATA && data->kind != D_NEWTYPE)) {
    lz_error(e->fields.data[0].field.span, "‘%s’ is not a record selector",
             field_occ(&e->fields.data[0].field));
    return fe_ds_pat_error("bad update", e->span);
  }
  LZ_VEC(FeConDecl *) cands = {0};
  for (int c = 0; c < data->cons.len; c++) {
    FeName *con = data->cons.data[c]->name.ref;
    bool all = con != NULL;
    for (int i = 0; i < nf && all; i++)
      all = fe_ds_field_index(con, &e->fields.data[i].field) >= 0;
    if (all) LZ_PUSH(cands, data->cons.data[c]);
  }
  if (cands.len == 0) {
    char *list = NULL;
    for (int i = 0; i < nf; i++) {
      const char *o = field_occ(&e->fields.data[i].field);
      list = list ? lz_fmt("%s, ‘%s’", list, o) : lz_fmt("‘%s’", o);
    }
    lz_error(e->span, "No constructor has all these fields: %s", list);
    return fe_ds_pat_error("bad update", e->span);
  }
  /* the new values, let-bound when used in several alternatives */
  KExpr **vals = LZ_NEW_ARRAY(KExpr *, nf);
  FeName **vnames = LZ_NEW_ARRAY(FeName *, nf);
  KExpr *let = cands.len > 1 ? k_new(K_LET, e->span) : NULL;
  for (int i = 0; i < nf; i++) {
    vals[i] = fe_ds_expr(d, e->fields.data[i].e);
    if (let) {
      vnames[i] = fe_ds_fresh(field_occ(&e->fields.data[i].field), vals[i]->span);
      KBind *b = k_bind(vnames[i], vals[i], vals[i]->span);
      b->restricted = true;
      LZ_PUSH(let->binds, b);
    }
  }
  KExpr *cs = k_new(K_CASE, e->span);
  cs->body = fe_ds_expr(d, e->e1);
  for (int c = 0; c < cands.len; c++) {
    FeConDecl *cd = cands.data[c];
    FeName *con = cd->name.ref;
    int n = cd->fields.len;
    KAlt a = {0};
    a.kind = KA_CON;
    a.con = con;
    a.span = e->span;
    KExpr *r = k_var(con, e->span);
    for (int k = 0; k < n; k++) {
      FeName *v =
          fe_ds_fresh(cd->fields.data[k].label.name ? cd->fields.data[k].label.name : "x", e->span);
      LZ_PUSH(a.vars, v);
      KExpr *arg = k_var(v, e->span);
      for (int i = 0; i < nf; i++)
        if (fe_ds_field_index(con, &e->fields.data[i].field) == k)
          arg = let ? k_var(vnames[i], e->span) : vals[i];
      r = k_app(r, arg);
    }
    a.rhs = r;
    LZ_PUSH(cs->alts, a);
  }
  if (cands.len < data->cons.len) {
    KAlt a = {0};
    a.kind = KA_DEFAULT;
    a.span = e->span;
    a.rhs = fe_ds_pat_error(
        lz_fmt("%s: Non-exhaustive patterns in record update", lz_span_ghc(e->span)), e->span);
    LZ_PUSH(cs->alts, a);
  }
  if (!let) return cs;
  let->body = cs;
  return let;
}

/* ---- field selectors --------------------------------------------------------------------------
 */

void fe_ds_selectors(Ds *d, FeDecl *data, KBindVec *out) {
  LZ_VEC(FeIdent *) labels = {0};
  for (int c = 0; c < data->cons.len; c++) {
    FeConDecl *cd = data->cons.data[c];
    for (int k = 0; k < cd->fields.len; k++) {
      FeIdent *l = &cd->fields.data[k].label;
      if (!l->name || !l->ref) continue;
      bool seen = false;
      for (int i = 0; i < labels.len && !seen; i++)
        seen = labels.data[i]->ref == l->ref;
      if (!seen) LZ_PUSH(labels, l);
    }
  }
  for (int i = 0; i < labels.len; i++) {
    FeIdent *l = labels.data[i];
    LzSpan at = l->span;
    FeName *r = fe_ds_fresh("r", at);
    KExpr *cs = k_new(K_CASE, at);
    cs->body = k_var(r, at);
    int ncons = 0;
    for (int c = 0; c < data->cons.len; c++) {
      FeConDecl *cd = data->cons.data[c];
      int k = fe_ds_field_index(cd->name.ref, l);
      if (k < 0 || !cd->name.ref) continue;
      KAlt a = {0};
      a.kind = KA_CON;
      a.con = cd->name.ref;
      a.span = at;
      FeName *x = NULL;
      for (int j = 0; j < cd->fields.len; j++) {
        FeName *v = fe_ds_fresh(j == k ? l->name : "ds", at);
        if (j == k) x = v;
        LZ_PUSH(a.vars, v);
      }
      a.rhs = k_var(x, at);
      LZ_PUSH(cs->alts, a);
      ncons++;
    }
    if (ncons < data->cons.len) {
      KAlt a = {0};
      a.kind = KA_DEFAULT;
      a.span = at;
      a.rhs = fe_ds_pat_error(lz_fmt("No match in record selector %s", l->name), at);
      LZ_PUSH(cs->alts, a);
    }
    KBind *b = k_bind(l->ref, k_lam(r, cs, at), at);
    LZ_PUSH(*out, b);
  }
  (void)d;
}

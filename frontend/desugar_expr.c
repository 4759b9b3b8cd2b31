/* desugar_expr.c — expressions, right-hand sides, lambdas and case, to kernel.
 *
 * Most expression forms map one to one onto kernel (application is curried, a
 * constructor is a variable, if is a case on Bool). The interesting part is where
 * patterns and guards meet: a lambda with patterns and a case expression hand their
 * clauses to the match compiler (match.c) with a right-hand side callback; a
 * right-hand side `| g1 = e1 | g2 = e2 where ds` becomes `let ds in` a chain in which
 * each guard's failure continuation is the next guard (Note [Failure continuations]),
 * the last one jumping to the clause's own failure continuation (the next equation or
 * alternative, supplied by the match compiler). Pattern guards `| p <- e` are one more
 * one-row match whose failure is that same continuation.
 *
 * Variables bound by patterns are never re-bound: a reference to one is replaced by
 * the occurrence variable the match compiler chose for it (DsVar.alias).
 */
#include <string.h>

#include "desugar_internal.h"

/* ---- small constructors ---------------------------------------------------------------- */

KExpr *fe_ds_var_ref(FeName *n, LzSpan at) {
  for (int i = 0; n && n->ds && fe_ds_var(n)->alias && i < 1000; i++)
    n = fe_ds_var(n)->alias;
  return k_var(n, at);
}

KExpr *fe_ds_wired(int id, LzSpan at) { return k_var(fe_ds_wired_name(id), at); }

KExpr *fe_ds_lit(FeLit lit, LzSpan at) {
  KExpr *e = k_new(K_LIT, at);
  e->lit = lit;
  return e;
}

KExpr *fe_ds_string(const char *s, LzSpan at) {
  FeLit l = {0};
  l.kind = L_STRING;
  l.str = s;
  l.len = strlen(s);
  return fe_ds_lit(l, at);
}

KExpr *fe_ds_if(KExpr *cond, KExpr *then_e, KExpr *else_e, LzSpan at) {
  KExpr *c = k_new(K_CASE, at);
  c->body = cond;
  KAlt t = {0}, f = {0};
  t.kind = f.kind = KA_CON;
  t.con = fe_ds_wired_name(DS_W_TRUE);
  f.con = fe_ds_wired_name(DS_W_FALSE);
  t.rhs = then_e;
  f.rhs = else_e;
  t.span = then_e->span;
  f.span = else_e->span;
  LZ_PUSH(c->alts, t);
  LZ_PUSH(c->alts, f);
  return c;
}

/* ---- right-hand sides and guards ------------------------------------------------------------- */

static bool trivially_true(const FeExpr *g) {
  if (!g || !g->id.ref) return false;
  if (g->kind == E_VAR) return g->id.ref == fe_ds_wired_name(DS_W_OTHERWISE);
  if (g->kind == E_CON) return g->id.ref == fe_ds_wired_name(DS_W_TRUE);
  return false;
}

static bool quals_cannot_fail(FeStmt **q, int n) {
  for (int i = 0; i < n; i++) {
    if (q[i]->kind == S_LET) continue;
    if (q[i]->kind == S_EXPR && trivially_true(q[i]->e)) continue;
    if (q[i]->kind == S_BIND && !fe_ds_pat_failable(q[i]->pat)) continue;
    return false;
  }
  return true;
}

bool fe_ds_rhs_can_fail(const FeRhs *rhs) {
  if (!rhs || rhs->plain) return false;
  for (int i = 0; i < rhs->guards.len; i++)
    if (quals_cannot_fail(rhs->guards.data[i].quals.data, rhs->guards.data[i].quals.len))
      return false;
  return true;
}

typedef struct QualEnv {
  FeStmt **quals;
  int n;
  FeExpr *e;
} QualEnv;

static KExpr *quals_rest(Ds *d, void *env, MBind *binds, Fail *fail) {
  QualEnv *q = env;
  return fe_ds_quals(d, q->quals, q->n, q->e, fail);
}

typedef struct LetQualEnv {
  FeStmt **quals;
  int n;
  FeExpr *e;
  Fail *fail;
} LetQualEnv;

static KExpr *let_qual_body(Ds *d, void *env) {
  LetQualEnv *q = env;
  return fe_ds_quals(d, q->quals, q->n, q->e, q->fail);
}

/* A one-column match of pattern p against expression scrut; body(env) on success. */
static KExpr *match_one(Ds *d, FePat *p, KExpr *scrut, MBody *body, Fail *fail, LzSpan ctx) {
  FeName **occ = LZ_NEW_ARRAY(FeName *, 1);
  MProblem mp = {0};
  mp.ncols = 1;
  mp.occ = occ;
  if (scrut->kind == K_VAR && scrut->var && scrut->var->kind == N_VAR) {
    occ[0] = scrut->var;
  } else {
    occ[0] = fe_ds_fresh("ds", scrut->span);
    mp.scrut = scrut;
  }
  FePat ***pats = LZ_NEW_ARRAY(FePat **, 1);
  pats[0] = LZ_NEW_ARRAY(FePat *, 1);
  pats[0][0] = p;
  mp.nrows = 1;
  mp.pats = pats;
  mp.bodies = body;
  mp.ctx_span = ctx;
  return fe_ds_match(d, &mp, fail);
}

KExpr *fe_ds_quals(Ds *d, FeStmt **quals, int n, FeExpr *e, Fail *fail) {
  for (int i = 0; i < n; i++) {
    FeStmt *s = quals[i];
    if (s->kind == S_EXPR && trivially_true(s->e)) continue;
    if (!fe_ds_enter(d, s->span)) return fe_ds_fail_use(fail, s->span);
    KExpr *r;
    if (s->kind == S_EXPR) {
      KExpr *g = fe_ds_expr(d, s->e);
      KExpr *rest = fe_ds_quals(d, quals + i + 1, n - i - 1, e, fail);
      r = fe_ds_if(g, rest, fe_ds_fail_use(fail, s->span), s->span);
    } else if (s->kind == S_LET) {
      LetQualEnv *env = LZ_NEW(LetQualEnv);
      *env = (LetQualEnv){quals + i + 1, n - i - 1, e, fail};
      r = fe_ds_let_decls(d, s->decls.data, s->decls.len, s->span, let_qual_body, env);
    } else {
      QualEnv *env = LZ_NEW(QualEnv);
      *env = (QualEnv){quals + i + 1, n - i - 1, e};
      MBody *b = LZ_NEW(MBody);
      b->build = quals_rest;
      b->env = env;
      b->can_fail = true;
      b->span = s->span;
      r = match_one(d, s->pat, fe_ds_expr(d, s->e), b, fail, s->span);
    }
    fe_ds_leave(d);
    return r;
  }
  return fe_ds_expr(d, e);
}

typedef struct GuardsEnv {
  FeRhs *rhs;
  Fail *fail;
} GuardsEnv;

static KExpr *guards(Ds *d, void *envp) {
  GuardsEnv *env = envp;
  FeRhs *rhs = env->rhs;
  if (rhs->plain) return fe_ds_expr(d, rhs->plain);
  Fail *next = env->fail;
  KExpr *result = NULL;
  for (int i = rhs->guards.len - 1; i >= 0; i--) {
    FeGuarded *g = &rhs->guards.data[i];
    KExpr *k = fe_ds_quals(d, g->quals.data, g->quals.len, g->e, next);
    if (next != env->fail) k = fe_ds_fail_wrap(next, k);
    if (i > 0)
      next = fe_ds_fail_new(k);
    else
      result = k;
  }
  if (!result) result = fe_ds_fail_use(env->fail, rhs->span);
  return result;
}

KExpr *fe_ds_rhs(Ds *d, FeRhs *rhs, Fail *fail) {
  GuardsEnv *env = LZ_NEW(GuardsEnv);
  env->rhs = rhs;
  env->fail = fail;
  if (!fail && !rhs->plain) /* cannot fail: a jump target is still needed formally */
    env->fail = fe_ds_fail_new(fe_ds_pat_error("impossible guard failure", rhs->span));
  return fe_ds_let_decls(d, rhs->where.data, rhs->where.len, rhs->span, guards, env);
}

/* ---- lambda and case ----------------------------------------------------------------------------
 */

static KExpr *rhs_body(Ds *d, void *env, MBind *binds, Fail *fail) {
  return fe_ds_rhs(d, env, fail);
}

static KExpr *expr_body(Ds *d, void *env, MBind *binds, Fail *fail) { return fe_ds_expr(d, env); }

static KExpr *lambda(Ds *d, FeExpr *e) {
  int n = e->pats.len;
  FeName **occ = LZ_NEW_ARRAY(FeName *, n > 0 ? n : 1);
  FePat ***pats = LZ_NEW_ARRAY(FePat **, 1);
  pats[0] = LZ_NEW_ARRAY(FePat *, n > 0 ? n : 1);
  bool simple = true;
  for (int i = 0; i < n; i++) {
    FePat *p = e->pats.data[i];
    if (p->kind == P_VAR && p->id.ref) {
      occ[i] = p->id.ref;
      pats[0][i] = NULL;
    } else {
      const char *hint = fe_ds_pat_name_hint(p);
      occ[i] = fe_ds_fresh(hint ? hint : "ds", p->span);
      pats[0][i] = p;
      simple = false;
    }
  }
  KExpr *body;
  if (simple) {
    body = fe_ds_expr(d, e->e1);
  } else {
    MBody *b = LZ_NEW(MBody);
    b->build = expr_body;
    b->env = e->e1;
    b->span = e->e1->span;
    MProblem mp = {n, occ, NULL, 1, pats, b, e->span, false};
    char *msg = lz_fmt("%s: Non-exhaustive patterns in lambda", lz_span_ghc(e->span));
    Fail *f = fe_ds_fail_new(fe_ds_pat_error(msg, e->span));
    body = fe_ds_fail_wrap(f, fe_ds_match(d, &mp, f));
  }
  for (int i = n - 1; i >= 0; i--)
    body = k_lam(occ[i], body, e->span);
  return body;
}

static KExpr *case_expr(Ds *d, FeExpr *e) {
  KExpr *scrut = fe_ds_expr(d, e->e1);
  int n = e->alts.len;
  MProblem mp = {0};
  mp.ncols = 1;
  mp.occ = LZ_NEW_ARRAY(FeName *, 1);
  if (scrut->kind == K_VAR && scrut->var && scrut->var->kind == N_VAR) {
    mp.occ[0] = scrut->var;
  } else {
    const char *hint = NULL;
    for (int i = 0; i < n && !hint; i++)
      hint = fe_ds_pat_name_hint(e->alts.data[i].pat);
    mp.occ[0] = fe_ds_fresh(hint ? hint : "ds", e->e1->span);
    mp.scrut = scrut;
  }
  mp.nrows = n;
  mp.pats = LZ_NEW_ARRAY(FePat **, n > 0 ? n : 1);
  mp.bodies = LZ_NEW_ARRAY(MBody, n > 0 ? n : 1);
  for (int i = 0; i < n; i++) {
    FeAlt *a = &e->alts.data[i];
    mp.pats[i] = LZ_NEW_ARRAY(FePat *, 1);
    mp.pats[i][0] = a->pat;
    mp.bodies[i].build = rhs_body;
    mp.bodies[i].env = a->rhs;
    mp.bodies[i].can_fail = fe_ds_rhs_can_fail(a->rhs);
    mp.bodies[i].span = a->span;
  }
  mp.ctx_span = e->span;
  char *msg = lz_fmt("%s: Non-exhaustive patterns in case", lz_span_ghc(e->span));
  Fail *f = fe_ds_fail_new(fe_ds_pat_error(msg, e->span));
  return fe_ds_fail_wrap(f, fe_ds_match(d, &mp, f));
}

/* (op e): \x -> op x e, with e computed once */
static KExpr *right_section(Ds *d, FeExpr *e) {
  KExpr *arg = fe_ds_expr(d, e->e1);
  FeName *x = fe_ds_fresh("x", e->span);
  bool atomic = arg->kind == K_VAR || arg->kind == K_LIT;
  FeName *v = atomic ? NULL : fe_ds_fresh("sec", e->e1->span);
  KExpr *op = fe_ds_var_ref(e->id.ref, e->id.span);
  KExpr *body = k_app(k_app(op, k_var(x, e->span)), v ? k_var(v, e->e1->span) : arg);
  KExpr *lam = k_lam(x, body, e->span);
  if (!v) return lam;
  KExpr *let = k_new(K_LET, e->span);
  KBind *b = k_bind(v, arg, e->e1->span);
  b->restricted = true;
  LZ_PUSH(let->binds, b);
  let->body = lam;
  return let;
}

/* ---- expressions
 * ---------------------------------------------------------------------------------- */

static KExpr *let_body_expr(Ds *d, void *env) { return fe_ds_expr(d, env); }

static KExpr *expr(Ds *d, FeExpr *e) {
  switch (e->kind) {
  case E_VAR:
  case E_CON:
    if (!e->id.ref) {
      lz_error(e->span, "internal: unresolved name ‘%s’", e->id.name ? e->id.name : "?");
      return fe_ds_pat_error("unresolved", e->span);
    }
    return fe_ds_var_ref(e->id.ref, e->span);
  case E_LIT: return fe_ds_lit(e->lit, e->span);
  case E_APP: {
    KExpr *f = fe_ds_expr(d, e->fn);
    for (int i = 0; i < e->args.len; i++) {
      f = k_app(f, fe_ds_expr(d, e->args.data[i]));
      f->span = e->span;
    }
    return f;
  }
  case E_NEG: {
    KExpr *r = k_app(fe_ds_wired(DS_W_NEGATE, e->span), fe_ds_expr(d, e->e1));
    r->span = e->span;
    return r;
  }
  case E_LAM: return lambda(d, e);
  case E_LET: return fe_ds_let_decls(d, e->decls.data, e->decls.len, e->span, let_body_expr, e->e1);
  case E_IF:
    return fe_ds_if(fe_ds_expr(d, e->e1), fe_ds_expr(d, e->e2), fe_ds_expr(d, e->e3), e->span);
  case E_CASE: return case_expr(d, e);
  case E_DO: return fe_ds_do(d, e);
  case E_TUPLE: {
    FeName *con = fe_ds_tuple_con(e->args.len);
    KExpr *r = k_var(con, e->span);
    for (int i = 0; i < e->args.len; i++) {
      r = k_app(r, fe_ds_expr(d, e->args.data[i]));
      r->span = e->span;
    }
    return r;
  }
  case E_LIST: {
    KExpr *r = k_var(fe_builtin_nil(), e->span);
    for (int i = e->args.len - 1; i >= 0; i--) {
      KExpr *x = fe_ds_expr(d, e->args.data[i]);
      r = k_app(k_app(k_var(fe_builtin_cons(), x->span), x), r);
      r->span = e->span;
    }
    return r;
  }
  case E_ARITH: return fe_ds_arith(d, e);
  case E_COMP: return fe_ds_comp(d, e);
  case E_LSECTION: {
    /* (e op) = op e (GHC's translation; differs from \y -> e op y only under seq) */
    KExpr *r = k_app(fe_ds_var_ref(e->id.ref, e->id.span), fe_ds_expr(d, e->e1));
    r->span = e->span;
    return r;
  }
  case E_RSECTION: return right_section(d, e);
  case E_TYPED: {
    KExpr *r = k_new(K_ANNOT, e->span);
    r->body = fe_ds_expr(d, e->e1);
    r->sig = e->sig;
    return r;
  }
  case E_RECCON: return fe_ds_reccon(d, e);
  case E_RECUPD: return fe_ds_recupd(d, e);
  case E_SCC: {
    KExpr *r = k_new(K_SCC, e->span);
    r->scc = e->scc;
    r->body = fe_ds_expr(d, e->e1);
    return r;
  }
  case E_PAREN: return fe_ds_expr(d, e->e1);
  case E_OPSEQ: break;
  }
  lz_error(e->span, "internal: unresolved operator sequence reached the desugarer");
  return fe_ds_pat_error("internal error", e->span);
}

KExpr *fe_ds_expr(Ds *d, FeExpr *e) {
  if (!e) return fe_ds_pat_error("internal: missing expression", (LzSpan){0});
  if (!fe_ds_enter(d, e->span)) return fe_ds_pat_error("too deeply nested", e->span);
  KExpr *r = expr(d, e);
  fe_ds_leave(d);
  return r;
}

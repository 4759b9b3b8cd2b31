/* desugar_fail.c — failure continuations, the pattern checks, and selectors: the
 * small pieces the match compiler (match.c) and the desugarer share.
 *
 * A failure continuation is where control goes when a clause does not match or its
 * guards fail: the next clause, the next guard, or a call of patError with GHC's
 * message. A selector `case occ of p -> v` extracts one variable of a pattern lazily;
 * it serves irrefutable patterns ~p and pattern bindings, and fails with
 * "Non-exhaustive patterns in <p>" as GHC does.
 *
 * Note [Failure continuations]
 * A failure continuation (Fail) is a kernel expression built before the code that may
 * jump to it. Each jump is a placeholder node `K_VAR join`; when the consumer is
 * complete, fe_ds_fail_wrap decides: no jump, drop it; one jump, or a tiny expression
 * (a variable, `patError "..."`), copy it into the placeholder(s); otherwise bind it
 * once, lazily, `let join = <continuation> in <consumer>`. A thunk is a fine join
 * point in a lazy language: it is evaluated at most once and only on failure.
 */
#include "desugar_internal.h"

/* ---- failure continuations ---------------------------------------------------------- */

static bool trivial(const KExpr *e, int depth) {
  if (!e || depth > 2) return false;
  switch (e->kind) {
  case K_VAR: return e->var != NULL;
  case K_LIT: return true;
  case K_APP: return trivial(e->fn, depth + 1) && trivial(e->arg, depth + 1);
  default: return false;
  }
}

/* A use of a join variable whose Fail is not placed yet must be patched with it. */
static void note_use(KExpr *u) {
  if (u->kind != K_VAR || !u->var || !u->var->ds) return;
  Fail *f = fe_ds_var(u->var)->join;
  if (f && !f->done) LZ_PUSH(f->uses, u);
}

static KExpr *copy_trivial(const KExpr *e, LzSpan at) {
  KExpr *c = k_new(e->kind, at);
  *c = *e;
  c->span = at;
  if (e->kind == K_APP) {
    c->fn = copy_trivial(e->fn, at);
    c->arg = copy_trivial(e->arg, at);
  }
  note_use(c);
  return c;
}

Fail *fe_ds_fail_new(KExpr *expr) {
  Fail *f = LZ_NEW(Fail);
  f->expr = expr;
  return f;
}

KExpr *fe_ds_fail_use(Fail *f, LzSpan at) {
  if (trivial(f->expr, 0) || f->done) return copy_trivial(f->expr, f->expr->span);
  if (!f->join) {
    f->join = fe_ds_fresh("fail", f->expr->span);
    fe_ds_var(f->join)->join = f;
  }
  KExpr *u = k_var(f->join, at);
  LZ_PUSH(f->uses, u);
  return u;
}

KExpr *fe_ds_fail_wrap(Fail *f, KExpr *body) {
  if (f->done) return body;
  f->done = true;
  if (f->join) fe_ds_var(f->join)->join = NULL;
  if (f->uses.len == 0) return body;
  if (f->uses.len == 1) {
    KExpr *u = f->uses.data[0];
    /* if the continuation is itself a jump to an unplaced join, that jump moves here */
    if (f->expr->kind == K_VAR && f->expr->var && f->expr->var->ds) {
      Fail *g = fe_ds_var(f->expr->var)->join;
      if (g && !g->done)
        for (int i = 0; i < g->uses.len; i++)
          if (g->uses.data[i] == f->expr) g->uses.data[i] = u;
    }
    *u = *f->expr;
    return body;
  }
  KExpr *let = k_new(K_LET, body->span);
  KBind *b = k_bind(f->join, f->expr, f->expr->span);
  b->restricted = true;
  LZ_PUSH(let->binds, b);
  let->body = body;
  return let;
}

KExpr *fe_ds_pat_error(const char *msg, LzSpan at) {
  return k_app(fe_ds_wired(DS_W_PAT_ERROR, at), fe_ds_string(msg, at));
}

/* ---- bindings of a clause ---------------------------------------------------------------- */

KExpr *fe_ds_bound_value(Ds *d, MBind *binds, FeName *var, LzSpan ctx_span, LzSpan at) {
  for (MBind *b = binds; b; b = b->next) {
    if (b->var != var) continue;
    if (!b->lazy) return k_var(b->occ, at);
    return fe_ds_selector(d, b->occ, b->lazy, var, ctx_span);
  }
  return fe_ds_var_ref(var, at);
}

/* Errors in patterns the renamer leaves to us, reported once per source pattern
 * (selectors re-match patterns already checked, so they skip this). */
static void check_pat(Ds *d, FePat *p, int depth);

void fe_ds_check_pat(Ds *d, FePat *p) { check_pat(d, p, 0); }

static void check_pat(Ds *d, FePat *p, int depth) {
  for (; p; p = p->sub) {
    if (depth > DS_MAX_DEPTH) return;
    switch (p->kind) {
    case P_CON: {
      if (!p->id.ref) {
        lz_error(p->span, "internal: unresolved constructor in pattern");
        return;
      }
      int arity = fe_ds_con_arity(p->id.ref);
      if (arity >= 0 && arity != p->args.len) {
        char *given = p->args.len == 0 ? lz_strdup("none") : lz_fmt("%d", p->args.len);
        lz_error(p->span, "The constructor ‘%s’ should have %d argument%s, but has been given %s",
                 p->id.ref->occ, arity, arity == 1 ? "" : "s", given);
      }
      for (int i = 0; i < p->args.len; i++)
        check_pat(d, p->args.data[i], depth + 1);
      return;
    }
    case P_TUPLE:
    case P_LIST:
      for (int i = 0; i < p->args.len; i++)
        check_pat(d, p->args.data[i], depth + 1);
      return;
    case P_REC:
      for (int i = 0; i < p->fields.len; i++)
        check_pat(d, p->fields.data[i].pat, depth + 1);
      return;
    case P_LIT:
      if (p->lit.kind == L_PRIM_STRING)
        lz_error(p->span, "Unboxed string literal patterns are not supported in Lz");
      return;
    case P_OPSEQ:
      lz_error(p->span, "internal: unresolved infix pattern reached the desugarer");
      return;
    default: break;
    }
    depth++;
  }
}

/* ---- selectors (lazy patterns, pattern bindings) ------------------------------------------ */

typedef struct SelEnv {
  FeName *var;
  LzSpan ctx_span;
} SelEnv;

static KExpr *sel_build(Ds *d, void *env, MBind *binds, Fail *fail) {
  SelEnv *s = env;
  if (!s->var) return k_var(fe_builtin_unit(), s->ctx_span);
  return fe_ds_bound_value(d, binds, s->var, s->ctx_span, s->ctx_span);
}

KExpr *fe_ds_selector(Ds *d, FeName *occ, FePat *pat, FeName *var, LzSpan ctx_span) {
  SelEnv *env = LZ_NEW(SelEnv);
  env->var = var;
  env->ctx_span = ctx_span;
  MBody *body = LZ_NEW(MBody);
  body->build = sel_build;
  body->env = env;
  body->raw = true;
  body->span = pat->span;
  FePat **row = LZ_NEW_ARRAY(FePat *, 1);
  row[0] = pat;
  FePat ***pats = LZ_NEW_ARRAY(FePat **, 1);
  pats[0] = row;
  FeName **occs = LZ_NEW_ARRAY(FeName *, 1);
  occs[0] = occ;
  MProblem mp = {1, occs, NULL, 1, pats, body, ctx_span, true};
  char *msg =
      lz_fmt("%s: Non-exhaustive patterns in %s", lz_span_ghc(ctx_span), fe_ds_pat_string(pat));
  Fail *f = fe_ds_fail_new(fe_ds_pat_error(msg, ctx_span));
  return fe_ds_fail_wrap(f, fe_ds_match(d, &mp, f));
}

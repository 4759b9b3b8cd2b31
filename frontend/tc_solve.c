/* tc_solve.c — class constraints: wanted and given dictionaries, instance reduction,
 * defaulting.
 *
 * Note [Evidence holes]
 * Instantiating an overloaded identifier produces `f @t <hole>` and a wanted
 * constraint `C t` that points at the hole (an empty CE_VAR node). Solving a wanted
 * overwrites the hole in place with its evidence:
 *   - `C (T t1 .. tn)`: the instance's dictionary function applied to the types and
 *     to new holes for the instance context (`$fShowMaybe @t <hole: Show t>`); a
 *     closed dictionary (`Show [Int]`) is built once as a top-level binding;
 *   - `C a` for a rigid `a`: a dictionary in scope (a given): a dictionary parameter
 *     of an enclosing signature or instance, or a superclass selected from one
 *     (`$p1Ord @a d`);
 *   - `C t0` on a meta variable: not solvable yet. The binding-group code (tc_binds.c)
 *     decides: defer it outwards, quantify over it (the hole becomes a new dictionary
 *     parameter), or default t0 (Haskell 2010 §4.3.4).
 * Because evidence only ever mentions global functions and dictionary parameters of
 * enclosing lambdas, a hole can be filled at any time after it was made.
 */
#include <string.h>

#include "tc_internal.h"

CoreExpr *fe_tc_hole(LzSpan at) {
  CoreExpr *h = core_expr_new(CE_VAR, at);
  h->var = NULL;
  return h;
}

CoreExpr *fe_tc_want(TcClass *c, CoreType *t, LzSpan at, const char *origin) {
  TcWanted *w = LZ_NEW(TcWanted);
  w->cls = c;
  w->type = t;
  w->hole = fe_tc_hole(at);
  w->span = at;
  w->origin = origin;
  LZ_PUSH(fe_tc.wanted, w);
  return w->hole;
}

/* ---- givens ------------------------------------------------------------------------- */

static void push_given(TcGiven *g, int depth) {
  LZ_PUSH(fe_tc.givens, g);
  if (depth > 50) return;
  for (int i = 0; i < g->cls->nsupers; i++) {
    TcGiven *s = LZ_NEW(TcGiven);
    s->cls = g->cls->supers[i];
    s->type = g->type;
    s->parent = g;
    s->super = i;
    push_given(s, depth + 1);
  }
}

void fe_tc_push_given(CoreVar *dict, TcClass *c, CoreType *t) {
  TcGiven *g = LZ_NEW(TcGiven);
  g->cls = c;
  g->type = t;
  g->var = dict;
  push_given(g, 0);
}

void fe_tc_pop_givens(int to) {
  if (to < fe_tc.givens.len) fe_tc.givens.len = to;
}

CoreExpr *fe_tc_given_evidence(TcGiven *g, LzSpan at) {
  if (g->var) {
    CoreExpr *e = core_var(g->var);
    e->span = at;
    return e;
  }
  CoreExpr *sel = core_var(g->parent->cls->super_sels[g->super]);
  return core_app(core_tyapp(sel, g->type), fe_tc_given_evidence(g->parent, at));
}

static TcGiven *find_given(TcClass *c, CoreType *t) {
  for (int i = fe_tc.givens.len - 1; i >= 0; i--) {
    TcGiven *g = fe_tc.givens.data[i];
    if (g->cls == c && fe_tc_type_eq(g->type, t)) return g;
  }
  return NULL;
}

/* ---- solving ------------------------------------------------------------------------ */

static void fill(CoreExpr *hole, CoreExpr *ev) {
  LzSpan at = hole->span;
  *hole = *ev;
  if (!lz_span_known(hole->span)) hole->span = at;
}

static bool ground(CoreType *t) {
  t = fe_tc_prune(t);
  switch (t->kind) {
  case CT_VAR: return false;
  case CT_CON: return true;
  case CT_APP: return ground(t->fn) && ground(t->arg);
  case CT_FUN: return ground(t->arg) && ground(t->res);
  case CT_FORALL: return false;
  }
  return false;
}

static char *context_str(void) {
  char *s = NULL;
  for (int i = 0; i < fe_tc.givens.len; i++) {
    TcGiven *g = fe_tc.givens.data[i];
    if (!g->var) continue;
    char *p = fe_tc_pred_str(g->cls, g->type);
    s = s ? lz_fmt("%s, %s", s, p) : p;
  }
  return s;
}

static void no_instance(TcWanted *w, CoreType *t, bool rigid) {
  char *p = fe_tc_pred_str(w->cls, t);
  char *ctx = rigid ? context_str() : NULL;
  const char *hint = fe_tc_prune(t)->kind == CT_FUN
                         ? "\n(maybe you haven't applied a function to enough arguments?)"
                         : "";
  if (ctx)
    fe_tc_error(w->span, "Could not deduce (%s)\n  arising from %s\nfrom the context: %s", p,
                w->origin ? w->origin : "a use of an overloaded function", ctx);
  else
    fe_tc_error(w->span, "No instance for (%s) arising from %s%s", p,
                w->origin ? w->origin : "a use of an overloaded function", hint);
}

static void solve_one(TcWanted *w, TcWantedVec *work, TcWantedVec *residual) {
  CoreType *t = fe_tc_prune(w->type);
  CoreType *args[16];
  int n;
  CoreType *h = fe_tc_spine(t, args, 16, &n);
  if (h->kind == CT_VAR) {
    if (fe_tc_as_meta(h)) {
      LZ_PUSH(*residual, w);
      return;
    }
    TcGiven *g = find_given(w->cls, t);
    if (g) {
      fill(w->hole, fe_tc_given_evidence(g, w->span));
      return;
    }
    no_instance(w, t, true);
    return;
  }
  if (h->kind != CT_CON) {
    no_instance(w, t, false);
    return;
  }
  if (fe_tc.givens.len) {
    TcGiven *g = find_given(w->cls, t);
    if (g) {
      fill(w->hole, fe_tc_given_evidence(g, w->span));
      return;
    }
  }
  TcInst *in = fe_tc_lookup_inst(w->cls, h->con);
  if (!in || !in->dfun || n != in->ntvs || n > 16) {
    no_instance(w, t, false);
    return;
  }
  bool cache = in->nctx > 0 && ground(t);
  Sym key = NULL;
  if (cache) {
    key = lz_sym(fe_tc_pred_str(w->cls, t));
    CoreVar *v = fe_tc_map_get(&fe_tc.dict_cache, key);
    if (v) {
      fill(w->hole, core_var(v));
      return;
    }
  }
  CoreExpr *e = core_var(in->dfun);
  for (int i = 0; i < n; i++)
    e = core_tyapp(e, args[i]);
  for (int i = 0; i < in->nctx; i++) {
    TcWanted *sub = LZ_NEW(TcWanted);
    sub->cls = in->ctx_cls[i];
    sub->type = fe_tc_subst(in->ctx_types[i], in->ntvs, in->tvs, args);
    sub->hole = fe_tc_hole(w->span);
    sub->span = w->span;
    sub->origin = w->origin;
    LZ_PUSH(*work, sub);
    e = core_app(e, sub->hole);
  }
  if (cache) {
    CoreVar *v = fe_tc_global(lz_sym(lz_fmt("$d%s", w->cls->name->occ)), fe_tc_dict_type(w->cls, t),
                              fe_tc.module, w->span);
    fe_tc_map_put(&fe_tc.dict_cache, key, v);
    CoreBind b = {v, e};
    LZ_PUSH(fe_tc.top, b);
    e = core_var(v);
  }
  fill(w->hole, e);
}

void fe_tc_simplify(TcWantedVec *bag, TcWantedVec *residual) {
  TcWantedVec work = {0};
  for (int i = 0; i < bag->len; i++)
    LZ_PUSH(work, bag->data[i]);
  for (int i = 0; i < work.len; i++) {
    if (fe_tc_too_many_errors()) return;
    solve_one(work.data[i], &work, residual);
  }
}

/* ---- defaulting (Haskell 2010 §4.3.4) ---------------------------------------------------- */

static bool has_instance(TcClass *c, CoreType *t) {
  CoreType *args[4];
  int n;
  CoreType *h = fe_tc_spine(t, args, 4, &n);
  if (h->kind != CT_CON) return false;
  TcInst *in = fe_tc_lookup_inst(c, h->con);
  return in && in->nctx == 0;
}

bool fe_tc_default(TcWantedVec *bag, int lvl) {
  bool any = false;
  for (int i = 0; i < bag->len; i++) {
    TcMeta *m = fe_tc_as_meta(bag->data[i]->type);
    if (!m || (lvl >= 0 && m->level <= lvl)) continue;
    /* all constraints on m */
    bool numeric = false, ok = true;
    for (int j = 0; j < bag->len && ok; j++) {
      TcWanted *w = bag->data[j];
      TcMeta *mj = fe_tc_as_meta(w->type);
      if (mj == m) {
        if (w->cls->numeric) numeric = true;
        if (!w->cls->standard) ok = false;
      } else if (!mj) {
        /* a constraint like C (m t) mentions m without being on m alone */
        LZ_VEC(TcMeta *) ms = {0};
        TcMap seen = {0};
        fe_tc_free_metas(w->type, -1000000, &seen, &ms);
        for (int x = 0; x < ms.len; x++)
          if (ms.data[x] == m) ok = false;
      }
    }
    if (!ok || !numeric) continue;
    for (int d = 0; d < fe_tc.defaults.len; d++) {
      CoreType *cand = fe_tc.defaults.data[d];
      bool all = true;
      for (int j = 0; j < bag->len && all; j++)
        if (fe_tc_as_meta(bag->data[j]->type) == m && !has_instance(bag->data[j]->cls, cand))
          all = false;
      if (all) {
        CoreType mt = {.kind = CT_VAR, .var = &m->tv};
        fe_tc_unify(&mt, cand, bag->data[i]->span);
        any = true;
        break;
      }
    }
  }
  return any;
}

void fe_tc_report_ambiguous(TcWanted *w) {
  CoreType *t = fe_tc_prune(w->type);
  LZ_VEC(TcMeta *) ms = {0};
  TcMap seen = {0};
  fe_tc_free_metas(t, -1000000, &seen, &ms);
  char *p = fe_tc_pred_str(w->cls, t);
  if (ms.len == 0) {
    fe_tc_error(w->span, "No instance for (%s) arising from %s", p,
                w->origin ? w->origin : "a use of an overloaded function");
    return;
  }
  CoreType mt = {.kind = CT_VAR, .var = &ms.data[0]->tv};
  fe_tc_error(w->span,
              "Ambiguous type variable ‘%s’ arising from %s\nprevents the constraint ‘(%s)’ from "
              "being solved.",
              fe_tc_type_str(&mt), w->origin ? w->origin : "a use of an overloaded function", p);
}

/* ---- instantiation -------------------------------------------------------------------- */

CoreExpr *fe_tc_instantiate(CoreExpr *e, CoreType *t, CoreType **rho, LzSpan at,
                            const char *origin) {
  for (;;) {
    t = fe_tc_prune(t);
    if (t->kind == CT_FORALL) {
      CoreTyVar *vs[64];
      CoreType *ms[64];
      int n = 0;
      while (t->kind == CT_FORALL && n < 64) {
        vs[n] = t->var;
        ms[n] = fe_tc_meta(t->var->kind, t->var->name);
        e = core_tyapp(e, ms[n]);
        n++;
        t = fe_tc_prune(t->body);
      }
      t = fe_tc_subst(t, n, vs, ms);
      continue;
    }
    TcClass *c;
    CoreType *arg;
    if (t->kind == CT_FUN && fe_tc_is_dict_type(t->arg, &c, &arg) && c) {
      e = core_app(e, fe_tc_want(c, arg, at, origin));
      t = t->res;
      continue;
    }
    break;
  }
  *rho = t;
  return e;
}

/* tc_binds.c — binding groups: dependency analysis, generalisation, signatures,
 * foreign imports.
 *
 * A let group (and the whole top level) is split into strongly connected components
 * (iterative Tarjan) of the "uses" relation, ignoring uses of binders that have a type
 * signature (Haskell 2010 §4.5.1), and the components are checked dependencies first:
 *  - a binder with a signature is checked against it (fe_tc_check_sigma): its type
 *    variables become rigid, its context becomes given dictionaries, the right-hand
 *    side is checked at level+1, and what the context does not entail is an error;
 *  - a component without signatures is inferred at level+1 with monomorphic binder
 *    types, then generalised over the metas still deeper than the enclosing level
 *    (no environment scan, see Note [Metas inside Core types] in tc_types.c). Class
 *    constraints on those metas become dictionary parameters, except under the
 *    monomorphism restriction (KBind.restricted), where the constrained metas stay
 *    monomorphic and their constraints go to the enclosing scope; constraints on metas
 *    that appear nowhere in the type are ambiguous and defaulted (§4.3.4).
 * Elaboration: `f = /\as. \ds. rhs`; recursive occurrences (recorded in TcVar.occs)
 * become `f @as ds` — or, for a single binding with dictionaries, a local monomorphic
 * `letrec f_m = rhs[f_m/f] in f_m`, so dictionaries are built once per call.
 */
#include <string.h>

#include "tc_internal.h"

/* ---- skolemisation ----------------------------------------------------------------------- */

CoreType *fe_tc_skolemise(CoreType *sigma, TcBinders *out, const char *origin, LzSpan at) {
  CoreType *t = fe_tc_prune(sigma);
  for (int guard = 0; guard < 1000; guard++) {
    if (t->kind == CT_FORALL) {
      CoreTyVar *s = fe_tc_skolem(t->var->name, t->var->kind, origin, at);
      TcBinder b = {0};
      b.tv = s;
      LZ_PUSH(*out, b);
      CoreType *st = core_type_var(s);
      t = fe_tc_prune(fe_tc_subst(t->body, 1, &t->var, &st));
      continue;
    }
    TcClass *c;
    CoreType *arg;
    if (t->kind == CT_FUN && fe_tc_is_dict_type(t->arg, &c, &arg) && c) {
      TcBinder b = {0};
      b.dict = fe_tc_local(lz_sym(lz_fmt("$d%s", c->name->occ)), t->arg, at);
      b.cls = c;
      b.pred = arg;
      LZ_PUSH(*out, b);
      t = fe_tc_prune(t->res);
      continue;
    }
    break;
  }
  return t;
}

void fe_tc_push_binder_givens(TcBinders *b) {
  for (int i = 0; i < b->len; i++)
    if (b->data[i].dict) fe_tc_push_given(b->data[i].dict, b->data[i].cls, b->data[i].pred);
}

CoreExpr *fe_tc_wrap_binders(TcBinders *b, CoreExpr *body) {
  for (int i = b->len - 1; i >= 0; i--)
    body = b->data[i].tv ? core_tylam(b->data[i].tv, body) : core_lam(b->data[i].dict, body);
  return body;
}

CoreExpr *fe_tc_wrap_lets(TcGroups *groups, CoreExpr *body) {
  for (int i = groups->len - 1; i >= 0; i--) {
    CoreBindGroup *g = &groups->data[i];
    CoreExpr *l = core_expr_new(CE_LET, body->span);
    l->rec = g->rec;
    l->binds = g->binds;
    l->nbinds = g->nbinds;
    l->body = body;
    body = l;
  }
  return body;
}

/* ---- solving at the end of a group ----------------------------------------------------------- */

static bool mentions_inner(TcWanted *w, int lvl) {
  LZ_VEC(TcMeta *) ms = {0};
  TcMap seen = {0};
  fe_tc_free_metas(w->type, lvl, &seen, &ms);
  return ms.len > 0;
}

/* Default the ambiguous constraints (on metas deeper than lvl) in *res; report what
 * cannot be defaulted; move the others to fe_tc.wanted (the enclosing scope). */
static void default_and_defer(TcWantedVec *res, int lvl) {
  for (int round = 0; round < 50; round++) {
    TcWantedVec inner = {0}, rest = {0};
    for (int i = 0; i < res->len; i++) {
      if (mentions_inner(res->data[i], lvl))
        LZ_PUSH(inner, res->data[i]);
      else
        LZ_PUSH(rest, res->data[i]);
    }
    if (!inner.len) break;
    if (!fe_tc_default(&inner, lvl)) {
      TcMap reported = {0};
      for (int i = 0; i < inner.len; i++) {
        TcMeta *m = fe_tc_as_meta(inner.data[i]->type);
        if (m && fe_tc_map_get(&reported, m)) continue;
        if (m) fe_tc_map_put(&reported, m, (void *)1);
        fe_tc_report_ambiguous(inner.data[i]);
      }
      *res = rest;
      break;
    }
    TcWantedVec again = {0};
    fe_tc_simplify(&inner, &again);
    for (int i = 0; i < again.len; i++)
      LZ_PUSH(rest, again.data[i]);
    *res = rest;
  }
  for (int i = 0; i < res->len; i++)
    LZ_PUSH(fe_tc.wanted, res->data[i]);
}

CoreExpr *fe_tc_check_sigma(KExpr *rhs, CoreType *sigma, const char *what, LzSpan at) {
  int mark = fe_tc.givens.len;
  TcWantedVec saved = fe_tc.wanted;
  memset(&fe_tc.wanted, 0, sizeof fe_tc.wanted);
  fe_tc.level++;
  TcBinders bs = {0};
  CoreType *rho = fe_tc_skolemise(sigma, &bs, what, at);
  fe_tc_push_binder_givens(&bs);
  CoreExpr *body = rhs ? fe_tc_expr(rhs, rho) : fe_tc_hole(at);
  fe_tc.level--;
  TcWantedVec bag = fe_tc.wanted, res = {0};
  fe_tc.wanted = saved;
  fe_tc_simplify(&bag, &res);
  default_and_defer(&res, fe_tc.level);
  fe_tc_pop_givens(mark);
  return fe_tc_wrap_binders(&bs, body);
}

/* ---- dependency analysis ------------------------------------------------------------------ */

typedef struct Graph {
  int n;
  LZ_VEC(int) * edges;
  bool *self;
  TcMap index; /* FeName* -> index + 1 */
  bool *cut;   /* binder has a signature: uses of it are not edges */
} Graph;

static void walk_uses(Graph *g, int from, KExpr *e, int depth) {
  while (e && depth < 100000) {
    switch (e->kind) {
    case K_VAR: {
      intptr_t j = (intptr_t)fe_tc_map_get(&g->index, e->var) - 1;
      if (j >= 0) {
        if (j == from)
          g->self[from] = true;
        else if (!g->cut[j])
          LZ_PUSH(g->edges[from], (int)j);
      }
      return;
    }
    case K_LIT: return;
    case K_APP:
      walk_uses(g, from, e->fn, depth + 1);
      e = e->arg;
      break;
    case K_LAM:
    case K_ANNOT:
    case K_SCC: e = e->body; break;
    case K_LET:
      for (int i = 0; i < e->binds.len; i++)
        if (e->binds.data[i]->rhs) walk_uses(g, from, e->binds.data[i]->rhs, depth + 1);
      e = e->body;
      break;
    case K_CASE:
      walk_uses(g, from, e->body, depth + 1);
      for (int i = 0; i < e->alts.len; i++)
        walk_uses(g, from, e->alts.data[i].rhs, depth + 1);
      return;
    }
    depth++;
  }
}

/* Tarjan's algorithm without recursion; components come out dependencies first. */
typedef LZ_VEC(int) IntVec;

static void tarjan(Graph *g, IntVec *order, IntVec *comp_start) {
  int n = g->n;
  int *idx = LZ_NEW_ARRAY(int, n + 1), *low = LZ_NEW_ARRAY(int, n + 1);
  bool *on = LZ_NEW_ARRAY(bool, n + 1);
  int *stack = LZ_NEW_ARRAY(int, n + 1), sp = 0;
  int *cs_node = LZ_NEW_ARRAY(int, n + 1), *cs_edge = LZ_NEW_ARRAY(int, n + 1), csp = 0;
  int counter = 0;
  for (int i = 0; i < n; i++)
    idx[i] = -1;
  for (int root = 0; root < n; root++) {
    if (idx[root] >= 0) continue;
    cs_node[csp] = root;
    cs_edge[csp++] = 0;
    idx[root] = low[root] = counter++;
    stack[sp++] = root;
    on[root] = true;
    while (csp) {
      int v = cs_node[csp - 1];
      if (cs_edge[csp - 1] < g->edges[v].len) {
        int w = g->edges[v].data[cs_edge[csp - 1]++];
        if (idx[w] < 0) {
          idx[w] = low[w] = counter++;
          stack[sp++] = w;
          on[w] = true;
          cs_node[csp] = w;
          cs_edge[csp++] = 0;
        } else if (on[w] && idx[w] < low[v]) {
          low[v] = idx[w];
        }
        continue;
      }
      csp--;
      if (csp && low[v] < low[cs_node[csp - 1]]) low[cs_node[csp - 1]] = low[v];
      if (low[v] == idx[v]) {
        LZ_PUSH(*comp_start, order->len);
        int w;
        do {
          w = stack[--sp];
          on[w] = false;
          LZ_PUSH(*order, w);
        } while (w != v);
      }
    }
  }
  LZ_PUSH(*comp_start, order->len);
}

/* ---- foreign imports -------------------------------------------------------------------- */

/* Arguments of a lifted type (Integer, a list, a type variable, ...) are evaluated by
 * the wrapper: a primop never sees a thunk (see primops.def). */
static bool lifted(CoreType *t) {
  CoreType *args[1];
  int n;
  CoreType *h = fe_tc_spine(fe_tc_zonk(t, false), args, 0, &n);
  return !(h->kind == CT_CON && h->con->unlifted);
}

CoreExpr *fe_tc_foreign(KBind *b, TcVar *v) {
  FeDecl *d = b->foreign_decl;
  LzSpan at = d ? d->span : b->span;
  const char *name = d && d->entity ? d->entity : "";
  int p = core_primop_lookup(name);
  if (p < 0) {
    fe_tc_error(at, "Unknown primitive operation ‘%s’", name);
    return fe_tc_hole(at);
  }
  int arity = core_primops[p].arity;
  CoreType *sigma = v->cv->type;
  if (!fe_tc.prog->primop_types[p]) fe_tc.prog->primop_types[p] = sigma;
  CoreTyVar *tvs[64];
  int ntv = 0;
  CoreType *t = sigma;
  while (t->kind == CT_FORALL && ntv < 64) {
    tvs[ntv++] = t->var;
    t = t->body;
  }
  CoreVar **xs = LZ_NEW_ARRAY(CoreVar *, arity + 1);
  CoreExpr **args = LZ_NEW_ARRAY(CoreExpr *, arity + 1);
  for (int i = 0; i < arity; i++) {
    if (t->kind != CT_FUN) {
      fe_tc_error(at, "The primitive ‘%s’ takes %d argument%s, but its type ‘%s’ has only %d", name,
                  arity, arity == 1 ? "" : "s", fe_tc_type_str(sigma), i);
      return fe_tc_hole(at);
    }
    xs[i] = fe_tc_local(lz_sym("x"), t->arg, at);
    args[i] = core_var(xs[i]);
    t = t->res;
  }
  CoreExpr *op = core_expr_new(CE_PRIMOP, at);
  op->primop = p;
  op->nargs = arity;
  op->args = args;
  op->type = t;
  CoreExpr *body = op;
  for (int i = arity - 1; i >= 0; i--) {
    if (!lifted(xs[i]->type)) continue;
    CoreVar *y = fe_tc_local(lz_sym("y"), xs[i]->type, at);
    args[i] = core_var(y);
    CoreAlt *alt = LZ_NEW(CoreAlt);
    alt->kind = ALT_DEFAULT;
    alt->rhs = body;
    body = fe_tc_case(core_var(xs[i]), y, t, 1, alt, at);
  }
  for (int i = arity - 1; i >= 0; i--)
    body = core_lam(xs[i], body);
  for (int i = ntv - 1; i >= 0; i--)
    body = core_tylam(tvs[i], body);
  return body;
}

/* ---- inference of a component without signatures ----------------------------------------------
 */

static void emit(TcGroups *out, bool top, bool rec, int n, CoreVar **vars, CoreExpr **rhss) {
  if (top) {
    for (int i = 0; i < n; i++) {
      CoreBind b = {vars[i], rhss[i]};
      LZ_PUSH(fe_tc.top, b);
    }
    return;
  }
  CoreBindGroup g = {rec, LZ_NEW_ARRAY(CoreBind, n), n};
  for (int i = 0; i < n; i++)
    g.binds[i] = (CoreBind){vars[i], rhss[i]};
  LZ_PUSH(*out, g);
}

static CoreType *error_scheme(void) {
  CoreTyVar *a = core_tyvar_new(lz_sym("a"), core_kind_star());
  return core_type_forall(a, core_type_var(a));
}

static void set_occ(CoreExpr *node, CoreExpr *e) {
  LzSpan at = node->span;
  *node = *e;
  node->span = at;
}

static void infer_group(KBind **bs, int n, TcVar **vs, bool rec, bool top, TcGroups *out) {
  int errs = fe_tc.nerrors;
  TcWantedVec saved = fe_tc.wanted;
  memset(&fe_tc.wanted, 0, sizeof fe_tc.wanted);
  fe_tc.level++;
  CoreExpr **rhs = LZ_NEW_ARRAY(CoreExpr *, n + 1);
  for (int i = 0; i < n; i++) {
    vs[i]->cv->type = fe_tc_meta(NULL, lz_sym("t"));
    vs[i]->mono = true;
    vs[i]->occs.len = 0;
  }
  bool restricted = false;
  for (int i = 0; i < n; i++) {
    if (top) fe_tc.module = bs[i]->name->module;
    rhs[i] = bs[i]->rhs ? fe_tc_expr(bs[i]->rhs, vs[i]->cv->type) : fe_tc_hole(bs[i]->span);
    if (bs[i]->restricted) restricted = true;
  }
  fe_tc.level--;
  int lvl = fe_tc.level;
  TcWantedVec bag = fe_tc.wanted, res = {0};
  fe_tc.wanted = saved;
  fe_tc_simplify(&bag, &res);
  for (int i = 0; i < n; i++)
    vs[i]->mono = false;

  /* candidate type variables: metas of the binder types deeper than lvl */
  LZ_VEC(TcMeta *) q = {0};
  TcMap inq = {0};
  for (int i = 0; i < n; i++)
    fe_tc_free_metas(vs[i]->cv->type, lvl, &inq, &q);

  /* classify the residual constraints */
  TcWantedVec quant = {0}, other = {0};
  for (int r = 0; r < res.len; r++) {
    TcWanted *w = res.data[r];
    LZ_VEC(TcMeta *) ms = {0};
    TcMap seen = {0};
    fe_tc_free_metas(w->type, lvl, &seen, &ms);
    bool all_in = ms.len > 0;
    for (int j = 0; j < ms.len; j++)
      if (!fe_tc_map_get(&inq, ms.data[j]) || ms.data[j]->level <= lvl) all_in = false;
    if (!all_in) {
      LZ_PUSH(other, w); /* outer (deferred) or ambiguous (defaulted) */
    } else if (restricted) {
      for (int j = 0; j < ms.len; j++)
        ms.data[j]->level = lvl; /* not generalised */
      LZ_PUSH(other, w);
    } else {
      LZ_PUSH(quant, w);
    }
  }
  default_and_defer(&other, lvl);

  /* quantify over the metas still deeper than lvl */
  LZ_VEC(CoreTyVar *) tvs = {0};
  for (int i = 0; i < q.len; i++) {
    TcMeta *m = q.data[i];
    if (m->ref || m->level <= lvl) continue;
    CoreTyVar *tv = core_tyvar_new(fe_tc_tyvar_name(tvs.len), m->tv.kind);
    m->ref = core_type_var(tv);
    LZ_PUSH(tvs, tv);
  }
  /* dictionary parameters: distinct predicates not implied by a superclass of another */
  LZ_VEC(TcWanted *) preds = {0};
  for (int i = 0; i < quant.len; i++) {
    TcWanted *w = quant.data[i];
    bool dup = false;
    for (int j = 0; j < preds.len && !dup; j++)
      if (preds.data[j]->cls == w->cls && fe_tc_type_eq(preds.data[j]->type, w->type)) dup = true;
    if (!dup) LZ_PUSH(preds, w);
  }
  LZ_VEC(CoreVar *) ds = {0};
  LZ_VEC(TcWanted *) kept = {0};
  for (int i = 0; i < preds.len; i++) {
    TcWanted *w = preds.data[i];
    bool implied = false;
    for (int j = 0; j < preds.len && !implied; j++)
      if (j != i && fe_tc_type_eq(preds.data[j]->type, w->type) &&
          fe_tc_is_superclass(preds.data[j]->cls, w->cls))
        implied = true;
    if (implied) continue;
    LZ_PUSH(kept, w);
    LZ_PUSH(ds, fe_tc_local(lz_sym(lz_fmt("$d%s", w->cls->name->occ)),
                            fe_tc_dict_type(w->cls, w->type), w->span));
  }
  int mark = fe_tc.givens.len;
  for (int i = 0; i < kept.len; i++)
    fe_tc_push_given(ds.data[i], kept.data[i]->cls, kept.data[i]->type);
  TcWantedVec left = {0};
  fe_tc_simplify(&quant, &left);
  fe_tc_pop_givens(mark);

  /* types and elaboration */
  bool failed = fe_tc.nerrors > errs;
  for (int i = 0; i < n; i++) {
    CoreType *mono = fe_tc_zonk(vs[i]->cv->type, false);
    CoreType *t = mono;
    for (int j = ds.len - 1; j >= 0; j--)
      t = core_type_fun(ds.data[j]->type, t);
    for (int j = tvs.len - 1; j >= 0; j--)
      t = core_type_forall(tvs.data[j], t);
    CoreVar *cv = vs[i]->cv;
    if (n == 1 && ds.len && vs[i]->occs.len) {
      CoreVar *fm = fe_tc_local(cv->name, mono, cv->span);
      for (int k = 0; k < vs[i]->occs.len; k++)
        vs[i]->occs.data[k]->var = fm;
      CoreExpr *l = core_expr_new(CE_LET, rhs[i]->span);
      l->rec = true;
      l->nbinds = 1;
      l->binds = LZ_NEW(CoreBind);
      l->binds[0] = (CoreBind){fm, rhs[i]};
      l->body = core_var(fm);
      rhs[i] = l;
      rec = false;
    } else if (tvs.len || ds.len) {
      for (int k = 0; k < vs[i]->occs.len; k++) {
        CoreExpr *e = core_var(cv);
        for (int j = 0; j < tvs.len; j++)
          e = core_tyapp(e, core_type_var(tvs.data[j]));
        for (int j = 0; j < ds.len; j++)
          e = core_app(e, core_var(ds.data[j]));
        set_occ(vs[i]->occs.data[k], e);
      }
    }
    cv->type = failed ? error_scheme() : t;
  }
  /* each right-hand side gets its own copy of the type and dictionary binders */
  for (int i = 0; i < n; i++) {
    CoreTyVar **mytv = tvs.data;
    CoreVar **myds = ds.data;
    if (i > 0 && (tvs.len || ds.len)) {
      TcSubst s = {0};
      s.ntv = tvs.len;
      s.tv_from = tvs.data;
      s.tv_to = LZ_NEW_ARRAY(CoreType *, tvs.len + 1);
      mytv = LZ_NEW_ARRAY(CoreTyVar *, tvs.len + 1);
      for (int j = 0; j < tvs.len; j++) {
        mytv[j] = core_tyvar_new(tvs.data[j]->name, tvs.data[j]->kind);
        s.tv_to[j] = core_type_var(mytv[j]);
      }
      s.nvar = ds.len;
      s.var_from = ds.data;
      s.var_to = myds = LZ_NEW_ARRAY(CoreVar *, ds.len + 1);
      for (int j = 0; j < ds.len; j++)
        myds[j] =
            fe_tc_local(ds.data[j]->name, fe_tc_subst(ds.data[j]->type, s.ntv, s.tv_from, s.tv_to),
                        ds.data[j]->span);
      fe_tc_zonk_expr(rhs[i], &s, false);
    }
    for (int j = ds.len - 1; j >= 0; j--)
      rhs[i] = core_lam(myds[j], rhs[i]);
    for (int j = tvs.len - 1; j >= 0; j--)
      rhs[i] = core_tylam(mytv[j], rhs[i]);
  }
  CoreVar **cvs = LZ_NEW_ARRAY(CoreVar *, n + 1);
  for (int i = 0; i < n; i++)
    cvs[i] = vs[i]->cv;
  emit(out, top, rec, n, cvs, rhs);
}

/* ---- groups ---------------------------------------------------------------------------- */

void fe_tc_bind_group(KBind **binds, int n, bool top, TcGroups *out) {
  if (n == 0) return;
  TcVar **vs = LZ_NEW_ARRAY(TcVar *, n + 1);
  Graph g = {0};
  g.n = n;
  g.edges = lz_alloc(sizeof(*g.edges) * (size_t)(n + 1));
  g.self = LZ_NEW_ARRAY(bool, n + 1);
  g.cut = LZ_NEW_ARRAY(bool, n + 1);
  for (int i = 0; i < n; i++) {
    KBind *b = binds[i];
    TcVar *v = LZ_NEW(TcVar);
    Sym name = b->name ? b->name->occ : lz_sym("x");
    CoreType *ty = NULL;
    if (b->foreign_decl && b->foreign_decl->sig) {
      ty = fe_tc_sig_type(b->foreign_decl->sig, 0, NULL, NULL, NULL, NULL, true);
      v->is_foreign = true;
    } else if (b->sig) {
      ty = fe_tc_sig_type(b->sig, 0, NULL, NULL, NULL, NULL, true);
    }
    g.cut[i] = ty != NULL;
    v->cv = top ? fe_tc_global(name, ty, b->name ? b->name->module : NULL, b->span)
                : fe_tc_local(name, ty, b->span);
    if (b->name) {
      b->name->tc = v;
      fe_tc_map_put(&g.index, b->name, (void *)(intptr_t)(i + 1));
    }
    vs[i] = v;
  }
  for (int i = 0; i < n; i++)
    if (binds[i]->rhs) walk_uses(&g, i, binds[i]->rhs, 0);
  IntVec order = {0}, starts = {0};
  tarjan(&g, &order, &starts);
  for (int c = 0; c + 1 < starts.len; c++) {
    if (fe_tc_too_many_errors()) return;
    int s = starts.data[c], e = starts.data[c + 1], k = e - s;
    int first = order.data[s];
    if (k == 1 && g.cut[first]) {
      KBind *b = binds[first];
      TcVar *v = vs[first];
      if (top) fe_tc.module = b->name ? b->name->module : NULL;
      CoreExpr *rhs;
      if (v->is_foreign) {
        rhs = fe_tc_foreign(b, v);
      } else {
        char *what = lz_fmt("the type signature for:\n    %s :: %s", v->cv->name,
                            fe_tc_type_str(v->cv->type));
        rhs = fe_tc_check_sigma(b->rhs, v->cv->type, what,
                                b->sig && lz_span_known(b->sig->span) ? b->sig->span : b->span);
      }
      emit(out, top, g.self[first], 1, &v->cv, &rhs);
      continue;
    }
    KBind **cb = LZ_NEW_ARRAY(KBind *, k + 1);
    TcVar **cv = LZ_NEW_ARRAY(TcVar *, k + 1);
    bool rec = k > 1;
    for (int j = 0; j < k; j++) {
      cb[j] = binds[order.data[s + j]];
      cv[j] = vs[order.data[s + j]];
      if (g.self[order.data[s + j]]) rec = true;
    }
    infer_group(cb, k, cv, rec, top, out);
  }
}

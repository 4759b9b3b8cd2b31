/* opt.c — the Core optimiser's driver (core_optimise) and its whole-program
 * housekeeping: dropping bindings main cannot reach, floating lets and dictionary
 * fields to the top level, eta-expanding top-level partial applications, and
 * re-grouping the top-level bindings in dependency order.
 *
 * The idea: the front end hands over the whole program, standard library included,
 * and most of it is dead; so the first step keeps only what `main` reaches. Then the
 * passes run in GHC's order — simplifier to a fixpoint, specialisation of overloaded
 * functions at the dictionaries they are called with, simplifier, strictness analysis
 * with worker/wrapper, simplifier — with the linter after every pass when asked.
 * Between simplifier iterations, top-level bindings are regrouped (Tarjan's strongly
 * connected components), because inlining changes who refers to whom: a recursive
 * group may fall apart into non-recursive bindings, which may then be inlined, and
 * specialised copies must come after the dictionaries they mention. Instance
 * dictionaries arrive as `let rec { d = C:Eq ... d ... } in d`; they become top-level
 * constructor applications of atoms, so that selecting a method from a known
 * dictionary is case-of-known-constructor. See Note [Core optimiser]
 * (docs/notes/core-opt.md).
 */
#include <stdlib.h>
#include <string.h>

#include "opt_priv.h"

/* ---- global index ------------------------------------------------------------------------ */

void core_opt_index_globals(Opt *O) {
  CoreProgram *p = O->p;
  for (int g = 0; g < p->groups.len; g++) {
    CoreBindGroup *grp = &p->groups.data[g];
    for (int i = 0; i < grp->nbinds; i++) {
      OptVarInfo *vi = core_opt_vvi(O, grp->binds[i].var);
      vi->gbind = &grp->binds[i];
      vi->group = g;
      vi->flags &= ~(unsigned)(VI_GLOBAL_REC | VI_LOOP);
      if (grp->rec) {
        vi->flags |= VI_GLOBAL_REC;
        if (!(vi->flags & VI_WRAPPER)) vi->flags |= VI_LOOP;
      }
    }
  }
}

CoreVar *core_opt_new_global(Opt *O, const char *name, Sym module, CoreType *t) {
  CoreVar *v = core_var_new(lz_sym(name), t, (LzSpan){0});
  v->global = true;
  v->module = module;
  (void)O;
  return v;
}

static void add_group(CoreProgram *p, bool rec, CoreVar *v, CoreExpr *rhs) {
  CoreBindGroup g = {0};
  g.rec = rec;
  g.nbinds = 1;
  g.binds = LZ_NEW(CoreBind);
  g.binds[0].var = v;
  g.binds[0].rhs = rhs;
  LZ_PUSH(p->groups, g);
}

/* ---- walking the global references of an expression ---------------------------------------- */

typedef void (*GlobalFn)(Opt *O, CoreVar *v, void *ctx);

static void globals_of(Opt *O, const CoreExpr *e, GlobalFn fn, void *ctx) {
  while (e) {
    switch (e->kind) {
    case CE_VAR:
      if (e->var->global) fn(O, e->var, ctx);
      return;
    case CE_LIT: return;
    case CE_APP:
      globals_of(O, e->arg, fn, ctx);
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++)
        globals_of(O, e->binds[i].rhs, fn, ctx);
      e = e->body;
      break;
    case CE_CASE:
      globals_of(O, e->body, fn, ctx);
      for (int i = 0; i < e->nalts; i++)
        globals_of(O, e->alts[i].rhs, fn, ctx);
      return;
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++)
        globals_of(O, e->args[i], fn, ctx);
      return;
    }
  }
}

/* ---- dead globals -----------------------------------------------------------------------------
 */

typedef LZ_VEC(CoreVar *) VarVec;

static void reach_one(Opt *O, CoreVar *v, void *ctx) {
  OptVarInfo *vi = core_opt_vvi(O, v);
  if (vi->mark) return;
  vi->mark = 1;
  LZ_PUSH(*(VarVec *)ctx, v);
}

void core_opt_drop_dead_globals(Opt *O) {
  CoreProgram *p = O->p;
  if (!p->main) return;
  core_opt_index_globals(O);
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++)
      core_opt_vvi(O, p->groups.data[g].binds[i].var)->mark = 0;
  VarVec work = {0};
  reach_one(O, p->main, &work);
  while (work.len) {
    CoreVar *v = work.data[--work.len];
    OptVarInfo *vi = core_opt_vvi(O, v);
    if (vi->gbind) globals_of(O, vi->gbind->rhs, reach_one, &work);
  }
  int out = 0;
  for (int g = 0; g < p->groups.len; g++) {
    CoreBindGroup grp = p->groups.data[g];
    int n = 0;
    for (int i = 0; i < grp.nbinds; i++) {
      if (core_opt_vvi(O, grp.binds[i].var)->mark) {
        grp.binds[n++] = grp.binds[i];
      } else {
        O->st.dead_global++;
        core_opt_vvi(O, grp.binds[i].var)->gbind = NULL;
      }
    }
    grp.nbinds = n;
    if (n > 0) p->groups.data[out++] = grp;
  }
  p->groups.len = out;
  core_opt_index_globals(O);
}

/* ---- regrouping (Tarjan)
 * ------------------------------------------------------------------------- */

typedef struct Tarjan {
  Opt *O;
  CoreBind **binds; /* by node number */
  int n, counter;
  int *index, *low;
  bool *on_stack;
  int *stack, sp;
  LZ_VEC(CoreBindGroup) out;
  /* the node's successors, collected per visit */
} Tarjan;

static int node_of(Opt *O, CoreVar *v) { return core_opt_vvi(O, v)->mark - 1; }

typedef struct Succ {
  LZ_VEC(int) s;
} Succ;

static void succ_one(Opt *O, CoreVar *v, void *ctx) {
  int k = node_of(O, v);
  if (k >= 0) LZ_PUSH(((Succ *)ctx)->s, k);
}

static void strong(Tarjan *T, int v) {
  T->index[v] = T->low[v] = ++T->counter;
  T->stack[T->sp++] = v;
  T->on_stack[v] = true;
  Succ su = {0};
  globals_of(T->O, T->binds[v]->rhs, succ_one, &su);
  bool self = false;
  for (int i = 0; i < su.s.len; i++) {
    int w = su.s.data[i];
    if (w == v) self = true;
    if (!T->index[w]) {
      strong(T, w);
      if (T->low[w] < T->low[v]) T->low[v] = T->low[w];
    } else if (T->on_stack[w] && T->index[w] < T->low[v]) {
      T->low[v] = T->index[w];
    }
  }
  if (T->low[v] != T->index[v]) return;
  CoreBindGroup g = {0};
  int start = T->sp;
  do
    start--;
  while (T->stack[start] != v);
  g.nbinds = T->sp - start;
  g.binds = LZ_NEW_ARRAY(CoreBind, g.nbinds);
  /* keep the original order inside a group */
  int k = 0;
  for (int i = start; i < T->sp; i++)
    T->on_stack[T->stack[i]] = false;
  for (int i = start; i < T->sp; i++)
    g.binds[k++] = *T->binds[T->stack[i]];
  for (int a = 1; a < g.nbinds; a++)
    for (int b = a; b > 0 && node_of(T->O, g.binds[b].var) < node_of(T->O, g.binds[b - 1].var);
         b--) {
      CoreBind t = g.binds[b];
      g.binds[b] = g.binds[b - 1];
      g.binds[b - 1] = t;
    }
  g.rec = g.nbinds > 1 || self;
  T->sp = start;
  LZ_PUSH(T->out, g);
}

void core_opt_regroup(Opt *O) {
  CoreProgram *p = O->p;
  Tarjan T = {0};
  T.O = O;
  for (int g = 0; g < p->groups.len; g++)
    T.n += p->groups.data[g].nbinds;
  T.binds = LZ_NEW_ARRAY(CoreBind *, T.n + 1);
  T.index = LZ_NEW_ARRAY(int, T.n + 1);
  T.low = LZ_NEW_ARRAY(int, T.n + 1);
  T.on_stack = LZ_NEW_ARRAY(bool, T.n + 1);
  T.stack = LZ_NEW_ARRAY(int, T.n + 1);
  int k = 0;
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      T.binds[k] = &p->groups.data[g].binds[i];
      core_opt_vvi(O, T.binds[k]->var)->mark = k + 1;
      k++;
    }
  for (int v = 0; v < T.n; v++)
    if (!T.index[v]) strong(&T, v);
  for (int v = 0; v < T.n; v++)
    core_opt_vvi(O, T.binds[v]->var)->mark = 0;
  p->groups.data = T.out.data;
  p->groups.len = T.out.len;
  p->groups.cap = T.out.cap;
  core_opt_index_globals(O);
}

/* ---- floating to the top level -----------------------------------------------------------------
 */

/* Turn local binder v into a global of module m (its occurrences follow by unique). */
static void globalise(CoreVar *v, CoreVar *owner) {
  v->global = true;
  v->module = owner->module;
  v->name = lz_sym(lz_fmt("%s$%s", owner->name, v->name));
}

static CoreExpr *spine_head(CoreExpr *e, int *nval, bool *trivial_args) {
  *nval = 0;
  *trivial_args = true;
  while (e->kind == CE_APP || e->kind == CE_TYAPP) {
    if (e->kind == CE_APP) {
      (*nval)++;
      if (!core_opt_is_trivial(e->arg)) *trivial_args = false;
    }
    e = e->fn;
  }
  return e;
}

/* f = g @t a  (g of arity 3)  ==>  f = \y z -> g @t a y z */
static CoreExpr *eta_expand(Opt *O, CoreExpr *rhs) {
  int nval;
  bool triv;
  CoreExpr *h = spine_head(rhs, &nval, &triv);
  if (h->kind != CE_VAR || !h->var->global || !triv) return rhs;
  OptVarInfo *hi = core_opt_vvi(O, h->var);
  if (!hi->gbind) return rhs;
  int arity = core_opt_lam_arity(hi->gbind->rhs);
  int need = arity - nval;
  if (need <= 0 || need > 16) return rhs;
  CoreType *t = core_expr_type(rhs);
  CoreVar *ps[16];
  for (int i = 0; i < need; i++) {
    if (!t || t->kind != CT_FUN) return rhs;
    ps[i] = core_opt_fresh_var("eta", t->arg);
    t = t->res;
  }
  CoreExpr *body = rhs;
  for (int i = 0; i < need; i++)
    body = core_app(body, core_var(ps[i]));
  for (int i = need - 1; i >= 0; i--)
    body = core_lam(ps[i], body);
  return body;
}

void core_opt_float_top(Opt *O) {
  CoreProgram *p = O->p;
  int ngroups = p->groups.len;
  core_opt_index_globals(O);
  for (int g = 0; g < ngroups; g++) {
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      CoreBind *b = &p->groups.data[g].binds[i];
      CoreVar *x = b->var;
      if (core_opt_vvi(O, x)->flags & VI_NOINLINE) continue;
      /* let rec { d = rhs } in d  ==>  x = rhs[d := x] */
      CoreExpr *r = b->rhs;
      if (r->kind == CE_LET && r->rec && r->nbinds == 1 && r->body->kind == CE_VAR &&
          r->body->var->uniq == r->binds[0].var->uniq &&
          core_type_equal(r->binds[0].var->type, x->type)) {
        CoreVar *d = r->binds[0].var;
        CoreExpr *xv = core_var(x);
        b->rhs = core_opt_clone(O, r->binds[0].rhs, 0, NULL, NULL, 1, &d, &xv);
        O->st.let_float++;
        r = b->rhs;
      }
      /* x = let y = a in b  ==>  y = a; x = b (lifted lets only; never out of an scc) */
      while (r->kind == CE_LET &&
             !(!r->rec && core_opt_type_unlifted_under_foralls(r->binds[0].var->type))) {
        for (int k = 0; k < r->nbinds; k++) {
          globalise(r->binds[k].var, x);
          add_group(p, true, r->binds[k].var, r->binds[k].rhs);
        }
        O->st.let_float++;
        r = r->body;
        b = &p->groups.data[g].binds[i]; /* add_group may have moved the array */
        b->rhs = r;
      }
      /* x = C e1 .. en  ==>  x = C a1 .. an with each non-trivial lifted ei a global */
      if (r->kind == CE_CON) {
        CoreExpr *nc = NULL;
        for (int k = 0; k < r->nargs; k++) {
          CoreExpr *a = r->args[k];
          if (core_opt_is_trivial(a)) continue;
          CoreType *at = core_expr_type(a);
          if (!at || core_type_unlifted(at)) continue;
          if (!nc) {
            nc = LZ_NEW(CoreExpr);
            *nc = *r;
            nc->args = LZ_NEW_ARRAY(CoreExpr *, r->nargs);
            memcpy(nc->args, r->args, sizeof(CoreExpr *) * (size_t)r->nargs);
          }
          CoreVar *v = core_opt_new_global(O, lz_fmt("%s$%d", x->name, k), x->module, at);
          add_group(p, true, v, a);
          nc->args[k] = core_var(v);
          O->st.let_float++;
        }
        if (nc) {
          b = &p->groups.data[g].binds[i];
          b->rhs = nc;
        }
      }
    }
  }
  core_opt_index_globals(O);
  /* eta-expansion needs the arities of the (new) globals */
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      CoreBind *b = &p->groups.data[g].binds[i];
      if (core_opt_vvi(O, b->var)->flags & VI_NOINLINE) continue;
      if (b->rhs->kind == CE_APP || b->rhs->kind == CE_TYAPP) b->rhs = eta_expand(O, b->rhs);
    }
}

/* ---- depth check
 * ---------------------------------------------------------------------------------- */

static int depth_of(const CoreExpr *e, int d, int limit) {
  int best = d;
  while (e && d <= limit) {
    if (d > best) best = d;
    switch (e->kind) {
    case CE_VAR:
    case CE_LIT: return best;
    case CE_APP: {
      int x = depth_of(e->arg, d + 1, limit);
      if (x > best) best = x;
      e = e->fn;
      d++;
      break;
    }
    case CE_TYAPP:
    case CE_LAM:
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC:
      e = e->kind == CE_TYAPP ? e->fn : e->body;
      d++;
      break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++) {
        int x = depth_of(e->binds[i].rhs, d + 1, limit);
        if (x > best) best = x;
      }
      e = e->body;
      d++;
      break;
    case CE_CASE: {
      int x = depth_of(e->body, d + 1, limit);
      if (x > best) best = x;
      for (int i = 0; i < e->nalts; i++) {
        x = depth_of(e->alts[i].rhs, d + 1, limit);
        if (x > best) best = x;
      }
      return best;
    }
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++) {
        int x = depth_of(e->args[i], d + 1, limit);
        if (x > best) best = x;
      }
      return best;
    }
  }
  return d > best ? d : best;
}

static void mark_deep(Opt *O) {
  CoreProgram *p = O->p;
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      CoreBind *b = &p->groups.data[g].binds[i];
      if (depth_of(b->rhs, 0, CORE_MAX_DEPTH / 2) > CORE_MAX_DEPTH / 2)
        core_opt_vvi(O, b->var)->flags |= VI_NOINLINE;
    }
}

/* ---- the driver
 * ---------------------------------------------------------------------------------- */

static bool lint_after(Opt *O, const char *pass) {
  if (!O->lint) return true;
  bool ok = core_lint_program(O->p, lz_fmt("optimiser: %s", pass)) == 0;
  if (!ok && getenv("LZ_OPT_TRACE")) {
    fprintf(stderr, "==== after %s (failed lint)\n", pass);
    core_print_program(stderr, O->p);
  }
  return ok;
}

static bool simplify_to_fixpoint(Opt *O, int max_iter, const char *what) {
  for (int it = 0; it < max_iter; it++) {
    if (getenv("LZ_OPT_TRACE")) {
      fprintf(stderr, "==== before %s iteration %d\n", what, it);
      core_print_program(stderr, O->p);
    }
    int ticks = core_opt_simplify_program(O);
    if (!lint_after(O, what)) return false;
    core_opt_drop_dead_globals(O);
    core_opt_float_top(O);
    core_opt_regroup(O);
    if (!lint_after(O, lz_fmt("%s (regrouping)", what))) return false;
    if (ticks == 0) break;
  }
  return true;
}

static OptStats last_stats;

/* Node counts of the program (for --opt-stats): all nodes, applications, cases, lets. */
typedef struct Counts {
  long nodes, apps, cases, lets;
} Counts;

static void count_expr(const CoreExpr *e, Counts *c) {
  while (e) {
    c->nodes++;
    switch (e->kind) {
    case CE_VAR:
    case CE_LIT: return;
    case CE_APP:
      c->apps++;
      count_expr(e->arg, c);
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_LET:
      c->lets++;
      for (int i = 0; i < e->nbinds; i++)
        count_expr(e->binds[i].rhs, c);
      e = e->body;
      break;
    case CE_CASE:
      c->cases++;
      count_expr(e->body, c);
      for (int i = 0; i < e->nalts; i++)
        count_expr(e->alts[i].rhs, c);
      return;
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++)
        count_expr(e->args[i], c);
      return;
    }
  }
}

static Counts count_program(const CoreProgram *p) {
  Counts c = {0};
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++)
      count_expr(p->groups.data[g].binds[i].rhs, &c);
  return c;
}

static Counts before_counts, after_counts;

CoreProgram *core_optimise(CoreProgram *p, int level, bool lint_between_passes) {
  if (!p || level <= 0) return p;
  Opt O = {0};
  O.p = p;
  O.level = level;
  O.lint = lint_between_passes;
  core_opt_vi(&O, core_fresh_uniq());
  mark_deep(&O);
  core_opt_drop_dead_globals(&O);
  core_opt_float_top(&O);
  core_opt_regroup(&O);
  before_counts = count_program(p);
  if (!lint_after(&O, "top-level floating")) goto out;
  int iters = level >= 2 ? 8 : 4;
  if (!simplify_to_fixpoint(&O, iters, "simplifier")) goto out;
  for (int round = 0; round < 4; round++) {
    if (core_opt_specialise(&O) == 0) break;
    core_opt_regroup(&O);
    if (!lint_after(&O, "specialisation")) goto out;
    if (!simplify_to_fixpoint(&O, iters, "simplifier after specialisation")) goto out;
  }
  bool fuse = level >= 2 && !getenv("LZ_OPT_NO_FUSION"); /* the knob is for measuring */
  for (int round = 0; fuse && round < 4; round++) {
    if (core_opt_fuse(&O) == 0) break;
    core_opt_regroup(&O);
    if (!lint_after(&O, "list fusion")) goto out;
    if (!simplify_to_fixpoint(&O, iters, "simplifier after list fusion")) goto out;
  }
  if (core_opt_worker_wrapper(&O) > 0) {
    core_opt_regroup(&O);
    if (!lint_after(&O, "worker/wrapper")) goto out;
    if (!simplify_to_fixpoint(&O, iters, "simplifier after worker/wrapper")) goto out;
  }
out:
  last_stats = O.st;
  after_counts = count_program(p);
  return p;
}

void core_opt_print_stats(FILE *out) {
  const OptStats *s = &last_stats;
  fprintf(out,
          "optimiser: beta %d, inline global %d local %d once %d, known con %d, case of case %d "
          "(join points %d), case elim %d, let float %d, dead let %d, const fold %d, cast cast %d, "
          "specialised %d, worker/wrapper %d, dead globals %d\n",
          s->beta, s->inline_global, s->inline_local, s->inline_once, s->known_con, s->case_of_case,
          s->join_points, s->case_elim, s->let_float, s->dead_let, s->const_fold, s->cast_cast,
          s->specialised, s->worker_wrapper, s->dead_global);
  fprintf(out,
          "optimiser: Core reachable from main: %ld nodes (%ld applications, %ld cases, %ld lets) "
          "before, %ld nodes (%ld applications, %ld cases, %ld lets) after\n",
          before_counts.nodes, before_counts.apps, before_counts.cases, before_counts.lets,
          after_counts.nodes, after_counts.apps, after_counts.cases, after_counts.lets);
}

/* opt_fuse.c — list fusion without rewrite rules: a consumer that is a right fold,
 * applied to a list made by a recursive producer, becomes one loop that builds no list.
 *
 * The idea (see "List fusion" in docs/notes/core-opt.md): a function
 *
 *     f = \xs -> case xs of { [] -> z; y : ys -> k[y, f ys] }
 *
 * (f a local `let rec` or a global, possibly polymorphic; f occurring in k only as
 * `f ys`, and ys nowhere else) is `foldr (\y r -> k[y, r]) z`. Applied to an argument,
 * f is replaced by pushing it into the argument's result positions: `[]` becomes z,
 * `e : t` becomes k[e, f t], a case or let keeps its scrutinee or bindings and gets f
 * in its body, and a saturated call of a recursive producer `g as` becomes a call of
 * a new local function g' (a copy of g's body with the same treatment, whose calls of
 * g in result positions call g'), anything else is `f e` again. So
 *
 *     and [p x | x <- zip [1 ..] qs]    -- and, the comprehension loop, zip, eftIntGo
 *
 * becomes, over a few rounds with the simplifier between them, a loop over qs that
 * allocates no Bool list and no pairs. This is what GHC gets from foldr/build with
 * rewrite rules, for the functions that are written as recursive loops. The result
 * is equal to the original because f is strict in its argument (it starts with a case
 * on it) and a right fold over `e : t` is k[e, f t]; work is never duplicated: f t is
 * substituted into k only when k uses it at most once on every path and not under a
 * lambda, else it is let-bound (lazily, as the tail was). Sizes and the number of
 * fusions are bounded. A consumer may take more parameters after the list
 * (`f xs a1 .. am`, with calls `f ys e1 .. em` in k: a right fold into functions, like
 * `++`, or the loop of `and (zip ..)` over zip's first list); then `f t` stands for
 * `\b1 .. bm -> (f pushed into t, with the b's)` and the new loops take the a's as
 * extra parameters. LZ_FUSE_TRACE=1 prints every fusion.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt_priv.h"

enum {
  FUSE_MAX_PER_PASS = 60,   /* fusions per pass */
  FUSE_PRODUCER_SIZE = 160, /* bigger producers (string literal decoding...) are not copied */
  FUSE_CONSUMER_SIZE = 400, /* the cons branch k, copied into every cons position */
  FUSE_COPY_BUDGET = 600,   /* nodes of k and z copies per fusion */
  FUSE_SUBST_SIZE = 40,     /* f t substituted into k (else let-bound) up to this size */
};

typedef struct Fuse {
  Opt *O;
  CoreExpr **letrec_rhs; /* by uniq: right-hand sides of the local let recs seen */
  int cap;
  int fusions;
  CoreTyCon *list;
} Fuse;

static void note_rhs(Fuse *F, CoreVar *v, CoreExpr *rhs) {
  if (v->uniq >= F->cap) {
    int nc = F->cap ? F->cap : 1024;
    while (nc <= v->uniq)
      nc *= 2;
    CoreExpr **n = LZ_NEW_ARRAY(CoreExpr *, nc);
    if (F->cap) memcpy(n, F->letrec_rhs, sizeof(CoreExpr *) * (size_t)F->cap);
    F->letrec_rhs = n, F->cap = nc;
  }
  F->letrec_rhs[v->uniq] = rhs;
}

static CoreExpr *rhs_of(Fuse *F, CoreVar *v) {
  if (v->global) {
    OptVarInfo *vi = core_opt_vvi(F->O, v);
    if (!vi->gbind || (vi->flags & VI_NOINLINE)) return NULL;
    return vi->gbind->rhs;
  }
  return v->uniq < F->cap ? F->letrec_rhs[v->uniq] : NULL;
}

/* ---- application spines ----------------------------------------------------------------- */

typedef struct Spine {
  CoreVar *head;
  LZ_VEC(CoreType *) tys; /* type arguments, all before the value arguments */
  LZ_VEC(CoreExpr *) args;
} Spine;

static bool spine_of(CoreExpr *e, Spine *s) {
  memset(s, 0, sizeof *s);
  LZ_VEC(CoreExpr *) nodes = {0};
  CoreExpr *h = e;
  for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
    LZ_PUSH(nodes, h);
  if (h->kind != CE_VAR) return false;
  s->head = h->var;
  for (int i = nodes.len - 1; i >= 0; i--) {
    CoreExpr *n = nodes.data[i];
    if (n->kind == CE_TYAPP) {
      if (s->args.len) return false;
      LZ_PUSH(s->tys, n->type);
    } else {
      LZ_PUSH(s->args, n->arg);
    }
  }
  return true;
}

/* The value lambdas under ntys type lambdas of rhs, instantiated at tys (a clone with
 * fresh binders), or NULL when rhs does not have that shape. */
static CoreExpr *instantiate(Fuse *F, CoreExpr *rhs, int ntys, CoreType **tys) {
  LZ_VEC(CoreTyVar *) tvs = {0};
  CoreExpr *b = rhs;
  while (b->kind == CE_TYLAM) {
    LZ_PUSH(tvs, b->tyvar);
    b = b->body;
  }
  if (tvs.len != ntys || b->kind != CE_LAM) return NULL;
  return core_opt_clone(F->O, b, ntys, tvs.data, tys, 0, NULL, NULL);
}

/* ---- occurrences --------------------------------------------------------------------------- */

/* Counts of variable u in e: total, and the most on one path (lambdas count as many). */
static int count_occ(const CoreExpr *e, int u, bool path) {
  if (!e) return 0;
  switch (e->kind) {
  case CE_VAR: return e->var->uniq == u;
  case CE_LIT: return 0;
  case CE_APP: return count_occ(e->fn, u, path) + count_occ(e->arg, u, path);
  case CE_TYAPP: return count_occ(e->fn, u, path);
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return count_occ(e->body, u, path);
  case CE_LAM: {
    int n = count_occ(e->body, u, path);
    return path && n ? 1000 : n;
  }
  case CE_LET: {
    int n = count_occ(e->body, u, path);
    for (int i = 0; i < e->nbinds; i++)
      n += count_occ(e->binds[i].rhs, u, path) * (path && e->rec ? 1000 : 1);
    return n;
  }
  case CE_CASE: {
    int n = 0;
    for (int i = 0; i < e->nalts; i++) {
      int a = count_occ(e->alts[i].rhs, u, path);
      n = path ? (a > n ? a : n) : n + a;
    }
    return n + count_occ(e->body, u, path);
  }
  case CE_CON:
  case CE_PRIMOP: {
    int n = 0;
    for (int i = 0; i < e->nargs; i++)
      n += count_occ(e->args[i], u, path);
    return n;
  }
  }
  return 0;
}

/* Replace every application `f @.. ys e1 .. em` (the variable ys, then m more value
 * arguments) in e, a fresh clone, by `r e1 .. em`; returns how many were replaced. */
static int replace_calls_m(CoreExpr *e, CoreVar *f, CoreVar *ys, CoreVar *r, int m) {
  if (!e) return 0;
  Spine sp;
  if (e->kind == CE_APP && spine_of(e, &sp) && sp.head == f && sp.args.len == m + 1 &&
      sp.args.data[0]->kind == CE_VAR && sp.args.data[0]->var == ys) {
    CoreExpr *n = core_var(r);
    for (int i = 1; i <= m; i++)
      n = core_app(n, sp.args.data[i]);
    *e = *n;
    return 1;
  }
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: return 0;
  case CE_APP: return replace_calls_m(e->fn, f, ys, r, m) + replace_calls_m(e->arg, f, ys, r, m);
  case CE_TYAPP: return replace_calls_m(e->fn, f, ys, r, m);
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return replace_calls_m(e->body, f, ys, r, m);
  case CE_LET: {
    int n = replace_calls_m(e->body, f, ys, r, m);
    for (int i = 0; i < e->nbinds; i++)
      n += replace_calls_m(e->binds[i].rhs, f, ys, r, m);
    return n;
  }
  case CE_CASE: {
    int n = replace_calls_m(e->body, f, ys, r, m);
    for (int i = 0; i < e->nalts; i++)
      n += replace_calls_m(e->alts[i].rhs, f, ys, r, m);
    return n;
  }
  case CE_CON:
  case CE_PRIMOP: {
    int n = 0;
    for (int i = 0; i < e->nargs; i++)
      n += replace_calls_m(e->args[i], f, ys, r, m);
    return n;
  }
  }
  return 0;
}

/* Replace the occurrences of variable r in e (a fresh clone) by clones of by. */
static void subst_clones(Opt *O, CoreExpr *e, CoreVar *r, CoreExpr *by) {
  if (!e) return;
  switch (e->kind) {
  case CE_VAR:
    if (e->var == r) *e = *core_opt_clone(O, by, 0, NULL, NULL, 0, NULL, NULL);
    return;
  case CE_LIT: return;
  case CE_APP:
    subst_clones(O, e->fn, r, by);
    subst_clones(O, e->arg, r, by);
    return;
  case CE_TYAPP: subst_clones(O, e->fn, r, by); return;
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: subst_clones(O, e->body, r, by); return;
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++)
      subst_clones(O, e->binds[i].rhs, r, by);
    subst_clones(O, e->body, r, by);
    return;
  case CE_CASE:
    subst_clones(O, e->body, r, by);
    for (int i = 0; i < e->nalts; i++)
      subst_clones(O, e->alts[i].rhs, r, by);
    return;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      subst_clones(O, e->args[i], r, by);
    return;
  }
}

/* ---- consumers ------------------------------------------------------------------------------- */

typedef struct Consumer {
  CoreVar *f;
  CoreType **tys; /* f's type arguments at the call */
  int ntys;
  CoreExpr *nil;  /* z (a template: cloned at every use) */
  CoreExpr *cons; /* k[y, r] (a template) */
  CoreVar *y, *r;
  int m;         /* f's value parameters after the list: f xs a1 .. am */
  CoreVar **as;  /* a1 .. am in the templates */
  bool r_linear; /* r occurs at most once on every path of k, not under a lambda */
  CoreType *res;
  int nil_size, cons_size;
  int budget; /* nodes that copies of k and z may still add */
} Consumer;

/* The shape, checked before anything is copied:
 * /\.. -> \xs a1 .. am -> case xs of { 2 alts }, with nargs = 1 + m */
static bool looks_like_consumer(const CoreExpr *rhs, int ntys, int nargs) {
  while (rhs->kind == CE_TYLAM)
    rhs = rhs->body, ntys--;
  if (ntys != 0 || rhs->kind != CE_LAM) return false;
  const CoreVar *xs = rhs->var;
  const CoreExpr *c = rhs->body;
  for (int i = 1; i < nargs; i++, c = c->body)
    if (c->kind != CE_LAM) return false;
  return c->kind == CE_CASE && c->nalts == 2 && c->body->kind == CE_VAR && c->body->var == xs;
}

static bool consumer_of(Fuse *F, Spine *s, Consumer *c) {
  memset(c, 0, sizeof *c);
  if (s->args.len < 1 || s->args.len > 4) return false;
  CoreExpr *rhs = rhs_of(F, s->head);
  if (!rhs || !looks_like_consumer(rhs, s->tys.len, s->args.len)) return false;
  CoreExpr *lam = instantiate(F, rhs, s->tys.len, s->tys.data);
  if (!lam) return false;
  CoreVar *xs = lam->var;
  int m = s->args.len - 1;
  CoreVar **as = LZ_NEW_ARRAY(CoreVar *, m + 1);
  CoreExpr *cs = lam->body;
  for (int i = 0; i < m; i++, cs = cs->body)
    as[i] = cs->var;
  if (cs->kind != CE_CASE) return false;
  if (cs->body->kind != CE_VAR || cs->body->var != xs || cs->nalts != 2) return false;
  CoreAlt *nil = NULL, *cons = NULL;
  for (int i = 0; i < 2; i++) {
    CoreAlt *a = &cs->alts[i];
    if (a->kind == ALT_CON && a->con == F->list->cons[1])
      cons = a;
    else if (a->kind == ALT_DEFAULT || (a->kind == ALT_CON && a->con == F->list->cons[0]))
      nil = a;
  }
  if (!nil || !cons) return false;
  CoreVar *y = cons->vars[0], *ys = cons->vars[1], *f = s->head;
  int bu = cs->var->uniq;
  if (core_opt_mentions(nil->rhs, bu) || core_opt_mentions(cons->rhs, bu) ||
      core_opt_mentions(nil->rhs, xs->uniq) || core_opt_mentions(cons->rhs, xs->uniq) ||
      core_opt_mentions(nil->rhs, f->uniq))
    return false;
  if (core_opt_size(cons->rhs, FUSE_CONSUMER_SIZE + 1) > FUSE_CONSUMER_SIZE) return false;
  int nf = count_occ(cons->rhs, f->uniq, false);
  if (nf == 0 || count_occ(cons->rhs, ys->uniq, false) != nf) return false;
  CoreType *rt = cs->type;
  for (int i = m - 1; i >= 0; i--)
    rt = core_type_fun(as[i]->type, rt);
  c->r = core_opt_fresh_var("r", rt);
  if (replace_calls_m(cons->rhs, f, ys, c->r, m) != nf) return false;
  c->m = m, c->as = as;
  c->f = f, c->tys = s->tys.data, c->ntys = s->tys.len;
  c->nil = nil->rhs, c->cons = cons->rhs, c->y = y, c->res = cs->type;
  c->r_linear = count_occ(c->cons, c->r->uniq, true) <= 1;
  c->nil_size = core_opt_size(c->nil, 1000);
  c->cons_size = core_opt_size(c->cons, 1000);
  c->budget = FUSE_COPY_BUDGET;
  return true;
}

static CoreExpr *consumer_call(Consumer *c, CoreExpr *arg, CoreVar **cur) {
  CoreExpr *h = core_var(c->f);
  for (int i = 0; i < c->ntys; i++)
    h = core_tyapp(h, c->tys[i]);
  h = core_app(h, arg);
  for (int i = 0; i < c->m; i++)
    h = core_app(h, core_var(cur[i]));
  return h;
}

static CoreVar **fresh_like(CoreVar **vs, int n) {
  CoreVar **r = LZ_NEW_ARRAY(CoreVar *, n + 1);
  for (int i = 0; i < n; i++)
    r[i] = core_opt_fresh_var(vs[i]->name, vs[i]->type);
  return r;
}

/* A template instance: clone with y, r, a1..am renamed. */
static CoreExpr *instance(Opt *O, Consumer *c, CoreExpr *tmpl, CoreVar *y, CoreVar *r,
                          CoreVar **cur) {
  int n = 0;
  CoreVar **from = LZ_NEW_ARRAY(CoreVar *, c->m + 2);
  CoreExpr **to = LZ_NEW_ARRAY(CoreExpr *, c->m + 2);
  if (y) from[n] = c->y, to[n++] = core_var(y);
  if (r) from[n] = c->r, to[n++] = core_var(r);
  for (int i = 0; i < c->m; i++)
    from[n] = c->as[i], to[n++] = core_var(cur[i]);
  return core_opt_clone(O, tmpl, 0, NULL, NULL, n, from, to);
}

/* ---- pushing the consumer into a producer -----------------------------------------------------
 */

typedef struct Push {
  Consumer *c;
  CoreVar *self;  /* the producer being copied (its calls become calls of self2) */
  CoreType **tys; /* its type arguments */
  int ntys, arity;
  CoreVar *self2;
  int fused;     /* [] and : replaced, producer calls fused */
  CoreVar **cur; /* the consumer's extra arguments here (variables) */
  int lead;      /* the producer's parameter that self2 takes first */
  bool *drop;    /* by self2's parameter order: static, bound outside self2 instead */
} Push;

/* Clears st[i] unless every use of self in e is a call `self @.. a1 .. an` whose i-th
 * argument is ps[i] itself: the static arguments of a recursive producer, which its
 * fused copy takes from its scope rather than as parameters (filter's predicate, the
 * bound of eftIntGo), so that a later simplification sees what they are. */
static void static_args(CoreExpr *e, const CoreVar *self, CoreVar **ps, int n, bool *st) {
  if (!e) return;
  Spine sp;
  if (e->kind == CE_APP && spine_of(e, &sp) && sp.head == self) {
    for (int i = 0; i < n; i++)
      if (sp.args.len != n || sp.args.data[i]->kind != CE_VAR || sp.args.data[i]->var != ps[i])
        st[i] = false;
    for (int i = 0; i < sp.args.len; i++)
      static_args(sp.args.data[i], self, ps, n, st);
    return;
  }
  switch (e->kind) {
  case CE_VAR:
    if (e->var == self) memset(st, 0, sizeof *st * (size_t)n);
    return;
  case CE_LIT: return;
  case CE_APP:
    static_args(e->fn, self, ps, n, st);
    static_args(e->arg, self, ps, n, st);
    return;
  case CE_TYAPP: static_args(e->fn, self, ps, n, st); return;
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: static_args(e->body, self, ps, n, st); return;
  case CE_LET:
    static_args(e->body, self, ps, n, st);
    for (int i = 0; i < e->nbinds; i++)
      static_args(e->binds[i].rhs, self, ps, n, st);
    return;
  case CE_CASE:
    static_args(e->body, self, ps, n, st);
    for (int i = 0; i < e->nalts; i++)
      static_args(e->alts[i].rhs, self, ps, n, st);
    return;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      static_args(e->args[i], self, ps, n, st);
    return;
  }
}

/* The index of the parameter that body scrutinises at its top (0 when none). */
static int lead_param(CoreVar **ps, int n, const CoreExpr *body) {
  if (body->kind != CE_CASE || body->body->kind != CE_VAR) return 0;
  for (int i = 0; i < n; i++)
    if (ps[i] == body->body->var) return i;
  return 0;
}

/* Moves element i of a pointer array to the front, keeping the others' order. */
static void rotate_to_front(void *arr, int i) {
  void **a = arr;
  void *x = a[i];
  memmove(a + 1, a, sizeof *a * (size_t)i);
  a[0] = x;
}

static CoreExpr *push(Fuse *F, Push *P, CoreExpr *e);

static bool types_equal(CoreType **a, CoreType **b, int n) {
  for (int i = 0; i < n; i++)
    if (!core_type_equal(a[i], b[i])) return false;
  return true;
}

/* f (g @tys as) for a recursive producer g: let rec g' = \ps -> push(body) in g' as */
static CoreExpr *fuse_producer(Fuse *F, Push *outer, Spine *s) {
  CoreExpr *rhs = rhs_of(F, s->head);
  if (!rhs || s->head == outer->c->f || F->fusions >= FUSE_MAX_PER_PASS) return NULL;
  if (core_opt_size(rhs, FUSE_PRODUCER_SIZE + 1) > FUSE_PRODUCER_SIZE) return NULL;
  if (count_occ(rhs, s->head->uniq, false) == 0) return NULL; /* not recursive */
  CoreExpr *lam = instantiate(F, rhs, s->tys.len, s->tys.data);
  if (!lam || core_opt_lam_arity(lam) != s->args.len) return NULL;
  LZ_VEC(CoreVar *) ps = {0};
  CoreExpr *body = lam;
  while (body->kind == CE_LAM) {
    LZ_PUSH(ps, body->var);
    body = body->body;
  }
  /* The new loop takes the parameter the producer's body scrutinises first, so that the
   * loop is itself a consumer of that list and a later round can fuse it with that list's
   * producer (length (filter p [1 .. n]): lenAcc into filter, then that loop into
   * eftIntGo). */
  int lead = lead_param(ps.data, ps.len, body);
  bool *drop = LZ_NEW_ARRAY(bool, ps.len + 1);
  for (int i = 0; i < ps.len; i++)
    drop[i] = i != lead;
  static_args(body, s->head, ps.data, ps.len, drop);
  bool keep = drop[lead];
  memmove(drop + 1, drop, sizeof *drop * (size_t)lead);
  drop[0] = keep;
  rotate_to_front(ps.data, lead);
  Consumer *c = outer->c;
  CoreVar **as = fresh_like(c->as, c->m);
  CoreType *t = c->res;
  for (int i = c->m - 1; i >= 0; i--)
    t = core_type_fun(as[i]->type, t);
  for (int i = ps.len - 1; i >= 0; i--)
    if (!drop[i]) t = core_type_fun(ps.data[i]->type, t);
  Push P = {.c = c,
            .self = s->head,
            .tys = s->tys.data,
            .ntys = s->tys.len,
            .arity = ps.len,
            .self2 = core_opt_fresh_var("$fuse", t),
            .cur = as,
            .lead = lead,
            .drop = drop};
  CoreExpr *nb = push(F, &P, body);
  if (P.fused == 0 || outer->c->budget < 0) return NULL;
  if (getenv("LZ_FUSE_TRACE"))
    fprintf(stderr, "fuse: %s_%d into producer %s_%d\n", outer->c->f->name, outer->c->f->uniq,
            s->head->name, s->head->uniq);
  for (int i = c->m - 1; i >= 0; i--)
    nb = core_lam(as[i], nb);
  for (int i = ps.len - 1; i >= 0; i--)
    if (!drop[i]) nb = core_lam(ps.data[i], nb);
  CoreExpr *call = core_var(P.self2);
  rotate_to_front(s->args.data, lead);
  for (int i = 0; i < s->args.len; i++)
    if (!drop[i]) call = core_app(call, s->args.data[i]);
  for (int i = 0; i < c->m; i++)
    call = core_app(call, core_var(outer->cur[i]));
  CoreExpr *l = core_expr_new(CE_LET, (LzSpan){0});
  l->rec = true;
  l->nbinds = 1;
  l->binds = LZ_NEW(CoreBind);
  l->binds[0].var = P.self2;
  l->binds[0].rhs = nb;
  l->body = call;
  for (int i = ps.len - 1; i >= 0; i--) {
    if (!drop[i]) continue;
    CoreVar *v = ps.data[i];
    CoreExpr *a = s->args.data[i];
    l = core_type_unlifted(v->type) ? core_opt_mk_case_default(a, v, c->res, l)
                                    : core_opt_mk_let(v, a, l);
  }
  F->fusions++;
  F->O->ticks++;
  return l;
}

/* k[x, tail] for a cons cell `x : tail` in a result position */
static CoreExpr *push_cons(Fuse *F, Push *P, CoreExpr *x, CoreExpr *tail) {
  Consumer *c = P->c;
  c->budget -= c->cons_size;
  CoreExpr *t;
  if (c->m == 0) {
    t = push(F, P, tail);
  } else { /* r = \b1 .. bm -> push(tail) with the b's as the extra arguments */
    CoreVar **save = P->cur, **bs = fresh_like(c->as, c->m);
    P->cur = bs;
    t = push(F, P, tail);
    P->cur = save;
    for (int i = c->m - 1; i >= 0; i--)
      t = core_lam(bs[i], t);
  }
  CoreVar *y = core_opt_fresh_var("y", c->y->type);
  CoreVar *r = core_opt_fresh_var("r", c->r->type);
  CoreExpr *k = instance(F->O, c, c->cons, y, r, P->cur);
  if (c->r_linear && core_opt_size(t, FUSE_SUBST_SIZE + 1) <= FUSE_SUBST_SIZE)
    subst_clones(F->O, k, r, t);
  else
    k = core_opt_mk_let(r, t, k);
  P->fused++;
  return core_opt_mk_let(y, x, k);
}

static CoreExpr *push(Fuse *F, Push *P, CoreExpr *e) {
  switch (e->kind) {
  case CE_CON:
    if (e->con == F->list->cons[0]) {
      P->fused++;
      P->c->budget -= P->c->nil_size;
      return instance(F->O, P->c, P->c->nil, NULL, NULL, P->cur);
    }
    if (e->con == F->list->cons[1]) return push_cons(F, P, e->args[0], e->args[1]);
    break;
  case CE_CASE: {
    CoreExpr *n = LZ_NEW(CoreExpr);
    *n = *e;
    n->type = P->c->res;
    n->alts = LZ_NEW_ARRAY(CoreAlt, e->nalts);
    for (int i = 0; i < e->nalts; i++) {
      n->alts[i] = e->alts[i];
      n->alts[i].rhs = push(F, P, e->alts[i].rhs);
    }
    return n;
  }
  case CE_LET: {
    if (e->rec)
      for (int i = 0; i < e->nbinds; i++)
        note_rhs(F, e->binds[i].var, e->binds[i].rhs);
    CoreExpr *n = LZ_NEW(CoreExpr);
    *n = *e;
    n->body = push(F, P, e->body);
    return n;
  }
  case CE_APP: {
    Spine s;
    if (!spine_of(e, &s)) break;
    if (P->self && s.head == P->self && s.args.len == P->arity && s.tys.len == P->ntys &&
        types_equal(s.tys.data, P->tys, P->ntys)) {
      CoreExpr *call = core_var(P->self2);
      rotate_to_front(s.args.data, P->lead);
      for (int i = 0; i < s.args.len; i++)
        if (!P->drop[i]) call = core_app(call, s.args.data[i]);
      for (int i = 0; i < P->c->m; i++)
        call = core_app(call, core_var(P->cur[i]));
      P->fused++;
      return call;
    }
    if (!P->self) {
      CoreExpr *r = fuse_producer(F, P, &s);
      if (r) {
        P->fused++;
        return r;
      }
    }
    break;
  }
  default: break;
  }
  return consumer_call(P->c, e, P->cur);
}

/* ---- the walk
 * ------------------------------------------------------------------------------------ */

static CoreExpr *walk(Fuse *F, CoreExpr *e);

static CoreExpr *try_fuse(Fuse *F, CoreExpr *e) {
  Spine s;
  if (F->fusions >= FUSE_MAX_PER_PASS || !spine_of(e, &s) || s.args.len < 1) return NULL;
  CoreExpr *arg = s.args.data[0];
  if (arg->kind == CE_VAR || arg->kind == CE_LIT) return NULL;
  Consumer c;
  if (!consumer_of(F, &s, &c)) return NULL;
  /* the extra arguments become variables (let-bound unless they are ones already) */
  CoreVar **cur = fresh_like(c.as, c.m);
  for (int i = 0; i < c.m; i++)
    if (s.args.data[1 + i]->kind == CE_VAR) cur[i] = s.args.data[1 + i]->var;
  Push P = {.c = &c, .cur = cur};
  CoreExpr *r = push(F, &P, arg);
  if (P.fused == 0 || c.budget < 0) return NULL;
  for (int i = c.m - 1; i >= 0; i--)
    if (s.args.data[1 + i]->kind != CE_VAR) r = core_opt_mk_let(cur[i], s.args.data[1 + i], r);
  if (getenv("LZ_FUSE_TRACE"))
    fprintf(stderr, "fuse: %s_%d (size %d)\n", c.f->name, c.f->uniq, core_opt_size(r, 100000));
  F->fusions++;
  F->O->ticks++;
  return r;
}

static CoreExpr *walk(Fuse *F, CoreExpr *e) {
  if (!e) return e;
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: return e;
  case CE_APP: {
    /* the result is not walked again in this pass: a producer whose body applies the
     * same kind of consumer to itself would be fused without end */
    CoreExpr *r = try_fuse(F, e);
    if (r) return r;
    e->fn = walk(F, e->fn);
    e->arg = walk(F, e->arg);
    return e;
  }
  case CE_TYAPP: e->fn = walk(F, e->fn); return e;
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: e->body = walk(F, e->body); return e;
  case CE_LET:
    if (e->rec)
      for (int i = 0; i < e->nbinds; i++)
        note_rhs(F, e->binds[i].var, e->binds[i].rhs);
    for (int i = 0; i < e->nbinds; i++) {
      e->binds[i].rhs = walk(F, e->binds[i].rhs);
      if (e->rec) note_rhs(F, e->binds[i].var, e->binds[i].rhs);
    }
    e->body = walk(F, e->body);
    return e;
  case CE_CASE:
    e->body = walk(F, e->body);
    for (int i = 0; i < e->nalts; i++)
      e->alts[i].rhs = walk(F, e->alts[i].rhs);
    return e;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      e->args[i] = walk(F, e->args[i]);
    return e;
  }
  return e;
}

int core_opt_fuse(Opt *O) {
  Fuse F = {0};
  F.O = O;
  F.list = core_list_tycon();
  core_opt_index_globals(O);
  CoreProgram *p = O->p;
  for (int g = 0; g < p->groups.len; g++) {
    CoreBindGroup *grp = &p->groups.data[g];
    for (int i = 0; i < grp->nbinds; i++) {
      if (core_opt_vvi(O, grp->binds[i].var)->flags & VI_NOINLINE) continue;
      grp->binds[i].rhs = walk(&F, grp->binds[i].rhs);
    }
  }
  return F.fusions;
}

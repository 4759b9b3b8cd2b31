/* strictness.c — a first-order backwards strictness analysis, a constructed-product-
 * result (CPR) analysis, and the worker/wrapper split they justify, for top-level and
 * local recursive functions.
 *
 * The idea (GHC's, much simplified): the *demand* of an expression is the set of
 * variables that are certainly evaluated whenever the expression is evaluated to weak
 * head normal form, or "bottom" when it certainly diverges (raiseError#, a call of a
 * diverging function). A case demands its scrutinee and what all its alternatives
 * demand; a saturated call demands the arguments in the callee's strict positions; a
 * lambda, a constructor's lazy fields and a let's right-hand side demand nothing
 * (unless the let-bound variable is itself demanded). A function is strict in the
 * parameters its body demands; recursive groups are solved by iteration from "strict
 * in everything and diverging" downwards. A function that is strict in a parameter of
 * a type like Int (one constructor, one unlifted field) gets a worker taking the Int#
 * and a wrapper that evaluates and unboxes the argument and calls the worker; a
 * function that always returns a freshly built I# (or diverges) also returns the
 * unboxed value from its worker (CPR). The wrapper is always inlined, so callers and
 * the recursive calls inside the worker pass and receive unboxed values, and
 * case-of-known-constructor removes the boxes. Evaluating a strict argument early is
 * what GHC does too: the function would have evaluated it anyway, or diverged. See
 * Note [Core optimiser] (docs/notes/core-opt.md).
 */
#include <string.h>

#include "opt_priv.h"

enum { MAX_PARAMS = 62, MAX_FIX = 10 };

/* ---- demands: sorted sets of uniques, or bottom ------------------------------------------ */

typedef struct Dmd {
  int *v;
  int n;
  bool bot;
} Dmd;

static const Dmd NONE = {NULL, 0, false};
static const Dmd BOT = {NULL, 0, true};

static Dmd d_one(int u) {
  Dmd d = {LZ_NEW_ARRAY(int, 1), 1, false};
  d.v[0] = u;
  return d;
}

static Dmd d_union(Dmd a, Dmd b) {
  if (a.bot || b.bot) return BOT;
  if (!a.n) return b;
  if (!b.n) return a;
  Dmd r = {LZ_NEW_ARRAY(int, a.n + b.n), 0, false};
  int i = 0, j = 0;
  while (i < a.n || j < b.n) {
    if (j >= b.n || (i < a.n && a.v[i] < b.v[j]))
      r.v[r.n++] = a.v[i++];
    else if (i >= a.n || b.v[j] < a.v[i])
      r.v[r.n++] = b.v[j++];
    else
      r.v[r.n++] = a.v[i++], j++;
  }
  return r;
}

static Dmd d_inter(Dmd a, Dmd b) {
  if (a.bot) return b;
  if (b.bot) return a;
  Dmd r = {LZ_NEW_ARRAY(int, (a.n < b.n ? a.n : b.n) + 1), 0, false};
  int i = 0, j = 0;
  while (i < a.n && j < b.n) {
    if (a.v[i] < b.v[j])
      i++;
    else if (b.v[j] < a.v[i])
      j++;
    else
      r.v[r.n++] = a.v[i++], j++;
  }
  return r;
}

static bool d_has(Dmd d, int u) {
  if (d.bot) return true;
  int lo = 0, hi = d.n - 1;
  while (lo <= hi) {
    int m = (lo + hi) / 2;
    if (d.v[m] == u) return true;
    if (d.v[m] < u)
      lo = m + 1;
    else
      hi = m - 1;
  }
  return false;
}

/* ---- functions ------------------------------------------------------------------------------ */

/* f = /\a.. -> \x1 .. xn -> body, with the type lambdas first and no casts in between. */
typedef struct Fun {
  CoreTyVar **tvs;
  int ntv;
  CoreVar **ps;
  int np;
  CoreExpr *body;
} Fun;

static bool split_fun(CoreExpr *e, Fun *f) {
  memset(f, 0, sizeof *f);
  CoreExpr *x = e;
  while (x->kind == CE_TYLAM)
    f->ntv++, x = x->body;
  while (x->kind == CE_LAM)
    f->np++, x = x->body;
  if (f->np == 0 || f->np > MAX_PARAMS) return false;
  f->tvs = LZ_NEW_ARRAY(CoreTyVar *, f->ntv + 1);
  f->ps = LZ_NEW_ARRAY(CoreVar *, f->np);
  x = e;
  for (int i = 0; i < f->ntv; i++, x = x->body)
    f->tvs[i] = x->tyvar;
  for (int i = 0; i < f->np; i++, x = x->body)
    f->ps[i] = x->var;
  f->body = x;
  return true;
}

typedef struct Ana {
  Opt *O;
  int depth;
} Ana;

static void analyse_group(Ana *A, CoreBind *bs, int n);

static Dmd dmd(Ana *A, CoreExpr *e);

static Dmd dmd_app(Ana *A, CoreExpr *e) {
  int n = 0;
  CoreExpr *h = e;
  for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
    n += h->kind == CE_APP;
  if (h->kind != CE_VAR) return dmd(A, h);
  OptVarInfo *hi = core_opt_vvi(A->O, h->var);
  Dmd d = h->var->global ? NONE : d_one(h->var->uniq);
  if (hi->arity <= 0 || n < hi->arity) return d;
  if (hi->flags & VI_BOTTOM) return BOT;
  /* the arguments in strict positions (value arguments, counted from the left) */
  CoreExpr **args = LZ_NEW_ARRAY(CoreExpr *, n);
  int i = n;
  for (CoreExpr *x = e; x != h; x = x->fn)
    if (x->kind == CE_APP) args[--i] = x->arg;
  for (int k = 0; k < hi->arity && k < 64; k++)
    if (hi->strict_sig & (1ull << k)) d = d_union(d, dmd(A, args[k]));
  return d;
}

static Dmd dmd(Ana *A, CoreExpr *e) {
  if (!e || A->depth > CORE_MAX_DEPTH) return NONE;
  A->depth++;
  Dmd r = NONE;
  switch (e->kind) {
  case CE_VAR:
    if (!e->var->global) {
      r = d_one(e->var->uniq);
      OptVarInfo *vi = core_opt_vvi(A->O, e->var);
      if (vi->arity == -1) r = d_union(r, *(Dmd *)vi->unfold_dmd);
    }
    break;
  case CE_LIT:
  case CE_LAM: break;
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: r = dmd(A, e->body); break;
  case CE_APP:
  case CE_TYAPP: r = dmd_app(A, e); break;
  case CE_PRIMOP:
    if (e->primop == P_RAISE_ERROR) {
      r = BOT;
      break;
    }
    for (int i = 0; i < e->nargs; i++)
      r = d_union(r, dmd(A, e->args[i]));
    break;
  case CE_CON:
    for (int i = 0; i < e->nargs; i++)
      if (e->con->strict && e->con->strict[i]) r = d_union(r, dmd(A, e->args[i]));
    break;
  case CE_CASE: {
    Dmd s = dmd(A, e->body);
    Dmd alts = BOT;
    for (int i = 0; i < e->nalts; i++)
      alts = d_inter(alts, dmd(A, e->alts[i].rhs));
    r = d_union(s, alts);
    break;
  }
  case CE_LET:
    if (e->rec) {
      analyse_group(A, e->binds, e->nbinds);
      r = dmd(A, e->body);
    } else {
      CoreVar *x = e->binds[0].var;
      Dmd dr = dmd(A, e->binds[0].rhs);
      if (core_type_unlifted(x->type)) {
        r = d_union(dr, dmd(A, e->body));
      } else {
        OptVarInfo *xi = core_opt_vvi(A->O, x);
        Dmd *saved = LZ_NEW(Dmd);
        *saved = dr;
        xi->unfold_dmd = saved;
        xi->arity = core_opt_is_value(e->binds[0].rhs) ? 0 : -1;
        r = dmd(A, e->body);
        xi->arity = 0;
      }
    }
    break;
  }
  A->depth--;
  return r;
}

/* ---- CPR ------------------------------------------------------------------------------------- */

/* The constructor of a type with one constructor of one unlifted field (Int, Double,
 * Char), with the type's arguments; NULL otherwise. */
static CoreDataCon *box_con(const CoreType *t, CoreType ***args, int *nargs) {
  const CoreTyCon *tc = core_type_split_con(t, args, nargs);
  if (!tc || tc->sort != TC_DATA || tc->is_class || tc->ncons != 1 || *nargs != tc->arity)
    return NULL;
  CoreDataCon *c = tc->cons[0];
  if (c->arity != 1) return NULL;
  CoreType *ft = core_con_field_type(c, 0, *args);
  return ft && core_type_unlifted(ft) ? c : NULL;
}

enum { CPR_NO, CPR_YES, CPR_BOT };

/* Does e always return constructor c freshly built (CPR_YES), or diverge? A strict
 * parameter of f that the worker receives unboxed counts as freshly built. */
static int cpr(Ana *A, CoreExpr *e, CoreDataCon *c, int depth, Fun *f, uint64_t sig) {
  for (; e && depth < 1000; depth++) {
    switch (e->kind) {
    case CE_CON: return e->con == c ? CPR_YES : CPR_NO;
    case CE_VAR:
      for (int i = 0; i < f->np && i < 64; i++)
        if (f->ps[i] == e->var && (sig & (1ull << i))) {
          CoreType **args;
          int na;
          return box_con(e->var->type, &args, &na) == c ? CPR_YES : CPR_NO;
        }
      return CPR_NO;
    case CE_LET:
    case CE_SCC: e = e->body; continue;
    case CE_CASE: {
      int res = CPR_BOT;
      for (int i = 0; i < e->nalts; i++) {
        int k = cpr(A, e->alts[i].rhs, c, depth + 1, f, sig);
        if (k == CPR_NO) return CPR_NO;
        if (k == CPR_YES) res = CPR_YES;
      }
      return res;
    }
    case CE_APP:
    case CE_TYAPP: {
      int n = 0;
      CoreExpr *h = e;
      for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
        n += h->kind == CE_APP;
      if (h->kind != CE_VAR) return CPR_NO;
      OptVarInfo *hi = core_opt_vvi(A->O, h->var);
      if (hi->arity > 0 && n >= hi->arity && (hi->flags & VI_BOTTOM)) return CPR_BOT;
      /* a call of a function of the group being analysed that is assumed CPR */
      if (hi->arity > 0 && n == hi->arity && hi->mark == 2) return CPR_BOT;
      return CPR_NO;
    }
    case CE_PRIMOP: return e->primop == P_RAISE_ERROR ? CPR_BOT : CPR_NO;
    default: return CPR_NO;
    }
  }
  return CPR_NO;
}

/* ---- analysing a group of (possibly recursive) function bindings --------------------------- */

static void analyse_group(Ana *A, CoreBind *bs, int n) {
  Opt *O = A->O;
  Fun *fs = LZ_NEW_ARRAY(Fun, n);
  bool *isfun = LZ_NEW_ARRAY(bool, n);
  for (int i = 0; i < n; i++) {
    OptVarInfo *vi = core_opt_vvi(O, bs[i].var);
    isfun[i] = split_fun(bs[i].rhs, &fs[i]);
    vi->flags &= ~(unsigned)VI_BOTTOM;
    vi->arity = isfun[i] ? fs[i].np : 0;
    vi->strict_sig = isfun[i] ? ~0ull : 0;
    if (isfun[i]) vi->flags |= VI_BOTTOM;
  }
  bool changed = true;
  int it;
  for (it = 0; changed && it < MAX_FIX; it++) {
    changed = false;
    for (int i = 0; i < n; i++) {
      if (!isfun[i]) {
        dmd(A, bs[i].rhs); /* for the functions nested inside */
        continue;
      }
      OptVarInfo *vi = core_opt_vvi(O, bs[i].var);
      Dmd d = dmd(A, fs[i].body);
      uint64_t sig = 0;
      for (int k = 0; k < fs[i].np; k++)
        if (d_has(d, fs[i].ps[k]->uniq) && !core_type_unlifted(fs[i].ps[k]->type)) sig |= 1ull << k;
      bool bot = d.bot;
      if (sig != vi->strict_sig || bot != !!(vi->flags & VI_BOTTOM)) {
        changed = true;
        vi->strict_sig = sig;
        if (bot)
          vi->flags |= VI_BOTTOM;
        else
          vi->flags &= ~(unsigned)VI_BOTTOM;
      }
    }
  }
  if (changed) /* no fixpoint within the budget: assume nothing */
    for (int i = 0; i < n; i++) {
      OptVarInfo *vi = core_opt_vvi(O, bs[i].var);
      vi->strict_sig = 0;
      vi->flags &= ~(unsigned)VI_BOTTOM;
    }
}

/* CPR of a group: start from "all functions with a boxable result are CPR" (mark 2) and
 * drop those that fail until nothing changes. Returns the result constructor per
 * binding (NULL = no CPR). */
static CoreDataCon **cpr_group(Ana *A, CoreBind *bs, int n, Fun *fs, bool *isfun) {
  Opt *O = A->O;
  CoreDataCon **res = LZ_NEW_ARRAY(CoreDataCon *, n);
  for (int i = 0; i < n; i++) {
    CoreType **args;
    int na;
    if (isfun[i]) res[i] = box_con(core_expr_type(fs[i].body), &args, &na);
    core_opt_vvi(O, bs[i].var)->mark = res[i] ? 2 : 0;
  }
  bool changed = true;
  for (int it = 0; changed && it < MAX_FIX; it++) {
    changed = false;
    for (int i = 0; i < n; i++)
      if (res[i] && cpr(A, fs[i].body, res[i], 0, &fs[i], core_opt_vvi(O, bs[i].var)->strict_sig) !=
                        CPR_YES) {
        res[i] = NULL;
        core_opt_vvi(O, bs[i].var)->mark = 0;
        changed = true;
      }
  }
  for (int i = 0; i < n; i++)
    core_opt_vvi(O, bs[i].var)->mark = 0;
  if (changed)
    for (int i = 0; i < n; i++)
      res[i] = NULL;
  return res;
}

/* ---- the split ------------------------------------------------------------------------------ */

typedef LZ_VEC(CoreBind) BindVec;

static CoreType *subst_ty(CoreType *t, Fun *f, CoreType **ntys) {
  return f->ntv ? core_type_subst(t, f->ntv, f->tvs, ntys) : t;
}

/* Split binding b (already analysed) into worker and wrapper, pushing both to out;
 * false if there is nothing to gain. */
static bool split(Ana *A, CoreBind *b, Fun *f, CoreDataCon *rcon, uint64_t evaluated,
                  BindVec *out) {
  Opt *O = A->O;
  OptVarInfo *vi = core_opt_vvi(O, b->var);
  if (vi->flags & (VI_WRAPPER | VI_NOINLINE | VI_BOTTOM)) return false;
  if (b->var == O->p->main) return false;
  CoreDataCon **pcon = LZ_NEW_ARRAY(CoreDataCon *, f->np);
  CoreType ***pargs = LZ_NEW_ARRAY(CoreType **, f->np);
  int *pnargs = LZ_NEW_ARRAY(int, f->np);
  int nunbox = 0;
  for (int i = 0; i < f->np; i++)
    if ((vi->strict_sig | evaluated) & (1ull << i)) {
      pcon[i] = box_con(f->ps[i]->type, &pargs[i], &pnargs[i]);
      if (pcon[i]) nunbox++;
    }
  if (!nunbox && !rcon) return false;
  CoreType *rtype = core_expr_type(f->body);
  CoreType **rargs = NULL;
  int nrargs = 0;
  if (rcon && box_con(rtype, &rargs, &nrargs) != rcon) return false;
  CoreType *rfield = rcon ? core_con_field_type(rcon, 0, rargs) : NULL;

  /* worker: /\tvs -> \ps' -> let x = C y in .. [case body of { C z -> z }] */
  CoreVar **wps = LZ_NEW_ARRAY(CoreVar *, f->np);
  CoreExpr *wbody = f->body;
  if (rcon) {
    CoreVar *z = core_opt_fresh_var("ww", rfield);
    CoreAlt *alt = LZ_NEW(CoreAlt);
    alt->kind = ALT_CON;
    alt->con = rcon;
    alt->vars = LZ_NEW_ARRAY(CoreVar *, 1);
    alt->vars[0] = z;
    alt->rhs = core_var(z);
    wbody = core_opt_mk_case(wbody, core_opt_fresh_var("wild", rtype), rfield, 1, alt);
  }
  for (int i = f->np - 1; i >= 0; i--) {
    if (!pcon[i]) {
      wps[i] = f->ps[i];
      continue;
    }
    CoreType *ft = core_con_field_type(pcon[i], 0, pargs[i]);
    wps[i] = core_var_new(f->ps[i]->name, ft, f->ps[i]->span);
    CoreExpr *c = core_expr_new(CE_CON, f->ps[i]->span);
    c->con = pcon[i];
    c->tyargs = pargs[i];
    c->ntyargs = pnargs[i];
    c->nargs = 1;
    c->args = LZ_NEW_ARRAY(CoreExpr *, 1);
    c->args[0] = core_var(wps[i]);
    wbody = core_opt_mk_let(f->ps[i], c, wbody);
  }
  CoreExpr *wrhs = wbody;
  CoreType *wtype = rcon ? rfield : rtype;
  for (int i = f->np - 1; i >= 0; i--) {
    wrhs = core_lam(wps[i], wrhs);
    wtype = core_type_fun(wps[i]->type, wtype);
  }
  for (int i = f->ntv - 1; i >= 0; i--) {
    wrhs = core_tylam(f->tvs[i], wrhs);
    wtype = core_type_forall(f->tvs[i], wtype);
  }
  CoreVar *w = core_var_new(lz_sym(lz_fmt("$w%s", b->var->name)), wtype, b->var->span);
  w->global = b->var->global;
  w->module = b->var->module;

  /* wrapper: /\tvs' -> \xs' -> case x' of { C y' -> .. [case $w .. of r -> C r] } */
  CoreType **ntys = LZ_NEW_ARRAY(CoreType *, f->ntv + 1);
  CoreTyVar **ntvs = LZ_NEW_ARRAY(CoreTyVar *, f->ntv + 1);
  for (int i = 0; i < f->ntv; i++) {
    ntvs[i] = core_tyvar_new(f->tvs[i]->name, f->tvs[i]->kind);
    ntys[i] = core_type_var(ntvs[i]);
  }
  CoreVar **xs = LZ_NEW_ARRAY(CoreVar *, f->np);
  CoreVar **ys = LZ_NEW_ARRAY(CoreVar *, f->np);
  for (int i = 0; i < f->np; i++) {
    xs[i] = core_var_new(f->ps[i]->name, subst_ty(f->ps[i]->type, f, ntys), f->ps[i]->span);
    if (pcon[i])
      ys[i] = core_var_new(wps[i]->name, subst_ty(wps[i]->type, f, ntys), f->ps[i]->span);
  }
  CoreExpr *call = core_var(w);
  for (int i = 0; i < f->ntv; i++)
    call = core_tyapp(call, ntys[i]);
  for (int i = 0; i < f->np; i++)
    call = core_app(call, core_var(pcon[i] ? ys[i] : xs[i]));
  CoreType *wrtype = subst_ty(rtype, f, ntys);
  if (rcon) {
    CoreType *rf = subst_ty(rfield, f, ntys);
    CoreVar *r = core_opt_fresh_var("ww", rf);
    CoreExpr *c = core_expr_new(CE_CON, b->var->span);
    c->con = rcon;
    c->ntyargs = nrargs;
    c->tyargs = LZ_NEW_ARRAY(CoreType *, nrargs + 1);
    for (int k = 0; k < nrargs; k++)
      c->tyargs[k] = subst_ty(rargs[k], f, ntys);
    c->nargs = 1;
    c->args = LZ_NEW_ARRAY(CoreExpr *, 1);
    c->args[0] = core_var(r);
    call = core_opt_mk_case_default(call, r, wrtype, c);
  }
  for (int i = f->np - 1; i >= 0; i--) {
    if (!pcon[i]) continue;
    CoreAlt *alt = LZ_NEW(CoreAlt);
    alt->kind = ALT_CON;
    alt->con = pcon[i];
    alt->vars = LZ_NEW_ARRAY(CoreVar *, 1);
    alt->vars[0] = ys[i];
    alt->rhs = call;
    call = core_opt_mk_case(core_var(xs[i]), core_opt_fresh_var("ww", xs[i]->type), wrtype, 1, alt);
  }
  CoreExpr *wrapper = call;
  for (int i = f->np - 1; i >= 0; i--)
    wrapper = core_lam(xs[i], wrapper);
  for (int i = f->ntv - 1; i >= 0; i--)
    wrapper = core_tylam(ntvs[i], wrapper);

  vi->flags |= VI_WRAPPER;
  CoreBind wb = {w, wrhs};
  CoreBind fb = {b->var, wrapper};
  LZ_PUSH(*out, wb);
  LZ_PUSH(*out, fb);
  O->st.worker_wrapper++;
  return true;
}

/* Analyse and split a group of bindings; returns the new bindings (or NULL when
 * nothing was split). */
/* ---- arguments evaluated at every call ---------------------------------------------------- */

/* A local recursive group is called only where it is in scope, so all its calls are
 * known: a parameter that every call passes a value for (a constructor application, a
 * literal, a variable the simplifier knows to be evaluated) may be unboxed although the
 * function is not strict in it — `safe q d [] = True; safe q d (x : xs) = .. safe q
 * (d + 1) xs` passes a fresh I# box on every iteration otherwise. Evaluating a value in
 * the wrapper does no work and cannot diverge. */
typedef struct Calls {
  Opt *O;
  CoreBind *bs;
  Fun *fs;
  bool *isfun;
  uint64_t *mask; /* per binding: parameters evaluated at every call so far */
  int n;
} Calls;

static int group_member(Calls *C, const CoreVar *v) {
  for (int i = 0; i < C->n; i++)
    if (C->bs[i].var == v) return i;
  return -1;
}

static bool evaluated_arg(Opt *O, const CoreExpr *a) {
  if (a->kind == CE_CON) return true;
  if (a->kind == CE_LIT) return a->lit.kind != CL_INTEGER && a->lit.kind != CL_STRING;
  return a->kind == CE_VAR && core_opt_is_evaluated(O, a);
}

static void scan_calls(Calls *C, CoreExpr *e, int depth) {
  if (!e || depth > CORE_MAX_DEPTH) return;
  depth++;
  switch (e->kind) {
  case CE_VAR: {
    int k = group_member(C, e->var);
    if (k >= 0) C->mask[k] = 0; /* not called: passed or stored */
    return;
  }
  case CE_LIT: return;
  case CE_APP: {
    CoreExpr *args[MAX_PARAMS];
    int n = 0;
    CoreExpr *h = e;
    for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
      n += h->kind == CE_APP;
    int k = h->kind == CE_VAR ? group_member(C, h->var) : -1;
    if (n > MAX_PARAMS) { /* (no such function is split: split_fun) walk it node by node */
      if (k >= 0) C->mask[k] = 0;
      scan_calls(C, e->fn, depth);
      scan_calls(C, e->arg, depth);
      return;
    }
    n = 0;
    for (CoreExpr *x = e; x != h; x = x->fn)
      if (x->kind == CE_APP) args[n++] = x->arg;
    if (k >= 0 && C->isfun[k] && n >= C->fs[k].np) {
      /* args[] is right to left: parameter i is args[n - 1 - i] */
      for (int i = 0; i < C->fs[k].np; i++)
        if (!evaluated_arg(C->O, args[n - 1 - i])) C->mask[k] &= ~(1ull << i);
    } else {
      scan_calls(C, h, depth);
    }
    for (int i = 0; i < n; i++)
      scan_calls(C, args[i], depth);
    return;
  }
  case CE_TYAPP: scan_calls(C, e->fn, depth); return;
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: scan_calls(C, e->body, depth); return;
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++)
      scan_calls(C, e->binds[i].rhs, depth);
    scan_calls(C, e->body, depth);
    return;
  case CE_CASE:
    scan_calls(C, e->body, depth);
    for (int i = 0; i < e->nalts; i++)
      scan_calls(C, e->alts[i].rhs, depth);
    return;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      scan_calls(C, e->args[i], depth);
    return;
  }
}

/* The per-binding masks of parameters evaluated at every call of a local group whose
 * scope is the group's right-hand sides and body. */
static uint64_t *evaluated_params(Ana *A, CoreBind *bs, int n, Fun *fs, bool *isfun,
                                  CoreExpr *body) {
  Calls C = {A->O, bs, fs, isfun, LZ_NEW_ARRAY(uint64_t, n), n};
  for (int i = 0; i < n; i++)
    C.mask[i] = isfun[i] ? ~0ull : 0;
  for (int i = 0; i < n; i++)
    scan_calls(&C, bs[i].rhs, 0);
  scan_calls(&C, body, 0);
  return C.mask;
}

/* Analyse and split a group of bindings; returns the new bindings (or NULL when
 * nothing was split). local_body: the let's body for a local group (NULL: top level). */
static CoreBind *ww_group(Ana *A, CoreBind *bs, int n, CoreExpr *local_body, int *nout) {
  analyse_group(A, bs, n);
  Fun *fs = LZ_NEW_ARRAY(Fun, n);
  bool *isfun = LZ_NEW_ARRAY(bool, n);
  for (int i = 0; i < n; i++)
    isfun[i] = split_fun(bs[i].rhs, &fs[i]);
  CoreDataCon **rc = cpr_group(A, bs, n, fs, isfun);
  uint64_t *evaluated =
      local_body ? evaluated_params(A, bs, n, fs, isfun, local_body) : LZ_NEW_ARRAY(uint64_t, n);
  BindVec out = {0};
  bool any = false;
  for (int i = 0; i < n; i++) {
    if (isfun[i] && split(A, &bs[i], &fs[i], rc[i], evaluated[i], &out))
      any = true;
    else
      LZ_PUSH(out, bs[i]);
  }
  *nout = out.len;
  return any ? out.data : NULL;
}

/* Walk an expression, splitting the local recursive functions (let rec). */
static void ww_expr(Ana *A, CoreExpr *e, int depth) {
  while (e && depth < CORE_MAX_DEPTH) {
    depth++;
    switch (e->kind) {
    case CE_VAR:
    case CE_LIT: return;
    case CE_APP:
      ww_expr(A, e->arg, depth);
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++)
        ww_expr(A, e->binds[i].rhs, depth);
      if (e->rec) {
        int n;
        CoreBind *nb = ww_group(A, e->binds, e->nbinds, e->body, &n);
        if (nb) {
          e->binds = nb; /* let nodes are never shared */
          e->nbinds = n;
        }
      }
      e = e->body;
      break;
    case CE_CASE:
      ww_expr(A, e->body, depth);
      for (int i = 0; i < e->nalts; i++)
        ww_expr(A, e->alts[i].rhs, depth);
      return;
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++)
        ww_expr(A, e->args[i], depth);
      return;
    }
  }
}

int core_opt_worker_wrapper(Opt *O) {
  CoreProgram *p = O->p;
  Ana A = {O, 0};
  int before = O->st.worker_wrapper;
  core_opt_index_globals(O);
  for (int g = 0; g < p->groups.len; g++) {
    CoreBindGroup *grp = &p->groups.data[g];
    for (int i = 0; i < grp->nbinds; i++)
      if (!(core_opt_vvi(O, grp->binds[i].var)->flags & VI_NOINLINE))
        ww_expr(&A, grp->binds[i].rhs, 0);
    int n;
    CoreBind *nb = ww_group(&A, grp->binds, grp->nbinds, NULL, &n);
    if (nb) {
      grp->binds = nb;
      grp->nbinds = n;
      grp->rec = true;
    }
  }
  core_opt_index_globals(O);
  return O->st.worker_wrapper - before;
}

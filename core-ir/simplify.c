/* simplify.c — the simplifier, GHC style: one pass over the program that does beta
 * reduction, inlining, let floating and dead-binding elimination, with case
 * expressions handled in simplify_case.c and primop constant folding in
 * simplify_fold.c. The driver (opt.c) runs it to a fixpoint, with a budget.
 *
 * The idea: the walk rewrites *input* expressions into *output* expressions and keeps
 * a substitution in the per-variable table (OptVarInfo.subst): a binder that is
 * eliminated (a trivial or used-once let, a beta-reduced parameter, a case-of-known-
 * constructor field) gets the already simplified expression it stands for, and its
 * occurrences are replaced by that expression. Since binders are unique and never
 * renamed, input and output share one name space; the only duplication is explicit:
 * an inlined unfolding is cloned (fresh binders, type lambdas instantiated by the
 * clone's type substitution) and the clone is simplified again with its parameters
 * substituted. A substituted expression that turns out to be used a second time is
 * cloned too, so binders stay unique whatever the occurrence counts said.
 *
 * What may move where is decided by the occurrence analysis (opt_util.c): an
 * expression is moved to its single use only if that use is not under a lambda (no
 * work duplication) and not inside an scc that does not also enclose the binding
 * (no work moves across a cost centre; see Note [Core optimiser]). Lets float out of
 * a let's right-hand side only when that exposes a value, never out of an scc.
 */
#include <stdlib.h>
#include <string.h>

#include "opt_priv.h"

enum {
  INLINE_SIZE = 30,       /* unfoldings up to this size are inlined at saturated calls */
  INLINE_ARG_BONUS = 6,   /* ... plus this much per value argument */
  INLINE_ONCE_SIZE = 400, /* used-once functions up to this size are always inlined */
  INLINE_TINY = 8,        /* inlined even when not saturated */
  MAX_INLINE_DEPTH = 12,  /* nesting of inlined bodies */
};

CoreExpr *core_opt_simpl_case(Opt *O, CoreExpr *e);
CoreExpr *core_opt_simpl_rebuild_case(Opt *O, CoreExpr *scrut, CoreExpr *e);
void core_opt_set_bind_info(Opt *O, CoreVar *x, CoreExpr *rhs);

static CoreExpr *simpl(Opt *O, CoreExpr *e);

/* ---- substitution -------------------------------------------------------------------------- */

static CoreExpr *copy_node(CoreExpr *e) {
  CoreExpr *n = LZ_NEW(CoreExpr);
  *n = *e;
  return n;
}

static CoreExpr *subst_var(Opt *O, CoreExpr *e) {
  OptVarInfo *vi = core_opt_vvi(O, e->var);
  if (!vi->subst) return e;
  CoreExpr *s = vi->subst;
  if (s->kind == CE_VAR || (s->kind == CE_LIT && s->lit.kind != CL_STRING)) return copy_node(s);
  if (vi->subst_uses++ == 0) return s;
  return core_opt_clone(O, s, 0, NULL, NULL, 0, NULL, NULL);
}

/* x := e. A variable substituted for x gains x's occurrences, so that the counts stay
 * upper bounds (a binder with no counted use may be dropped). */
void core_opt_set_subst(Opt *O, CoreVar *x, CoreExpr *e) {
  OptVarInfo *xi = core_opt_vvi(O, x);
  xi->subst = e;
  xi->subst_uses = 0;
  const CoreExpr *h = e;
  while (h && (h->kind == CE_TYAPP || h->kind == CE_CAST))
    h = h->kind == CE_TYAPP ? h->fn : h->body;
  if (h && h->kind == CE_VAR && h->var != x) {
    OptVarInfo *hi = core_opt_vvi(O, h->var);
    hi->occ += xi->occ > 0 ? xi->occ : 1;
    hi->flags |= xi->flags & (VI_IN_LAM | VI_IN_SCC);
  }
}

/* Facts about a let-bound variable with simplified rhs: values are evaluated; lambdas
 * and constructor applications are unfoldings (for inlining and case-of-known-con). */
void core_opt_set_bind_info(Opt *O, CoreVar *x, CoreExpr *rhs) {
  OptVarInfo *xi = core_opt_vvi(O, x);
  xi->unfold = NULL;
  xi->flags &= ~(unsigned)VI_EVALUATED;
  const CoreExpr *r = rhs;
  while (r && r->kind == CE_CAST)
    r = r->body;
  if (core_opt_is_value(rhs)) xi->flags |= VI_EVALUATED;
  if (r && (r->kind == CE_CON || core_opt_is_lambda(rhs))) xi->unfold = rhs;
}

/* ---- inlining -------------------------------------------------------------------------------- */

static const CoreExpr *under_lams(const CoreExpr *e) {
  while (e && (e->kind == CE_LAM || e->kind == CE_TYLAM || e->kind == CE_CAST))
    e = e->body;
  return e;
}

static bool library_var(const CoreVar *v) { return v->module && strcmp(v->module, "Main") != 0; }

/* A function argument worth specialising the callee's body on: a lambda, or a (partial
 * application of a) known global function. */
static bool interesting_arg(Opt *O, const CoreExpr *a) {
  while (a && (a->kind == CE_APP || a->kind == CE_TYAPP || a->kind == CE_CAST))
    a = a->kind == CE_CAST ? a->body : a->fn;
  if (!a) return false;
  if (a->kind == CE_LAM) return true;
  if (a->kind != CE_VAR || !a->var->global) return false;
  OptVarInfo *vi = core_opt_vvi(O, a->var);
  return vi->gbind && core_opt_is_lambda(vi->gbind->rhs);
}

/* May a used-once global be inlined whatever its size (up to INLINE_ONCE_SIZE)? Not a standard
 * library global into library code: the library's code must not depend on how often the
 * program uses a function (Note [Precompiled base] in docs/notes/backend.md); into Main's code
 * only when an argument is a function the body can be specialised on (sortBy with compare),
 * not cold code such as `read` at one type, which would make Main's code large. */
static bool once_ok(Opt *O, CoreVar *v, int n, CoreExpr **args) {
  if (getenv("LZC_ONCE_LIB")) return true; /* (experiments: the old rule) */
  if (!v->global || !library_var(v)) return true;
  if (!O->in_main) return false;
  for (int i = 0; i < n; i++)
    if (args[i] && interesting_arg(O, args[i])) return true;
  return false;
}

/* The unfolding to inline for a call of v with nval value arguments, or NULL. */
static CoreExpr *inline_candidate(Opt *O, CoreVar *v, int nval, int n, CoreExpr **args) {
  if (O->deep || O->inline_depth >= MAX_INLINE_DEPTH) return NULL;
  OptVarInfo *vi = core_opt_vvi(O, v);
  CoreExpr *unf;
  if (v->global) {
    if (!vi->gbind || (vi->flags & (VI_LOOP | VI_NOINLINE)) || v == O->p->main) return NULL;
    unf = vi->gbind->rhs;
  } else {
    if ((vi->flags & VI_LETREC) && !(vi->flags & VI_WRAPPER)) return NULL;
    unf = vi->unfold;
  }
  if (!unf) return NULL;
  if (!core_opt_is_lambda(unf)) {
    /* an alias of another variable (f = g @Int): no work is duplicated */
    if (v->global && core_opt_is_trivial(unf) && unf->kind != CE_LIT) return unf;
    return NULL;
  }
  int arity = core_opt_lam_arity(unf);
  if (vi->flags & VI_WRAPPER) return nval >= arity ? unf : NULL;
  int size = core_opt_size(under_lams(unf), INLINE_ONCE_SIZE + 1);
  if (size > O->inline_budget) return NULL;
  if (vi->occ == 1 && size <= INLINE_ONCE_SIZE && nval >= arity && once_ok(O, v, n, args))
    return unf;
  if (size <= INLINE_TINY) return unf;
  if (nval < arity) return NULL;
  return size <= INLINE_SIZE + INLINE_ARG_BONUS * nval ? unf : NULL;
}

/* ---- application
 * --------------------------------------------------------------------------------- */

static CoreType *apply_type(CoreType *t, int n, CoreExpr **args, CoreType **tys) {
  for (int i = 0; i < n && t; i++) {
    if (args[i])
      t = t->kind == CT_FUN ? t->res : NULL;
    else if (t->kind == CT_FORALL)
      t = core_type_subst(t->body, 1, &t->var, &tys[i]);
    else
      t = NULL;
  }
  return t;
}

static CoreExpr *rebuild_app(Opt *O, CoreExpr *hd, int n, CoreExpr **args, CoreType **tys);

/* A binding made by beta reduction that could not be substituted. */
typedef struct PendingBind {
  CoreVar *var;
  CoreExpr *rhs;
  bool strict;
} PendingBind;

static CoreExpr *wrap_binds(Opt *O, PendingBind *bs, int nb, CoreExpr *body) {
  for (int k = nb - 1; k >= 0; k--) {
    if (bs[k].strict)
      body = core_opt_mk_case_default(bs[k].rhs, bs[k].var, core_expr_type(body), body);
    else
      body = core_opt_mk_let(bs[k].var, bs[k].rhs, body);
  }
  (void)O;
  return body;
}

/* (\x.. -> body) args, fun an output expression (a clone or a simplified lambda). */
static CoreExpr *beta(Opt *O, CoreExpr *fun, int n, CoreExpr **args, CoreType **tys) {
  LZ_VEC(PendingBind) pend = {0};
  CoreExpr *f = fun;
  int i = 0;
  while (i < n) {
    if (f->kind == CE_TYLAM && !args[i]) {
      LZ_VEC(CoreTyVar *) tvs = {0};
      LZ_VEC(CoreType *) ts = {0};
      while (i < n && f->kind == CE_TYLAM && !args[i]) {
        LZ_PUSH(tvs, f->tyvar);
        LZ_PUSH(ts, tys[i]);
        f = f->body;
        i++;
      }
      f = core_opt_clone(O, f, tvs.len, tvs.data, ts.data, 0, NULL, NULL);
      O->st.beta++, O->ticks++;
      continue;
    }
    if (f->kind == CE_LAM && args[i]) {
      CoreVar *x = f->var;
      CoreExpr *a = args[i];
      OptVarInfo *xi = core_opt_vvi(O, x);
      bool unl = core_type_unlifted(x->type);
      bool once = xi->occ == 1 && !(xi->flags & (VI_IN_LAM | VI_IN_SCC));
      if (xi->occ == 0 && (!unl || core_opt_ok_for_spec(a))) {
        /* dead parameter: a lazy argument is simply dropped */
      } else if (core_opt_is_trivial(a) || (once && (!unl || core_opt_ok_for_spec(a)))) {
        core_opt_set_subst(O, x, a);
      } else if (xi->occ == 1 && !(xi->flags & VI_IN_SCC) && core_opt_is_lambda(a)) {
        core_opt_set_subst(O, x, a);
      } else {
        PendingBind pb = {x, a, unl};
        LZ_PUSH(pend, pb);
        if (!unl)
          core_opt_set_bind_info(O, x, a);
        else
          core_opt_vvi(O, x)->unfold = a->kind == CE_PRIMOP ? a : NULL;
      }
      f = f->body;
      i++;
      O->st.beta++, O->ticks++;
      continue;
    }
    break;
  }
  CoreExpr *body = simpl(O, f);
  body = rebuild_app(O, body, n - i, args + i, tys + i);
  return wrap_binds(O, pend.data, pend.len, body);
}

static CoreExpr *rebuild_app(Opt *O, CoreExpr *hd, int n, CoreExpr **args, CoreType **tys) {
  int i = 0;
  while (i < n) {
    switch (hd->kind) {
    case CE_VAR: {
      int nval = 0;
      for (int k = i; k < n; k++)
        nval += args[k] != NULL;
      CoreExpr *unf = inline_candidate(O, hd->var, nval, n - i, args + i);
      if (!unf) goto done;
      OptVarInfo *vi = core_opt_vvi(O, hd->var);
      if (hd->var->global)
        O->st.inline_global++;
      else
        O->st.inline_local++;
      O->ticks++;
      O->inline_budget -= core_opt_size(unf, 1000);
      (void)vi;
      CoreExpr *c = core_opt_clone(O, unf, 0, NULL, NULL, 0, NULL, NULL);
      if (!core_opt_is_lambda(c)) { /* alias */
        hd = simpl(O, c);
        continue;
      }
      O->inline_depth++;
      CoreExpr *r = beta(O, c, n - i, args + i, tys + i);
      O->inline_depth--;
      return r;
    }
    case CE_LAM:
    case CE_TYLAM:
      if ((hd->kind == CE_LAM) != (args[i] != NULL)) goto done;
      return beta(O, hd, n - i, args + i, tys + i);
    case CE_LET: {
      /* (let bs in f) args  ==>  let bs in f args */
      CoreExpr *nl = copy_node(hd);
      nl->body = rebuild_app(O, hd->body, n - i, args + i, tys + i);
      O->st.let_float++, O->ticks++;
      return nl;
    }
    case CE_CASE: {
      /* (case s of alts) a  ==>  case s of alts' a, for trivial arguments */
      if (hd->nalts > 4) goto done;
      for (int k = i; k < n; k++)
        if (args[k] && !core_opt_is_trivial(args[k])) goto done;
      CoreType *rt = apply_type(hd->type, n - i, args + i, tys + i);
      if (!rt) goto done;
      CoreExpr *nc = copy_node(hd);
      nc->type = rt;
      nc->alts = LZ_NEW_ARRAY(CoreAlt, hd->nalts);
      for (int a = 0; a < hd->nalts; a++) {
        nc->alts[a] = hd->alts[a];
        CoreExpr **cargs = LZ_NEW_ARRAY(CoreExpr *, n - i);
        for (int k = i; k < n; k++)
          cargs[k - i] = args[k] ? copy_node(args[k]) : NULL;
        nc->alts[a].rhs = rebuild_app(O, hd->alts[a].rhs, n - i, cargs, tys + i);
      }
      O->ticks++;
      return nc;
    }
    default: goto done;
    }
  }
done:
  return core_opt_mk_apps(hd, n - i, args + i, tys + i);
}

static CoreExpr *simpl_app(Opt *O, CoreExpr *e) {
  int n = 0;
  CoreExpr *h = e;
  for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
    n++;
  CoreExpr **args = LZ_NEW_ARRAY(CoreExpr *, n);
  CoreType **tys = LZ_NEW_ARRAY(CoreType *, n);
  int i = n;
  for (CoreExpr *x = e; x != h; x = x->fn) {
    i--;
    if (x->kind == CE_APP)
      args[i] = x->arg;
    else
      tys[i] = x->type;
  }
  for (i = 0; i < n; i++)
    if (args[i]) args[i] = simpl(O, args[i]);
  CoreExpr *hd = h->kind == CE_VAR ? subst_var(O, h) : simpl(O, h);
  return rebuild_app(O, hd, n, args, tys);
}

/* ---- let ----------------------------------------------------------------------------------------
 */

static CoreExpr *simpl_letrec(Opt *O, CoreExpr *e) {
  bool used = false;
  int live = 0;
  for (int i = 0; i < e->nbinds; i++) {
    OptVarInfo *vi = core_opt_vvi(O, e->binds[i].var);
    if (vi->occ > vi->self_occ) used = true;
    if (vi->occ > 0) live++;
  }
  if (!used) {
    O->st.dead_let++, O->ticks++;
    return simpl(O, e->body);
  }
  if (live == 1 && e->nbinds > 1) {
    /* drop the members nobody uses (not even the others) */
  }
  if (e->nbinds == 1 && core_opt_vvi(O, e->binds[0].var)->self_occ == 0) {
    CoreExpr *nl = core_opt_mk_let(e->binds[0].var, e->binds[0].rhs, e->body);
    nl->span = e->span;
    O->ticks++;
    return simpl(O, nl);
  }
  CoreExpr *n = copy_node(e);
  LZ_VEC(CoreBind) bs = {0};
  for (int i = 0; i < e->nbinds; i++) {
    OptVarInfo *vi = core_opt_vvi(O, e->binds[i].var);
    vi->flags |= VI_LETREC;
    if (vi->occ == 0) {
      O->st.dead_let++, O->ticks++;
      continue;
    }
    if (core_opt_is_value(e->binds[i].rhs)) vi->flags |= VI_EVALUATED;
    LZ_PUSH(bs, e->binds[i]);
  }
  /* wrappers first: their unfoldings are inlined into the workers and the body */
  for (int i = 0; i < bs.len; i++)
    if (core_opt_vvi(O, bs.data[i].var)->flags & VI_WRAPPER) {
      bs.data[i].rhs = simpl(O, bs.data[i].rhs);
      core_opt_set_bind_info(O, bs.data[i].var, bs.data[i].rhs);
    }
  for (int i = 0; i < bs.len; i++)
    if (!(core_opt_vvi(O, bs.data[i].var)->flags & VI_WRAPPER))
      bs.data[i].rhs = simpl(O, bs.data[i].rhs);
  n->binds = bs.data;
  n->nbinds = bs.len;
  n->body = simpl(O, e->body);
  return n;
}

/* Peel the lets (lifted, non-strict) off a simplified right-hand side when what is left
 * is a value: let x = (let y = a in C y) in b  ==>  let y = a in let x = C y in b. */
typedef LZ_VEC(CoreExpr *) ExprVec;

static CoreExpr *float_rhs(CoreExpr *r, ExprVec *floats) {
  CoreExpr *x = r;
  int mark = floats->len;
  while (x->kind == CE_LET) {
    if (!x->rec && core_opt_type_unlifted_under_foralls(x->binds[0].var->type)) break;
    LZ_PUSH(*floats, x);
    x = x->body;
  }
  if (floats->len > mark && (core_opt_is_value(x) || core_opt_is_trivial(x))) return x;
  floats->len = mark;
  return r;
}

static CoreExpr *wrap_floats(CoreExpr **fl, int n, CoreExpr *body) {
  for (int k = n - 1; k >= 0; k--) {
    CoreExpr *l = copy_node(fl[k]);
    l->body = body;
    body = l;
  }
  return body;
}

/* let x = C (a +# 1#) ..  ==>  case a +# 1# of v { DEFAULT -> let x = C v .. }: the
 * primop runs where the constructor is built anyway (its arguments are atoms in STG), and
 * with trivial arguments x is an unfolding for case-of-known-constructor (the boxed
 * accumulator of a fused left fold, `case x of I# n -> ..`). Only pure primops that cannot
 * fail (core_opt_ok_for_spec) are moved; their bindings are pushed onto *spec. */
typedef struct SpecBind {
  CoreVar *var;
  CoreExpr *prim;
} SpecBind;
typedef LZ_VEC(SpecBind) SpecVec;

static CoreExpr *atomise_con_args(CoreExpr *r, SpecVec *spec) {
  if (r->kind != CE_CON) return r;
  CoreExpr *n = NULL;
  for (int i = 0; i < r->nargs; i++) {
    CoreExpr *a = r->args[i];
    if (a->kind != CE_PRIMOP || !core_opt_ok_for_spec(a)) continue;
    CoreType *t = core_expr_type(a);
    if (!core_type_unlifted(t)) continue;
    if (!n) {
      n = copy_node(r);
      n->args = LZ_NEW_ARRAY(CoreExpr *, r->nargs);
      memcpy(n->args, r->args, sizeof *n->args * (size_t)r->nargs);
    }
    SpecBind b = {core_opt_fresh_var("a", t), a};
    LZ_PUSH(*spec, b);
    n->args[i] = core_var(b.var);
  }
  return n ? n : r;
}

/* Wraps body in the cases atomise_con_args made (outermost first). */
static CoreExpr *wrap_spec(SpecBind *bs, int n, CoreExpr *body) {
  for (int k = n - 1; k >= 0; k--)
    body = core_opt_mk_case_default(bs[k].prim, bs[k].var, core_expr_type(body), body);
  return body;
}

static bool all_args_trivial(const CoreExpr *c) {
  for (int i = 0; i < c->nargs; i++)
    if (!core_opt_is_trivial(c->args[i])) return false;
  return true;
}

/* A partial application of a known global function to variables, literals and
 * constructors of those: a value, so inlining it under a lambda (where it is then called,
 * usually saturated: `let p = relprime n in .. \x -> p x ..`) repeats no work. */
static bool cheap_pap(Opt *O, const CoreExpr *r) {
  int nargs = 0;
  const CoreExpr *h = r;
  for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn) {
    if (h->kind == CE_TYAPP) continue;
    const CoreExpr *a = h->arg;
    if (!core_opt_is_trivial(a) && !(a->kind == CE_CON && all_args_trivial(a))) return false;
    nargs++;
  }
  if (nargs == 0 || h->kind != CE_VAR || !h->var->global) return false;
  OptVarInfo *vi = core_opt_vvi(O, h->var);
  return vi->gbind && core_opt_lam_arity(vi->gbind->rhs) > nargs;
}

static CoreExpr *simpl_let(Opt *O, CoreExpr *e) {
  if (e->rec) return simpl_letrec(O, e);
  CoreVar *x = e->binds[0].var;
  OptVarInfo *xi = core_opt_vvi(O, x);
  if (core_type_unlifted(x->type)) {
    /* a strict let is a case */
    CoreExpr *c = core_opt_mk_case_default(e->binds[0].rhs, x, core_expr_type(e->body), e->body);
    c->span = e->span;
    return simpl(O, c);
  }
  if (core_opt_type_unlifted_under_foralls(x->type)) {
    /* a generalised strict binding: evaluated here, so it stays here */
    CoreExpr *r = simpl(O, e->binds[0].rhs);
    CoreExpr *res = core_opt_mk_let(x, r, simpl(O, e->body));
    res->span = e->span;
    return res;
  }
  if (xi->occ == 0) {
    O->st.dead_let++, O->ticks++;
    return simpl(O, e->body);
  }
  CoreExpr *r = simpl(O, e->binds[0].rhs);
  ExprVec floats = {0};
  r = float_rhs(r, &floats);
  if (floats.len) O->st.let_float++, O->ticks++;
  SpecVec spec = {0};
  r = atomise_con_args(r, &spec);
  if (spec.len) O->ticks++;
  xi = core_opt_vvi(O, x);
  bool once = xi->occ == 1 && !(xi->flags & (VI_IN_LAM | VI_IN_SCC));
  CoreExpr *res;
  if (core_opt_is_trivial(r) || once ||
      (xi->occ == 1 && !(xi->flags & VI_IN_SCC) && (core_opt_is_lambda(r) || cheap_pap(O, r)))) {
    core_opt_set_subst(O, x, r);
    O->st.inline_once++, O->ticks++;
    res = simpl(O, e->body);
  } else {
    core_opt_set_bind_info(O, x, r);
    CoreExpr *b = simpl(O, e->body);
    res = core_opt_mk_let(x, r, b);
    res->span = e->span;
  }
  return wrap_floats(floats.data, floats.len, wrap_spec(spec.data, spec.len, res));
}

/* ---- other expressions ------------------------------------------------------------------------
 */

static CoreExpr *simpl_cast(Opt *O, CoreExpr *e) {
  CoreExpr *b = simpl(O, e->body);
  /* (x |> co1) |> co2  ==>  x, when the two casts cancel */
  if (b->kind == CE_CAST) {
    CoreType *t = core_expr_type(b->body);
    if (t && core_type_equal(t, e->type)) {
      O->st.cast_cast++, O->ticks++;
      return b->body;
    }
  }
  CoreExpr *n = copy_node(e);
  n->body = b;
  return n;
}

static CoreExpr *simpl_primop(Opt *O, CoreExpr *e) {
  CoreExpr *n = copy_node(e);
  if (e->nargs) {
    n->args = LZ_NEW_ARRAY(CoreExpr *, e->nargs);
    for (int i = 0; i < e->nargs; i++)
      n->args[i] = simpl(O, e->args[i]);
  }
  CoreExpr *f = core_opt_fold_primop(O, n);
  if (f) {
    O->st.const_fold++, O->ticks++;
    return f;
  }
  return n;
}

static CoreExpr *simpl(Opt *O, CoreExpr *e) {
  if (!e) return e;
  O->depth++;
  if (O->depth > 4 * CORE_MAX_DEPTH) O->deep = true;
  CoreExpr *r = e;
  switch (e->kind) {
  case CE_VAR: r = subst_var(O, e); break;
  case CE_LIT: break;
  case CE_APP:
  case CE_TYAPP: r = simpl_app(O, e); break;
  case CE_LAM:
  case CE_TYLAM:
  case CE_SCC:
    r = copy_node(e);
    r->body = simpl(O, e->body);
    break;
  case CE_LET: r = simpl_let(O, e); break;
  case CE_CASE: r = core_opt_simpl_case(O, e); break;
  case CE_CON:
    r = copy_node(e);
    if (e->nargs) {
      r->args = LZ_NEW_ARRAY(CoreExpr *, e->nargs);
      for (int i = 0; i < e->nargs; i++)
        r->args[i] = simpl(O, e->args[i]);
    }
    break;
  case CE_PRIMOP: r = simpl_primop(O, e); break;
  case CE_CAST: r = simpl_cast(O, e); break;
  }
  O->depth--;
  return r;
}

CoreExpr *core_opt_simplify_expr(Opt *O, CoreExpr *e) { return simpl(O, e); }

/* ---- the program --------------------------------------------------------------------------- */

enum { BINDING_BUDGET = 3000 };

int core_opt_simplify_program(Opt *O) {
  CoreProgram *p = O->p;
  O->ticks = 0;
  for (int u = 0; u < O->vi_cap; u++) {
    OptVarInfo *vi = core_opt_vi(O, u);
    vi->subst = NULL;
    vi->unfold = NULL;
    vi->flags &= ~(unsigned)VI_EVALUATED;
  }
  core_opt_index_globals(O);
  core_opt_occ_program(O);
  for (int g = 0; g < p->groups.len; g++) {
    CoreBindGroup *grp = &p->groups.data[g];
    for (int i = 0; i < grp->nbinds; i++) {
      CoreBind *b = &grp->binds[i];
      if (core_opt_vvi(O, b->var)->flags & VI_NOINLINE) continue;
      O->inline_budget = BINDING_BUDGET;
      O->in_main = !library_var(b->var);
      O->inline_depth = 0;
      O->depth = 0;
      O->deep = false;
      b->rhs = simpl(O, b->rhs);
    }
  }
  return O->ticks;
}

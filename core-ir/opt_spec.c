/* opt_spec.c — specialisation of overloaded functions at the dictionaries they are
 * called with: a call `f @Int $fOrdInt xs` of a top-level `f = /\a -> \($d :: Ord a)
 * -> ...` becomes `$sf xs` with `$sf = f's right-hand side @Int $fOrdInt`, which the
 * simplifier then beta-reduces, so that method selections from the now known
 * dictionary become direct calls and inline (`compare` at Int becomes a primitive
 * comparison). One copy is made per (function, type arguments, dictionaries); the
 * recursive calls inside a copy are calls of f at the same arguments again, which the
 * next round maps to the same copy, so the loop is specialised as a whole.
 *
 * The idea: "constant" means closed types and dictionary arguments that are top-level
 * dictionaries, or applications of top-level dictionary functions to constant
 * arguments (`$fOrdList @Int $fOrdInt`); the latter are first given a top-level
 * binding of their own (one per distinct application), so that every constant
 * dictionary is a global variable and specialisations can be keyed by name. The
 * number of copies is bounded (MAX_SPECS per compilation). See Note [Core optimiser]
 * (docs/notes/core-opt.md).
 */
#include <string.h>

#include "opt_priv.h"

enum { MAX_SPECS = 300, MAX_ARGS = 16 };

typedef struct Spec {
  const char *key;
  CoreVar *var;
} Spec;

typedef struct SpecState {
  Opt *O;
  LZ_VEC(Spec) specs; /* also the memo table for floated dictionary applications */
  int made;
} SpecState;

/* The memo table lives across rounds (core_optimise calls core_opt_specialise repeatedly). */
static SpecState *state_for(Opt *O) {
  if (!O->spec_state) {
    SpecState *st = LZ_NEW(SpecState);
    st->O = O;
    O->spec_state = st;
  }
  return O->spec_state;
}

static bool is_dict_type(const CoreType *t) {
  const CoreTyCon *tc = core_type_split_con(t, NULL, NULL);
  return tc && tc->is_class;
}

static bool type_closed(const CoreType *t) {
  while (t) {
    switch (t->kind) {
    case CT_VAR: return false;
    case CT_CON: return true;
    case CT_APP:
      if (!type_closed(t->fn)) return false;
      t = t->arg;
      break;
    case CT_FUN:
      if (!type_closed(t->arg)) return false;
      t = t->res;
      break;
    case CT_FORALL: return false;
    }
  }
  return true;
}

/* ---- constant dictionaries ------------------------------------------------------------------ */

/* A live entry for key (a copy that was since dropped as dead is forgotten). */
static Spec *lookup(SpecState *S, const char *key) {
  for (int i = 0; i < S->specs.len; i++)
    if (strcmp(S->specs.data[i].key, key) == 0) {
      if (core_opt_vvi(S->O, S->specs.data[i].var)->gbind) return &S->specs.data[i];
      S->specs.data[i].key = "";
      return NULL;
    }
  return NULL;
}

static CoreVar *const_dict(SpecState *S, CoreExpr *e, int depth);

/* A key naming a constant dictionary application, or NULL. */
static char *dict_key(SpecState *S, CoreExpr *e, int depth) {
  if (depth > 8) return NULL;
  if (e->kind == CE_VAR) return e->var->global ? lz_fmt("%d", e->var->uniq) : NULL;
  if (e->kind == CE_TYAPP) {
    if (!type_closed(e->type)) return NULL;
    char *f = dict_key(S, e->fn, depth + 1);
    return f ? lz_fmt("%s@%s", f, core_type_to_string(e->type)) : NULL;
  }
  if (e->kind == CE_APP) {
    char *f = dict_key(S, e->fn, depth + 1);
    CoreVar *a = f ? const_dict(S, e->arg, depth + 1) : NULL;
    return a ? lz_fmt("%s(%d)", f, a->uniq) : NULL;
  }
  return NULL;
}

/* The global variable standing for constant dictionary e (made if needed), or NULL. */
static CoreVar *const_dict(SpecState *S, CoreExpr *e, int depth) {
  if (e->kind == CE_VAR) return e->var->global && is_dict_type(e->var->type) ? e->var : NULL;
  CoreType *t = core_expr_type(e);
  if (!t || !is_dict_type(t) || !type_closed(t)) return NULL;
  char *key = dict_key(S, e, depth);
  if (!key) return NULL;
  key = lz_fmt("dict:%s", key);
  Spec *s = lookup(S, key);
  if (s) return s->var;
  if (S->made >= MAX_SPECS) return NULL;
  /* rebuild the application over the globals of the arguments */
  CoreExpr *h = e;
  int n = 0;
  CoreExpr *args[MAX_ARGS];
  CoreType *tys[MAX_ARGS];
  while (h->kind == CE_APP || h->kind == CE_TYAPP) {
    if (n >= MAX_ARGS) return NULL;
    if (h->kind == CE_APP) {
      CoreVar *a = const_dict(S, h->arg, depth + 1);
      if (!a) return NULL;
      args[n] = core_var(a);
    } else {
      args[n] = NULL;
      tys[n] = h->type;
    }
    n++;
    h = h->fn;
  }
  CoreExpr *app = core_var(h->var);
  for (int i = n - 1; i >= 0; i--)
    app = args[i] ? core_app(app, args[i]) : core_tyapp(app, tys[i]);
  CoreVar *v = core_opt_new_global(S->O, lz_fmt("$d%s", h->var->name), h->var->module, t);
  CoreBindGroup g = {0};
  g.rec = true;
  g.nbinds = 1;
  g.binds = LZ_NEW(CoreBind);
  g.binds[0].var = v;
  g.binds[0].rhs = app;
  LZ_PUSH(S->O->p->groups, g);
  core_opt_vvi(S->O, v)->gbind = g.binds;
  Spec sp = {key, v};
  LZ_PUSH(S->specs, sp);
  S->made++;
  return v;
}

/* ---- specialising calls -----------------------------------------------------------------------
 */

/* How many type lambdas and then dictionary lambdas f's right-hand side starts with. */
static bool overloaded(CoreExpr *rhs, int *ntv, int *nd) {
  *ntv = *nd = 0;
  CoreExpr *x = rhs;
  while (x->kind == CE_TYLAM)
    (*ntv)++, x = x->body;
  while (x->kind == CE_LAM && is_dict_type(x->var->type))
    (*nd)++, x = x->body;
  return *nd > 0;
}

static int spec_expr(SpecState *S, CoreExpr **ep, int depth);

static CoreExpr *spec_call(SpecState *S, CoreExpr *e) {
  int n = 0;
  CoreExpr *h = e;
  for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
    n++;
  if (h->kind != CE_VAR || !h->var->global) return NULL;
  OptVarInfo *hi = core_opt_vvi(S->O, h->var);
  if (!hi->gbind || (hi->flags & VI_NOINLINE)) return NULL;
  int ntv, nd;
  if (!overloaded(hi->gbind->rhs, &ntv, &nd) || n < ntv + nd || ntv + nd > MAX_ARGS) return NULL;
  CoreExpr **sp = LZ_NEW_ARRAY(CoreExpr *, n);
  int i = n;
  for (CoreExpr *x = e; x != h; x = x->fn)
    sp[--i] = x;
  /* the leading type and dictionary arguments must be constant */
  char *key = lz_fmt("spec:%d", h->var->uniq);
  CoreType *tys[MAX_ARGS];
  CoreVar *ds[MAX_ARGS];
  for (int k = 0; k < ntv; k++) {
    if (sp[k]->kind != CE_TYAPP || !type_closed(sp[k]->type)) return NULL;
    tys[k] = sp[k]->type;
    key = lz_fmt("%s@%s", key, core_type_to_string(tys[k]));
  }
  for (int k = 0; k < nd; k++) {
    CoreExpr *a = sp[ntv + k];
    if (a->kind != CE_APP) return NULL;
    ds[k] = const_dict(S, a->arg, 0);
    if (!ds[k]) return NULL;
    key = lz_fmt("%s(%d)", key, ds[k]->uniq);
  }
  Spec *s = lookup(S, key);
  CoreVar *sv;
  if (s) {
    sv = s->var;
  } else {
    if (S->made >= MAX_SPECS) return NULL;
    /* the body under the type and dictionary lambdas, instantiated by the clone; its
     * recursive calls become calls at the same constant arguments */
    CoreExpr *body = hi->gbind->rhs;
    CoreTyVar *tvs[MAX_ARGS];
    CoreVar *dps[MAX_ARGS];
    CoreExpr *dvs[MAX_ARGS];
    for (int k = 0; k < ntv; k++, body = body->body)
      tvs[k] = body->tyvar;
    for (int k = 0; k < nd; k++, body = body->body) {
      dps[k] = body->var;
      dvs[k] = core_var(ds[k]);
    }
    body = core_opt_clone(S->O, body, ntv, tvs, tys, nd, dps, dvs);
    CoreType *t = core_expr_type(body);
    if (!t) return NULL;
    sv = core_opt_new_global(S->O, lz_fmt("$s%s", h->var->name), h->var->module, t);
    CoreBindGroup g = {0};
    g.rec = true;
    g.nbinds = 1;
    g.binds = LZ_NEW(CoreBind);
    g.binds[0].var = sv;
    g.binds[0].rhs = body;
    LZ_PUSH(S->O->p->groups, g);
    core_opt_vvi(S->O, sv)->gbind = g.binds;
    Spec nsp = {key, sv};
    LZ_PUSH(S->specs, nsp);
    S->made++;
    S->O->st.specialised++;
    spec_expr(S, &g.binds[0].rhs, 0);
  }
  CoreExpr *r = core_var(sv);
  for (int k = ntv + nd; k < n; k++)
    r = sp[k]->kind == CE_APP ? core_app(r, sp[k]->arg) : core_tyapp(r, sp[k]->type);
  return r;
}

static int spec_expr(SpecState *S, CoreExpr **ep, int depth) {
  CoreExpr *e = *ep;
  if (!e || depth > CORE_MAX_DEPTH) return 0;
  int n = 0;
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: return 0;
  case CE_APP:
  case CE_TYAPP: {
    CoreExpr *r = spec_call(S, e);
    if (r) {
      *ep = r;
      n++;
      e = r;
    }
    /* the arguments (and a non-variable head) */
    for (CoreExpr *x = e; x->kind == CE_APP || x->kind == CE_TYAPP; x = x->fn) {
      if (x->kind == CE_APP) n += spec_expr(S, &x->arg, depth + 1);
      if (x->fn->kind != CE_APP && x->fn->kind != CE_TYAPP && x->fn->kind != CE_VAR)
        n += spec_expr(S, &x->fn, depth + 1);
    }
    return n;
  }
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return spec_expr(S, &e->body, depth + 1);
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++)
      n += spec_expr(S, &e->binds[i].rhs, depth + 1);
    return n + spec_expr(S, &e->body, depth + 1);
  case CE_CASE:
    n += spec_expr(S, &e->body, depth + 1);
    for (int i = 0; i < e->nalts; i++)
      n += spec_expr(S, &e->alts[i].rhs, depth + 1);
    return n;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      n += spec_expr(S, &e->args[i], depth + 1);
    return n;
  }
  return n;
}

int core_opt_specialise(Opt *O) {
  SpecState *S = state_for(O);
  CoreProgram *p = O->p;
  core_opt_index_globals(O);
  int n = 0;
  int ngroups = p->groups.len; /* new groups are added at the end; they are new copies */
  for (int g = 0; g < ngroups; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      CoreBind *b = &p->groups.data[g].binds[i];
      if (core_opt_vvi(O, b->var)->flags & VI_NOINLINE) continue;
      CoreExpr *rhs = b->rhs;
      n += spec_expr(S, &rhs, 0);
      p->groups.data[g].binds[i].rhs = rhs; /* the array may have moved */
    }
  core_opt_index_globals(O);
  return n;
}

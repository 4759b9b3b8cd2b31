/* core_to_stg.c — conversion of Core to STG: erasure of types and casts, A-normal form,
 * closures on let right-hand sides, unboxed values kept out of thunks.
 *
 * The idea: one recursive walk over Core that produces STG directly, with every non-atomic
 * argument turned into a *float* — a binding wrapped around the expression that needs the
 * atom. A lifted argument floats as a `let` of a closure (a thunk, a function for a
 * lambda, a constructor application for a constructor), so laziness is unchanged; an
 * unlifted argument floats as a `case` that evaluates it first, since an Int# is never a
 * thunk (Core's semantics for unlifted arguments is strict already). Types, type
 * lambdas and applications, and casts vanish (erase), so a newtype costs nothing and
 * nested lambdas separated by casts or type lambdas become one function of their total
 * arity. Lets of atoms (`let y = x |> co`) are substituted away through the environment,
 * which maps Core uniques to atoms. The rep of every expression flows top-down from the
 * closure that contains it; it is computed from Core types only at closure bodies and
 * arguments. Free variables, let-no-escape and call kinds are left to
 * stg_analyse_program (stg_analyse.c), which runs at the end. The top level and the
 * static closures the walk creates (Integer literals, shared constructors, arguments of
 * static constructors) are in core_to_stg_top.c.
 */
#include <string.h>

#include "core_to_stg.h"

static StgExpr *conv_expr(Conv *c, CoreExpr *e, StgRep rep);

/* ---- helpers ----------------------------------------------------------------------------- */

void stg_conv_fail(Conv *c, LzSpan at, const char *msg, const char *arg) {
  if (!c->failed) lz_error(at, "%s%s%s", msg, arg ? arg : "", arg ? "’" : "");
  c->failed = true;
}

static StgRep expr_rep(CoreExpr *e) {
  for (int guard = 0; e && guard < 1000000; guard++) {
    switch (e->kind) {
    case CE_VAR: return e->var ? stg_type_rep(e->var->type) : STG_P;
    case CE_LIT: return stg_lit_rep(&e->lit);
    case CE_LAM:
    case CE_TYLAM:
    case CE_CON: return STG_P;
    case CE_CASE:
    case CE_PRIMOP:
    case CE_CAST: return stg_type_rep(e->type);
    case CE_LET:
    case CE_SCC: e = e->body; continue;
    case CE_APP:
    case CE_TYAPP: return stg_type_rep(core_expr_type(e));
    }
    break;
  }
  return STG_P;
}

static StgVar *fresh(Conv *c, const char *name, StgRep rep, LzSpan at) {
  return stg_var_new(c->p, lz_sym(name), core_fresh_uniq(), rep, at);
}

StgVar *stg_conv_bind_var(Conv *c, CoreVar *cv) {
  if (!cv) { /* malformed Core (the Core linter reports it) */
    stg_conv_fail(c, (LzSpan){0}, "internal: missing binder in Core", NULL);
    return fresh(c, "missing", STG_P, (LzSpan){0});
  }
  StgVar *v = stg_var_new(c->p, cv->name, cv->uniq, stg_type_rep(cv->type), cv->span);
  v->global = cv->global;
  v->module = cv->module;
  StgAtom *a = LZ_NEW(StgAtom);
  *a = stg_atom_var(v);
  stg_map_put(&c->env, stg_conv_key(cv->uniq), a);
  return v;
}

void stg_conv_alias(Conv *c, CoreVar *cv, StgAtom a) {
  StgAtom *p = LZ_NEW(StgAtom);
  *p = a;
  stg_map_put(&c->env, stg_conv_key(cv->uniq), p);
}

static StgExpr *atom_expr(StgAtom a, LzSpan at) {
  StgExpr *e = stg_expr_new(SE_ATOM, stg_atom_rep(&a), at);
  e->atom = a;
  return e;
}

StgRhs *stg_conv_new_rhs(StgRhsKind kind, StgVar *v, LzSpan at) {
  StgRhs *r = LZ_NEW(StgRhs);
  r->kind = kind;
  r->var = v;
  r->result_rep = STG_P;
  r->span = lz_span_known(v->span) ? v->span : at;
  v->rhs = r;
  return r;
}

static StgExpr *let1(StgVar *v, StgRhs *rhs, StgExpr *body) {
  StgExpr *e = stg_expr_new(SE_LET, body->rep, body->span);
  e->binds = LZ_NEW(StgBind);
  e->binds[0] = (StgBind){v, rhs};
  e->nbinds = 1;
  e->body = body;
  return e;
}

/* case scrut of v { DEFAULT -> body } for an unlifted scrutinee */
static StgExpr *case_default(StgExpr *scrut, StgVar *v, StgExpr *body) {
  StgExpr *e = stg_expr_new(SE_CASE, body->rep, scrut->span);
  e->scrut = scrut;
  e->binder = v;
  e->alts_type = v->rep == STG_P ? STG_ALTS_POLY : STG_ALTS_PRIM;
  e->alts = LZ_NEW(StgAlt);
  e->alts[0].kind = STG_ALT_DEFAULT;
  e->alts[0].rhs = body;
  e->nalts = 1;
  return e;
}

static StgExpr *wrap(Floats *fl, StgExpr *body) {
  for (int i = fl->len - 1; i >= 0; i--) {
    Float *f = &fl->data[i];
    body = f->is_case ? case_default(f->scrut, f->var, body) : let1(f->var, f->rhs, body);
  }
  return body;
}

/* ---- atoms ------------------------------------------------------------------------------ */

/* An atom for `e` without floats, if it is one: a variable, a literal, realWorld#. */
bool stg_conv_trivial_atom(Conv *c, CoreExpr *e, StgAtom *out) {
  e = stg_conv_erase(e);
  if (!e) return false;
  if (e->kind == CE_VAR) {
    StgAtom *a = e->var ? stg_map_get(&c->env, stg_conv_key(e->var->uniq)) : NULL;
    if (!a) {
      stg_conv_fail(c, e->span, "internal: variable not in scope in Core: ‘",
                    e->var ? e->var->name : "?");
      *out = stg_conv_lit_int(0);
    } else {
      *out = *a;
    }
    return true;
  }
  if (e->kind == CE_LIT) {
    *out = e->lit.kind == CL_INTEGER ? stg_atom_var(stg_conv_integer(c, &e->lit, e->span))
                                     : stg_atom_lit(e->lit);
    return true;
  }
  if (e->kind == CE_PRIMOP && e->primop == P_REALWORLD && e->nargs == 0) {
    *out = stg_conv_lit_int(0); /* World# is zero-width */
    return true;
  }
  if (e->kind == CE_CON && e->nargs == 0 && e->con) {
    *out = stg_atom_var(stg_conv_nullary(c, e->con, e->span));
    return true;
  }
  return false;
}

bool stg_conv_is_atom(CoreExpr *e) {
  e = stg_conv_erase(e);
  return e && (e->kind == CE_VAR || e->kind == CE_LIT || (e->kind == CE_CON && e->nargs == 0) ||
               (e->kind == CE_PRIMOP && e->primop == P_REALWORLD && e->nargs == 0));
}

/* May an unlifted argument be evaluated before the let whose constructor needs it? Yes
 * for a pure primop over atoms: it cannot fail, loop or have an effect. Not for a read
 * of memory (indexCharOffAddr#), whose index may be valid only where the source uses it. */
static bool speculatable(CoreExpr *e) {
  e = stg_conv_erase(e);
  if (!e || e->kind != CE_PRIMOP || e->primop < 0 || e->primop >= PRIMOP_COUNT) return false;
  if (core_primops[e->primop].flags != PRIM_PURE || e->primop == P_ADDR_INDEX_CHAR) return false;
  for (int i = 0; i < e->nargs; i++)
    if (!stg_conv_is_atom(e->args[i])) return false;
  return true;
}

/* Can the constructor application `e` be a closure (a let right-hand side, or a static
 * closure at top level), given how its unlifted arguments would have to be bound? */
static bool con_args_ok(CoreExpr *e, AtomMode mode) {
  if (!e->args && e->nargs) return false;
  for (int i = 0; i < e->nargs; i++) {
    CoreExpr *a = stg_conv_erase(e->args[i]);
    if (stg_conv_strict_integer(e, i)) return false;
    if (!a || stg_conv_is_atom(a) || expr_rep(a) == STG_P) continue;
    if (mode == MODE_LET_CON && speculatable(a)) continue;
    return false;
  }
  return true;
}

/* Turn `e` into an atom, floating a binding into `fl` if it is not one. */
static StgAtom atomize(Conv *c, CoreExpr *e, Floats *fl, AtomMode mode) {
  StgAtom a;
  if (stg_conv_trivial_atom(c, e, &a)) return a;
  CoreExpr *x = stg_conv_erase(e);
  if (stg_conv_static_con(c, x)) return stg_atom_var(stg_conv_static_con_var(c, x));
  StgRep rep = expr_rep(x);
  if (rep == STG_P) {
    if (mode == MODE_TOP) return stg_atom_var(stg_conv_top_float(c, x));
    StgVar *v = fresh(c, x->kind == CE_LAM ? "lam" : "sat", STG_P, x->span);
    StgRhs *r = stg_conv_rhs(c, v, x, fl, mode == MODE_REC_CON ? MODE_REC_CON : MODE_LET_CON);
    LZ_PUSH(*fl, ((Float){false, v, r, NULL}));
    return stg_atom_var(v);
  }
  /* unlifted: evaluate first (callers made sure this is allowed here) */
  StgVar *v = fresh(c, "ds", rep, x->span);
  StgExpr *s = conv_expr(c, x, rep);
  LZ_PUSH(*fl, ((Float){true, v, NULL, s}));
  return stg_atom_var(v);
}

StgAtom *stg_conv_atomize_args(Conv *c, CoreExpr **args, int n, Floats *fl, AtomMode mode) {
  StgAtom *out = LZ_NEW_ARRAY(StgAtom, n + 1);
  for (int i = 0; i < n; i++)
    out[i] = args ? atomize(c, args[i], fl, mode) : stg_conv_lit_int(0);
  return out;
}

/* ---- closures ------------------------------------------------------------------------------ */

/* The closure for right-hand side `e` bound to `v`. Bindings its constructor arguments
 * need go to `fl`: for MODE_REC_CON only lets (the caller puts them in the recursive
 * group); for MODE_TOP none (they become top-level bindings). */
StgRhs *stg_conv_rhs(Conv *c, StgVar *v, CoreExpr *e, Floats *fl, AtomMode mode) {
  CoreExpr *x = stg_conv_erase(e);
  LzSpan at = x ? x->span : v->span;
  if (x && x->kind == CE_LAM) {
    StgRhs *r = stg_conv_new_rhs(STG_FUN, v, at);
    LZ_VEC(StgVar *) ps = {0};
    while (x && x->kind == CE_LAM) {
      LZ_PUSH(ps, stg_conv_bind_var(c, x->var));
      x = stg_conv_erase(x->body);
    }
    r->params = ps.data;
    r->arity = ps.len;
    r->result_rep = expr_rep(x);
    r->body = conv_expr(c, x, r->result_rep);
    return r;
  }
  if (x && x->kind == CE_CON && con_args_ok(x, mode)) {
    StgRhs *r = stg_conv_new_rhs(STG_CON, v, at);
    r->con = x->con;
    r->args = stg_conv_atomize_args(c, x->args, x->nargs, fl, mode);
    r->nargs = x->nargs;
    return r;
  }
  StgRhs *r = stg_conv_new_rhs(STG_THUNK, v, at); /* also for an atom: x = y evaluates y */
  r->body = conv_expr(c, x, STG_P);
  return r;
}

/* ---- expressions ----------------------------------------------------------------------------- */

static StgExpr *conv_let(Conv *c, CoreExpr *e, StgRep rep) {
  if (!e->binds || e->nbinds < 1) {
    stg_conv_fail(c, e->span, "internal: let without bindings in Core", NULL);
    return conv_expr(c, e->body, rep);
  }
  if (!e->rec) {
    if (e->nbinds != 1 || !e->binds[0].var) {
      stg_conv_fail(c, e->span, "internal: malformed let in Core", NULL);
      return conv_expr(c, e->body, rep);
    }
    CoreVar *cv = e->binds[0].var;
    CoreExpr *rhs = e->binds[0].rhs;
    StgAtom a;
    if (stg_conv_trivial_atom(c, rhs, &a)) { /* let y = x: substitute */
      stg_conv_alias(c, cv, a);
      return conv_expr(c, e->body, rep);
    }
    if (stg_conv_static_con(c,
                            stg_conv_erase(rhs))) { /* let y = I# 1#: the shared static closure */
      stg_conv_alias(c, cv, stg_atom_var(stg_conv_static_con_var(c, stg_conv_erase(rhs))));
      return conv_expr(c, e->body, rep);
    }
    if (stg_type_rep(cv->type) != STG_P) { /* strict let: a case */
      StgRep r = stg_type_rep(cv->type);
      StgExpr *s = conv_expr(c, stg_conv_erase(rhs), r);
      StgVar *v = stg_conv_bind_var(c, cv);
      return case_default(s, v, conv_expr(c, e->body, rep));
    }
    Floats fl = {0};
    StgVar *v = stg_conv_bind_var(c, cv);
    StgRhs *r = stg_conv_rhs(c, v, rhs, &fl, MODE_LET_CON);
    StgExpr *body = conv_expr(c, e->body, rep);
    return wrap(&fl, let1(v, r, body));
  }
  /* let rec: a group of closures; the lets their constructor arguments float join it */
  StgVar **vs = LZ_NEW_ARRAY(StgVar *, e->nbinds + 1);
  for (int i = 0; i < e->nbinds; i++)
    vs[i] = stg_conv_bind_var(c, e->binds[i].var);
  Floats fl = {0};
  LZ_VEC(StgBind) group = {0};
  for (int i = 0; i < e->nbinds; i++) {
    StgRhs *r;
    if (stg_conv_is_atom(e->binds[i].rhs)) { /* let rec x = y: a thunk (x = x is a loop) */
      r = stg_conv_new_rhs(STG_THUNK, vs[i], e->span);
      r->body = conv_expr(c, e->binds[i].rhs, STG_P);
    } else {
      r = stg_conv_rhs(c, vs[i], e->binds[i].rhs, &fl, MODE_REC_CON);
    }
    LZ_PUSH(group, ((StgBind){vs[i], r}));
  }
  for (int i = 0; i < fl.len; i++)
    LZ_PUSH(group, ((StgBind){fl.data[i].var, fl.data[i].rhs}));
  StgExpr *body = conv_expr(c, e->body, rep);
  StgExpr *let = stg_expr_new(SE_LET, rep, e->span);
  let->rec = true;
  let->binds = group.data;
  let->nbinds = group.len;
  let->body = body;
  return let;
}

static StgExpr *conv_case(Conv *c, CoreExpr *e, StgRep rep) {
  if (!e->var || !e->alts || e->nalts < 1) {
    stg_conv_fail(c, e->span, "internal: case without a binder or alternatives in Core", NULL);
    return atom_expr(stg_conv_lit_int(0), e->span);
  }
  StgRep srep = stg_type_rep(e->var->type);
  StgAtom a;
  /* case of an unlifted atom with one DEFAULT: just a name for the value */
  if (srep != STG_P && e->nalts == 1 && e->alts[0].kind == ALT_DEFAULT &&
      stg_conv_trivial_atom(c, e->body, &a)) {
    stg_conv_alias(c, e->var, a);
    return conv_expr(c, e->alts[0].rhs, rep);
  }
  StgExpr *s = stg_expr_new(SE_CASE, rep, e->span);
  s->scrut = conv_expr(c, e->body, srep);
  s->binder = stg_conv_bind_var(c, e->var);
  if (srep != STG_P) {
    s->alts_type = STG_ALTS_PRIM;
  } else {
    const CoreType *t = e->var->type;
    while (t && (t->kind == CT_APP || t->kind == CT_FORALL))
      t = t->kind == CT_APP ? t->fn : t->body;
    CoreTyCon *tc = t && t->kind == CT_CON && t->con && t->con->sort == TC_DATA ? t->con : NULL;
    for (int i = 0; i < e->nalts; i++)
      if (e->alts[i].kind == ALT_CON && e->alts[i].con) tc = e->alts[i].con->tycon;
    s->alts_type = tc ? STG_ALTS_ALG : STG_ALTS_POLY;
    s->tycon = tc;
  }
  s->alts = LZ_NEW_ARRAY(StgAlt, e->nalts + 1);
  s->nalts = e->nalts;
  for (int i = 0; i < e->nalts; i++) {
    CoreAlt *ca = &e->alts[i];
    StgAlt *sa = &s->alts[i];
    switch (ca->kind) {
    case ALT_CON:
      sa->kind = STG_ALT_CON;
      sa->con = ca->con;
      sa->vars = LZ_NEW_ARRAY(StgVar *, (ca->con ? ca->con->arity : 0) + 1);
      for (int j = 0; ca->con && j < ca->con->arity; j++)
        sa->vars[j] = stg_conv_bind_var(c, ca->vars ? ca->vars[j] : NULL);
      break;
    case ALT_LIT:
      sa->kind = STG_ALT_LIT;
      sa->lit = ca->lit;
      if (ca->lit.kind == CL_INTEGER || srep == STG_P)
        stg_conv_fail(c, e->span, "case on an Integer literal is not supported by the back end",
                      NULL);
      break;
    case ALT_DEFAULT: sa->kind = STG_ALT_DEFAULT; break;
    }
    sa->rhs = conv_expr(c, ca->rhs, rep);
  }
  return s;
}

static CoreExpr *app_spine(CoreExpr *e, CoreExpr ***args_out, int *n_out) {
  LZ_VEC(CoreExpr *) rev = {0};
  for (;;) {
    if (e && e->kind == CE_APP) {
      LZ_PUSH(rev, e->arg);
      e = e->fn;
    } else if (e && (e->kind == CE_TYAPP || e->kind == CE_TYLAM || e->kind == CE_CAST)) {
      e = e->kind == CE_TYAPP ? e->fn : e->body;
    } else {
      break;
    }
  }
  CoreExpr **args = LZ_NEW_ARRAY(CoreExpr *, rev.len + 1);
  for (int i = 0; i < rev.len; i++)
    args[i] = rev.data[rev.len - 1 - i];
  *args_out = args;
  *n_out = rev.len;
  return e;
}

static CoreExpr *apply_all(CoreExpr *f, CoreExpr **args, int n) {
  for (int i = 0; i < n; i++)
    f = core_app(f, args[i]);
  return f;
}

static StgExpr *conv_app(Conv *c, CoreExpr *e, StgRep rep) {
  CoreExpr **args;
  int n;
  CoreExpr *h = app_spine(e, &args, &n);
  if (!h) {
    stg_conv_fail(c, e->span, "internal: malformed application in Core", NULL);
    return atom_expr(stg_conv_lit_int(0), e->span);
  }
  if (h->kind == CE_LET) { /* (let bs in f) args = let bs in f args */
    CoreExpr *l = core_expr_new(CE_LET, h->span);
    *l = *h;
    l->body = apply_all(h->body, args, n);
    return conv_let(c, l, rep);
  }
  if (h->kind == CE_LAM) { /* (\x -> b) a args = let x = a in b args */
    CoreExpr *l = core_expr_new(CE_LET, h->span);
    l->binds = LZ_NEW(CoreBind);
    l->binds[0] = (CoreBind){h->var, args[0]};
    l->nbinds = 1;
    l->body = apply_all(h->body, args + 1, n - 1);
    return conv_let(c, l, rep);
  }
  Floats fl = {0};
  StgVar *fn;
  StgAtom a;
  if (stg_conv_trivial_atom(c, h, &a)) {
    if (a.kind != SA_VAR) {
      stg_conv_fail(c, e->span, "internal: a literal applied to arguments in Core", NULL);
      return atom_expr(stg_conv_lit_int(0), e->span);
    }
    fn = a.var;
  } else {
    fn = fresh(c, "fn", STG_P, h->span);
    StgRhs *r = stg_conv_rhs(c, fn, h, &fl, MODE_LET_CON);
    LZ_PUSH(fl, ((Float){false, fn, r, NULL}));
  }
  StgExpr *call = stg_expr_new(SE_APP, rep, e->span);
  call->fn = fn;
  call->args = stg_conv_atomize_args(c, args, n, &fl, MODE_EXPR);
  call->nargs = n;
  return wrap(&fl, call);
}

/* The cases below are kept out of line so that the frames on the recursive path stay
 * small: deep expressions recurse through conv_expr once per level. */
#define COLD __attribute__((noinline))

static COLD StgExpr *bad_expr(Conv *c, CoreExpr *e, const char *msg) {
  stg_conv_fail(c, e ? e->span : (LzSpan){0}, msg, NULL);
  return atom_expr(stg_conv_lit_int(0), e ? e->span : (LzSpan){0});
}

/* \x -> e in expression position: let lam = \r x -> e in lam */
static COLD StgExpr *conv_lam_expr(Conv *c, CoreExpr *e) {
  StgVar *v = fresh(c, "lam", STG_P, e->span);
  StgRhs *r = stg_conv_rhs(c, v, e, NULL, MODE_LET_CON);
  return let1(v, r, atom_expr(stg_atom_var(v), e->span));
}

static COLD StgExpr *conv_con_expr(Conv *c, CoreExpr *e) {
  if (stg_conv_static_con(c, e))
    return atom_expr(stg_atom_var(stg_conv_static_con_var(c, e)), e->span);
  Floats fl = {0};
  StgExpr *x = stg_expr_new(SE_CON, STG_P, e->span);
  x->con = e->con;
  x->args = stg_conv_atomize_args(c, e->args, e->nargs, &fl, MODE_EXPR);
  x->nargs = e->nargs;
  for (int i = 0; i < e->nargs; i++)
    if (stg_conv_strict_integer(e, i) && x->args[i].kind == SA_VAR) { /* evaluate the CAF first */
      StgVar *v = fresh(c, "ds", STG_P, e->span);
      LZ_PUSH(fl, ((Float){true, v, NULL, atom_expr(x->args[i], e->span)}));
      x->args[i] = stg_atom_var(v);
    }
  return wrap(&fl, x);
}

static COLD StgExpr *conv_primop_expr(Conv *c, CoreExpr *e, StgRep rep) {
  Floats fl = {0};
  StgExpr *x = stg_expr_new(SE_PRIMOP, rep, e->span);
  x->primop = e->primop;
  x->args = stg_conv_atomize_args(c, e->args, e->nargs, &fl, MODE_EXPR);
  x->nargs = e->nargs;
  return wrap(&fl, x);
}

static COLD StgExpr *conv_scc_expr(Conv *c, CoreExpr *e, StgRep rep) {
  StgExpr *x = stg_expr_new(SE_SCC, rep, e->span);
  x->scc = e->scc;
  x->scc_module = e->scc_module;
  x->body = conv_expr(c, e->body, rep);
  return x;
}

static COLD StgExpr *conv_atom_expr(Conv *c, CoreExpr *e) {
  StgAtom a;
  stg_conv_trivial_atom(c, e, &a);
  return atom_expr(a, e->span);
}

static COLD StgExpr *too_deep(Conv *c, CoreExpr *e) {
  if (!c->too_deep)
    lz_error(e ? e->span : (LzSpan){0},
             "Expression nested too deeply for the code generator (more than %d levels)",
             STG_MAX_DEPTH);
  c->too_deep = c->failed = true;
  return atom_expr(stg_conv_lit_int(0), e ? e->span : (LzSpan){0});
}

static StgExpr *conv_expr(Conv *c, CoreExpr *e, StgRep rep) {
  if (c->depth >= STG_MAX_DEPTH) return too_deep(c, e);
  c->depth++;
  StgExpr *x;
  e = stg_conv_erase(e);
  if (!e)
    x = bad_expr(c, e, "internal: missing expression in Core");
  else if (stg_conv_is_atom(e))
    x = conv_atom_expr(c, e);
  else
    switch (e->kind) {
    case CE_APP: x = conv_app(c, e, rep); break;
    case CE_LET: x = conv_let(c, e, rep); break;
    case CE_CASE: x = conv_case(c, e, rep); break;
    case CE_LAM: x = conv_lam_expr(c, e); break;
    case CE_CON: x = conv_con_expr(c, e); break;
    case CE_PRIMOP: x = conv_primop_expr(c, e, rep); break;
    case CE_SCC: x = conv_scc_expr(c, e, rep); break;
    default: x = bad_expr(c, e, "internal: unexpected Core expression"); break;
    }
  c->depth--;
  return x;
}

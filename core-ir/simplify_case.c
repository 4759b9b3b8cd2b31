/* simplify_case.c — the simplifier's treatment of `case`: case of a known constructor
 * or literal, case of case (with join points), lets floated out of a scrutinee,
 * elimination of an evaluation whose scrutinee is already evaluated, and the facts an
 * alternative learns (the case binder is that constructor; the scrutinised variable is
 * the case binder).
 *
 * The idea: the scrutinee is simplified first, then the case is *rebuilt* around the
 * simplified scrutinee (core_opt_simpl_rebuild_case), so a scrutinee that became a
 * constructor, a literal or another case is seen at once. Case of case pushes the
 * outer case into the inner alternatives; an outer alternative bigger than a few nodes
 * is first made a join point (a let-bound function of its pattern variables called in
 * tail position; stg/ turns it into a let-no-escape), so nothing big is duplicated.
 * A duplicated outer case is cloned, keeping binders unique. Work never moves: the
 * scrutinee of a known case is either a variable or a constructor application whose
 * arguments are let-bound (lazily) or case-bound (unlifted: they were going to be
 * computed by the constructor application anyway). See Note [Core optimiser].
 */
#include <string.h>

#include "opt_priv.h"

enum { JP_SMALL = 10 };

CoreExpr *core_opt_simpl_rebuild_case(Opt *O, CoreExpr *s, CoreExpr *e);
void core_opt_set_bind_info(Opt *O, CoreVar *x, CoreExpr *rhs);

static CoreExpr *copy_node(CoreExpr *e) {
  CoreExpr *n = LZ_NEW(CoreExpr);
  *n = *e;
  return n;
}

static CoreExpr *simpl(Opt *O, CoreExpr *e) { return core_opt_simplify_expr(O, e); }

static bool lit_eq(const CoreLit *a, const CoreLit *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == CL_DOUBLE) return a->d == b->d;
  if (a->kind == CL_STRING || a->kind == CL_INTEGER) return false;
  return a->i == b->i;
}

/* ---- known scrutinees --------------------------------------------------------------------------
 */

typedef struct Known {
  bool is_lit;
  CoreLit lit;
  CoreDataCon *con;
  CoreType **tyargs;
  int ntyargs;
  CoreExpr **args;
  int nargs;
} Known;

static bool all_trivial(CoreExpr **args, int n) {
  for (int i = 0; i < n; i++)
    if (!core_opt_is_trivial(args[i])) return false;
  return true;
}

static bool known_scrut(Opt *O, CoreExpr *s, Known *k) {
  memset(k, 0, sizeof *k);
  if (s->kind == CE_CON) {
    k->con = s->con, k->tyargs = s->tyargs, k->ntyargs = s->ntyargs;
    k->args = s->args, k->nargs = s->nargs;
    return true;
  }
  if (s->kind == CE_LIT) {
    if (s->lit.kind == CL_STRING || s->lit.kind == CL_INTEGER) return false;
    k->is_lit = true;
    k->lit = s->lit;
    return true;
  }
  if (s->kind == CE_VAR) {
    OptVarInfo *vi = core_opt_vvi(O, s->var);
    CoreExpr *u = s->var->global ? (vi->gbind ? vi->gbind->rhs : NULL) : vi->unfold;
    if (u && u->kind == CE_CON && all_trivial(u->args, u->nargs)) {
      k->con = u->con, k->tyargs = u->tyargs, k->ntyargs = u->ntyargs;
      k->args = u->args, k->nargs = u->nargs;
      return true;
    }
  }
  return false;
}

typedef struct Bind {
  CoreVar *var;
  CoreExpr *rhs;
  bool strict;
} Bind;

static CoreExpr *wrap(Bind *bs, int n, CoreExpr *body) {
  for (int k = n - 1; k >= 0; k--) {
    if (bs[k].strict)
      body = core_opt_mk_case_default(bs[k].rhs, bs[k].var, core_expr_type(body), body);
    else
      body = core_opt_mk_let(bs[k].var, bs[k].rhs, body);
  }
  return body;
}

static CoreExpr *copy_trivial(CoreExpr *e) {
  return e->kind == CE_VAR || e->kind == CE_LIT ? copy_node(e) : e;
}

static CoreExpr *known_case(Opt *O, CoreExpr *s, Known *k, CoreExpr *e) {
  CoreAlt *alt = NULL, *dflt = NULL;
  for (int i = 0; i < e->nalts; i++) {
    CoreAlt *a = &e->alts[i];
    if (a->kind == ALT_DEFAULT)
      dflt = a;
    else if (a->kind == ALT_CON && !k->is_lit && a->con == k->con)
      alt = a;
    else if (a->kind == ALT_LIT && k->is_lit && lit_eq(&a->lit, &k->lit))
      alt = a;
  }
  if (!alt) alt = dflt;
  if (!alt) return NULL;
  CoreVar *b = e->var;
  OptVarInfo *bi = core_opt_vvi(O, b);
  LZ_VEC(Bind) binds = {0};
  CoreExpr **nargs = NULL;
  if (!k->is_lit && k->nargs) {
    nargs = LZ_NEW_ARRAY(CoreExpr *, k->nargs);
    for (int j = 0; j < k->nargs; j++) {
      CoreExpr *a = k->args[j];
      CoreVar *v = alt->kind == ALT_CON ? alt->vars[j] : NULL;
      bool used = v && core_opt_vvi(O, v)->occ > 0;
      bool unl = core_type_unlifted(core_expr_type(a));
      if (core_opt_is_trivial(a)) {
        nargs[j] = a;
        if (used) {
          core_opt_set_subst(O, v, copy_trivial(a));
        }
        continue;
      }
      if (!v) {
        /* a fresh binder in output code needs its count (used once, in the constructor
         * application below; clones of that add theirs), or it is taken for dead */
        v = core_opt_fresh_var("ds", core_expr_type(a));
        core_opt_vvi(O, v)->occ = 1;
      }
      if (!used && bi->occ == 0 && (!unl || core_opt_ok_for_spec(a))) {
        nargs[j] = a;
        continue; /* a lazy argument nobody needs */
      }
      Bind bd = {v, a, unl};
      LZ_PUSH(binds, bd);
      if (!unl)
        core_opt_set_bind_info(O, v, a);
      else
        core_opt_vvi(O, v)->unfold = a->kind == CE_PRIMOP ? a : NULL;
      nargs[j] = core_var(v);
    }
  }
  if (bi->occ > 0) {
    if (core_opt_is_trivial(s)) {
      core_opt_set_subst(O, b, copy_trivial(s));
    } else {
      CoreExpr *c = copy_node(s);
      c->args = nargs;
      Bind bd = {b, c, false};
      LZ_PUSH(binds, bd);
      core_opt_set_bind_info(O, b, c);
    }
  }
  O->st.known_con++, O->ticks++;
  CoreExpr *body = simpl(O, alt->rhs);
  return wrap(binds.data, binds.len, body);
}

/* ---- alternatives ------------------------------------------------------------------------------
 */

typedef struct Saved {
  CoreExpr *subst;
  int uses;
} Saved;

/* Small, binder-free expressions that are syntactically equal. */
static bool expr_eq(const CoreExpr *a, const CoreExpr *b, int depth) {
  if (depth > 20 || a->kind != b->kind) return false;
  switch (a->kind) {
  case CE_VAR: return a->var->uniq == b->var->uniq;
  case CE_LIT:
    return a->lit.kind != CL_STRING && a->lit.kind != CL_INTEGER && lit_eq(&a->lit, &b->lit);
  case CE_APP: return expr_eq(a->fn, b->fn, depth + 1) && expr_eq(a->arg, b->arg, depth + 1);
  case CE_TYAPP: return core_type_equal(a->type, b->type) && expr_eq(a->fn, b->fn, depth + 1);
  case CE_CON:
  case CE_PRIMOP:
    if (a->con != b->con || a->primop != b->primop || a->nargs != b->nargs ||
        a->ntyargs != b->ntyargs)
      return false;
    for (int i = 0; i < a->ntyargs; i++)
      if (!core_type_equal(a->tyargs[i], b->tyargs[i])) return false;
    for (int i = 0; i < a->nargs; i++)
      if (!expr_eq(a->args[i], b->args[i], depth + 1)) return false;
    return true;
  default: return false;
  }
}

/* case e of b { DEFAULT -> b }  ==>  e;  alternatives that are all the same and use
 * neither the binder nor pattern variables become one DEFAULT (the evaluation stays). */
static CoreExpr *tidy_case(Opt *O, CoreExpr *c) {
  if (c->nalts == 1 && c->alts[0].kind == ALT_DEFAULT && c->alts[0].rhs->kind == CE_VAR &&
      c->alts[0].rhs->var->uniq == c->var->uniq) {
    O->st.case_elim++, O->ticks++;
    return c->body;
  }
  if (c->nalts < 2) return c;
  for (int i = 1; i < c->nalts; i++)
    if (!expr_eq(c->alts[0].rhs, c->alts[i].rhs, 0)) return c;
  if (core_opt_mentions(c->alts[0].rhs, c->var->uniq)) return c;
  CoreExpr *r = core_opt_mk_case_default(c->body, c->var, c->type, c->alts[0].rhs);
  O->ticks++;
  if (core_opt_vvi(O, c->var)->occ == 0 && core_opt_ok_for_spec(c->body) &&
      !core_opt_is_trivial(c->body)) {
    O->st.case_elim++;
    return c->alts[0].rhs;
  }
  return r;
}

static CoreExpr *simpl_alts(Opt *O, CoreExpr *s, CoreExpr *e) {
  CoreVar *b = e->var;
  OptVarInfo *bi = core_opt_vvi(O, b);
  bool lifted = !core_type_unlifted(b->type);
  if (lifted) bi->flags |= VI_EVALUATED;
  /* binder swap: inside the alternatives the scrutinised variable is the case binder */
  CoreVar *sw[2] = {NULL, NULL};
  Saved sv[2];
  if (e->body->kind == CE_VAR && !e->body->var->global && e->body->var != b) sw[0] = e->body->var;
  if (s->kind == CE_VAR && !s->var->global && s->var != b && s->var != sw[0]) sw[1] = s->var;
  for (int i = 0; i < 2; i++)
    if (sw[i]) {
      OptVarInfo *vi = core_opt_vvi(O, sw[i]);
      sv[i] = (Saved){vi->subst, vi->subst_uses};
      core_opt_set_subst(O, sw[i], core_var(b));
    }
  CoreType **targs = NULL;
  int ntargs = 0;
  const CoreTyCon *tc = core_type_split_con(b->type, &targs, &ntargs);
  CoreExpr *n = copy_node(e);
  n->body = s;
  n->alts = LZ_NEW_ARRAY(CoreAlt, e->nalts);
  for (int i = 0; i < e->nalts; i++) {
    CoreAlt *a = &e->alts[i];
    CoreAlt *na = &n->alts[i];
    *na = *a;
    CoreExpr *save_unfold = bi->unfold;
    Saved save_b = {bi->subst, bi->subst_uses};
    if (a->kind == ALT_CON) {
      for (int j = 0; j < a->con->arity; j++)
        if (a->con->strict && a->con->strict[j] && !core_type_unlifted(a->vars[j]->type))
          core_opt_vvi(O, a->vars[j])->flags |= VI_EVALUATED;
      if (tc && a->con->tycon == tc && ntargs == tc->arity) {
        CoreExpr *c = core_expr_new(CE_CON, e->span);
        c->con = a->con;
        c->tyargs = targs;
        c->ntyargs = ntargs;
        c->nargs = a->con->arity;
        c->args = LZ_NEW_ARRAY(CoreExpr *, c->nargs + 1);
        for (int j = 0; j < c->nargs; j++)
          c->args[j] = core_var(a->vars[j]);
        bi->unfold = c;
      }
    } else if (a->kind == ALT_LIT && a->lit.kind != CL_STRING && a->lit.kind != CL_INTEGER) {
      CoreExpr *l = core_expr_new(CE_LIT, e->span);
      l->lit = a->lit;
      core_opt_set_subst(O, b, l);
    }
    na->rhs = simpl(O, a->rhs);
    bi->unfold = save_unfold;
    bi->subst = save_b.subst, bi->subst_uses = save_b.uses;
  }
  for (int i = 0; i < 2; i++)
    if (sw[i]) {
      OptVarInfo *vi = core_opt_vvi(O, sw[i]);
      vi->subst = sv[i].subst, vi->subst_uses = sv[i].uses;
    }
  return tidy_case(O, n);
}

/* ---- case of case
 * ----------------------------------------------------------------------------------- */

static CoreType *fun_type(CoreVar **ps, int n, CoreType *res) {
  for (int i = n - 1; i >= 0; i--)
    res = core_type_fun(ps[i]->type, res);
  return res;
}

static CoreTyCon *unit_tycon(Opt *O) {
  if (!O->unit_tc) O->unit_tc = core_unit_tycon();
  return O->unit_tc;
}

static CoreExpr *unit_value(Opt *O) {
  CoreExpr *u = core_expr_new(CE_CON, (LzSpan){0});
  u->con = unit_tycon(O)->cons[0];
  return u;
}

/* Turn alternative a of the outer case e into a call of a new join point, which is
 * simplified now and pushed to *jps. Returns the new (input) alternative. */
typedef LZ_VEC(CoreBind) BindVec;

static CoreAlt make_join_point(Opt *O, CoreExpr *e, CoreAlt *a, BindVec *jps) {
  CoreVar *b = e->var;
  LZ_VEC(CoreVar *) params = {0};
  LZ_VEC(CoreExpr *) call_args = {0};
  CoreExpr *body = a->rhs;
  CoreAlt na = *a;
  /* wrappers `case p0 of p { DEFAULT -> .. }` for lifted evaluated variables */
  LZ_VEC(CoreVar *) ev_out = {0};
  LZ_VEC(CoreVar *) ev_in = {0};
  if (a->kind == ALT_CON && a->con->arity) {
    na.vars = LZ_NEW_ARRAY(CoreVar *, a->con->arity);
    for (int j = 0; j < a->con->arity; j++) {
      CoreVar *p = a->vars[j];
      CoreVar *q = core_var_new(p->name, p->type, p->span);
      na.vars[j] = q;
      if (core_opt_vvi(O, p)->occ == 0) continue;
      core_opt_vvi(O, q)->occ = 1; /* used once: in the call of the join point */
      LZ_PUSH(call_args, core_var(q));
      bool strict = a->con->strict && a->con->strict[j] && !core_type_unlifted(p->type);
      if (strict) {
        CoreVar *p0 = core_var_new(p->name, p->type, p->span);
        core_opt_vvi(O, p0)->occ = 1; /* used once: by the re-evaluating case */
        LZ_PUSH(params, p0);
        LZ_PUSH(ev_out, p0);
        LZ_PUSH(ev_in, p);
      } else {
        LZ_PUSH(params, p);
      }
    }
  }
  CoreVar *b2 = NULL;
  if (core_opt_vvi(O, b)->occ > 0 && core_opt_mentions(a->rhs, b->uniq)) {
    CoreVar *bp = core_var_new(b->name, b->type, b->span);
    b2 = core_var_new(b->name, b->type, b->span);
    /* The join point is output: its parameters need occurrence counts, or a later beta
     * reduction of a call (the join point inlined) takes them for dead and drops the
     * argument (a scope error). bp is used once, by the re-evaluating case. */
    core_opt_vvi(O, bp)->occ = 1;
    LZ_PUSH(params, bp);
    LZ_PUSH(call_args, core_var(b));
    if (core_type_unlifted(b->type)) {
      params.data[params.len - 1] = b2;
    } else {
      LZ_PUSH(ev_out, bp);
      LZ_PUSH(ev_in, b2);
    }
  }
  if (params.len == 0) {
    CoreVar *u = core_opt_fresh_var("void", core_type_con(unit_tycon(O)));
    LZ_PUSH(params, u);
    LZ_PUSH(call_args, unit_value(O));
  }
  for (int i = ev_out.len - 1; i >= 0; i--) {
    body = core_opt_mk_case_default(core_var(ev_out.data[i]), ev_in.data[i], e->type, body);
  }
  CoreExpr *lam = body;
  for (int i = params.len - 1; i >= 0; i--)
    lam = core_lam(params.data[i], lam);
  CoreVar *j = core_opt_fresh_var("$j", fun_type(params.data, params.len, e->type));
  core_opt_vvi(O, j)->occ = 1; /* the call in the shell; each clone of the shell adds one */
  /* simplify the join point now, with the case binder renamed to b2 inside it */
  OptVarInfo *bi = core_opt_vvi(O, b);
  CoreExpr *save = bi->subst;
  int save_uses = bi->subst_uses;
  if (b2) {
    core_opt_set_subst(O, b, core_var(b2));
    core_opt_vvi(O, b2)->occ = 2;
  }
  CoreExpr *rhs = simpl(O, lam);
  bi->subst = save, bi->subst_uses = save_uses;
  CoreBind jb = {j, rhs};
  LZ_PUSH(*jps, jb);
  CoreExpr *call = core_var(j);
  for (int i = 0; i < call_args.len; i++)
    call = core_app(call, call_args.data[i]);
  na.rhs = call;
  O->st.join_points++;
  return na;
}

static CoreExpr *case_of_case(Opt *O, CoreExpr *inner, CoreExpr *e) {
  CoreExpr *res = copy_node(inner);
  res->type = e->type;
  res->alts = LZ_NEW_ARRAY(CoreAlt, inner->nalts);
  O->st.case_of_case++, O->ticks++;
  if (inner->nalts == 1) {
    res->alts[0] = inner->alts[0];
    res->alts[0].rhs = core_opt_simpl_rebuild_case(O, inner->alts[0].rhs, e);
    return res;
  }
  BindVec jps = {0};
  CoreExpr *shell = copy_node(e);
  shell->alts = LZ_NEW_ARRAY(CoreAlt, e->nalts);
  for (int k = 0; k < e->nalts; k++) {
    CoreAlt *a = &e->alts[k];
    if (core_opt_size(a->rhs, JP_SMALL + 1) <= JP_SMALL)
      shell->alts[k] = *a;
    else
      shell->alts[k] = make_join_point(O, e, a, &jps);
  }
  for (int i = 0; i < inner->nalts; i++) {
    res->alts[i] = inner->alts[i];
    CoreExpr *sh =
        i == inner->nalts - 1 ? shell : core_opt_clone(O, shell, 0, NULL, NULL, 0, NULL, NULL);
    res->alts[i].rhs = core_opt_simpl_rebuild_case(O, inner->alts[i].rhs, sh);
  }
  CoreExpr *r = res;
  for (int k = jps.len - 1; k >= 0; k--)
    r = core_opt_mk_let(jps.data[k].var, jps.data[k].rhs, r);
  return r;
}

/* ---- the case
 * ------------------------------------------------------------------------------------- */

CoreExpr *core_opt_simpl_rebuild_case(Opt *O, CoreExpr *s, CoreExpr *e) {
  if (s->kind == CE_LET) {
    CoreExpr *nl = copy_node(s);
    nl->body = core_opt_simpl_rebuild_case(O, s->body, e);
    O->st.let_float++, O->ticks++;
    return nl;
  }
  Known k;
  if (!O->deep && known_scrut(O, s, &k)) {
    CoreExpr *r = known_case(O, s, &k, e);
    if (r) return r;
  }
  if (s->kind == CE_CASE && !O->deep) return case_of_case(O, s, e);
  CoreVar *b = e->var;
  OptVarInfo *bi = core_opt_vvi(O, b);
  if (e->nalts == 1 && e->alts[0].kind == ALT_DEFAULT) {
    CoreExpr *rhs = e->alts[0].rhs;
    bool unl = core_type_unlifted(b->type);
    if (bi->occ == 0 && core_opt_ok_for_spec(s) && !core_opt_is_trivial(s)) {
      O->st.case_elim++, O->ticks++;
      return simpl(O, rhs); /* a pure, cheap computation nobody needs */
    }
    if (unl || core_opt_is_evaluated(O, s)) {
      if (bi->occ == 0 && (!unl || core_opt_ok_for_spec(s))) {
        O->st.case_elim++, O->ticks++;
        return simpl(O, rhs);
      }
      if (core_opt_is_trivial(s)) {
        core_opt_set_subst(O, b, copy_trivial(s));
        O->st.case_elim++, O->ticks++;
        return simpl(O, rhs);
      }
      if (!unl && core_opt_is_value(s)) {
        core_opt_set_bind_info(O, b, s);
        O->st.case_elim++, O->ticks++;
        return core_opt_mk_let(b, s, simpl(O, rhs));
      }
    }
    if (s->kind == CE_LIT && bi->occ == 0) { /* evaluating a literal does nothing */
      O->st.case_elim++, O->ticks++;
      return simpl(O, rhs);
    }
    /* for folding through the binder */
    if (s->kind == CE_PRIMOP || s->kind == CE_LIT) bi->unfold = s;
  }
  return simpl_alts(O, s, e);
}

CoreExpr *core_opt_simpl_case(Opt *O, CoreExpr *e) {
  CoreExpr *s = simpl(O, e->body);
  return core_opt_simpl_rebuild_case(O, s, e);
}

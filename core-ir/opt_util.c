/* opt_util.c — the optimiser's toolbox: the per-variable side table, small Core
 * constructors, cloning with fresh binders, expression sizes, occurrence analysis and
 * the predicates the passes ask (trivial? a value? safe to speculate? evaluated?).
 *
 * The idea: the optimiser never renames a binder in place. Whatever must exist twice is
 * cloned first, with fresh uniques for every value and type binder inside and a type
 * substitution applied on the way (that is also how a type lambda is instantiated), so
 * the program's binders stay unique and each variable's facts can live in one table
 * indexed by its unique. Occurrence analysis counts, for every binder, how often it
 * is used and whether some use is under a lambda or inside an scc that does not
 * enclose the binder: the two places where moving an expression would duplicate work
 * or move it across a cost centre. See Note [Core optimiser] (docs/notes/core-opt.md).
 */
#include <string.h>

#include "opt_priv.h"

/* ---- side table ---------------------------------------------------------------------- */

/* Entries live in chunks that never move, so a pointer to one stays valid while new
 * variables (and chunks) are created. */
OptVarInfo *core_opt_vi(Opt *O, int uniq) {
  if (uniq < 0) uniq = 0;
  int c = uniq >> OPT_VI_CHUNK_BITS;
  if (c >= O->vi_nchunks) {
    int n = O->vi_nchunks ? O->vi_nchunks : 16;
    while (n <= c)
      n *= 2;
    OptVarInfo **nc = LZ_NEW_ARRAY(OptVarInfo *, n);
    if (O->vi_nchunks) memcpy(nc, O->vi_chunks, sizeof(OptVarInfo *) * (size_t)O->vi_nchunks);
    O->vi_chunks = nc;
    O->vi_nchunks = n;
  }
  if (!O->vi_chunks[c]) O->vi_chunks[c] = LZ_NEW_ARRAY(OptVarInfo, 1 << OPT_VI_CHUNK_BITS);
  if (uniq >= O->vi_cap) O->vi_cap = uniq + 1;
  return &O->vi_chunks[c][uniq & ((1 << OPT_VI_CHUNK_BITS) - 1)];
}

/* ---- constructors --------------------------------------------------------------------- */

CoreExpr *core_opt_mk_let(CoreVar *v, CoreExpr *rhs, CoreExpr *body) {
  CoreExpr *e = core_expr_new(CE_LET, body ? body->span : (LzSpan){0});
  e->rec = false;
  e->binds = LZ_NEW(CoreBind);
  e->binds[0].var = v;
  e->binds[0].rhs = rhs;
  e->nbinds = 1;
  e->body = body;
  return e;
}

CoreExpr *core_opt_mk_case(CoreExpr *scrut, CoreVar *b, CoreType *res, int nalts, CoreAlt *alts) {
  CoreExpr *e = core_expr_new(CE_CASE, scrut ? scrut->span : (LzSpan){0});
  e->body = scrut;
  e->var = b;
  e->type = res;
  e->alts = alts;
  e->nalts = nalts;
  return e;
}

CoreExpr *core_opt_mk_case_default(CoreExpr *scrut, CoreVar *b, CoreType *res, CoreExpr *body) {
  CoreAlt *a = LZ_NEW(CoreAlt);
  a->kind = ALT_DEFAULT;
  a->rhs = body;
  return core_opt_mk_case(scrut, b, res, 1, a);
}

CoreVar *core_opt_fresh_var(const char *name, CoreType *t) {
  return core_var_new(lz_sym(name), t, (LzSpan){0});
}

CoreExpr *core_opt_mk_apps(CoreExpr *head, int n, CoreExpr **args, CoreType **tys) {
  CoreExpr *e = head;
  for (int i = 0; i < n; i++)
    e = args[i] ? core_app(e, args[i]) : core_tyapp(e, tys[i]);
  return e;
}

/* ---- cloning ----------------------------------------------------------------------------- */

typedef struct Clone {
  Opt *O;
  LZ_VEC(CoreTyVar *) tvs;
  LZ_VEC(CoreType *) tys;
  CoreExpr **vsub; /* indexed like the OptVarInfo table via clone_to == NULL marker */
} Clone;

static CoreType *cl_type(Clone *c, CoreType *t) {
  return c->tvs.len ? core_type_subst(t, c->tvs.len, c->tvs.data, c->tys.data) : t;
}

static CoreVar *cl_binder(Clone *c, CoreVar *v, CoreVar **saved) {
  CoreVar *nv = core_var_new(v->name, cl_type(c, v->type), v->span);
  OptVarInfo *vi = core_opt_vvi(c->O, v);
  *saved = vi->clone_to;
  vi->clone_to = nv;
  return nv;
}

static void cl_unbind(Clone *c, CoreVar *v, CoreVar *saved) {
  core_opt_vvi(c->O, v)->clone_to = saved;
}

static CoreExpr *cl_expr(Clone *c, CoreExpr *e);

static CoreExpr *cl_copy(CoreExpr *e) {
  CoreExpr *n = LZ_NEW(CoreExpr);
  *n = *e;
  return n;
}

static CoreExpr *cl_expr(Clone *c, CoreExpr *e) {
  if (!e) return NULL;
  CoreExpr *n = cl_copy(e);
  switch (e->kind) {
  case CE_VAR: {
    OptVarInfo *vi = core_opt_vvi(c->O, e->var);
    if (vi->clone_to) n->var = vi->clone_to;
    return n;
  }
  case CE_LIT: return n;
  case CE_APP:
    n->fn = cl_expr(c, e->fn);
    n->arg = cl_expr(c, e->arg);
    return n;
  case CE_TYAPP:
    n->fn = cl_expr(c, e->fn);
    n->type = cl_type(c, e->type);
    return n;
  case CE_LAM: {
    CoreVar *saved;
    n->var = cl_binder(c, e->var, &saved);
    n->body = cl_expr(c, e->body);
    cl_unbind(c, e->var, saved);
    return n;
  }
  case CE_TYLAM: {
    CoreTyVar *tv = core_tyvar_new(e->tyvar->name, e->tyvar->kind);
    LZ_PUSH(c->tvs, e->tyvar);
    LZ_PUSH(c->tys, core_type_var(tv));
    n->tyvar = tv;
    n->body = cl_expr(c, e->body);
    c->tvs.len--, c->tys.len--;
    return n;
  }
  case CE_LET: {
    CoreVar **saved = LZ_NEW_ARRAY(CoreVar *, e->nbinds);
    n->binds = LZ_NEW_ARRAY(CoreBind, e->nbinds);
    if (e->rec)
      for (int i = 0; i < e->nbinds; i++)
        n->binds[i].var = cl_binder(c, e->binds[i].var, &saved[i]);
    for (int i = 0; i < e->nbinds; i++) {
      n->binds[i].rhs = cl_expr(c, e->binds[i].rhs);
      if (!e->rec) n->binds[i].var = cl_binder(c, e->binds[i].var, &saved[i]);
    }
    n->body = cl_expr(c, e->body);
    for (int i = e->nbinds - 1; i >= 0; i--)
      cl_unbind(c, e->binds[i].var, saved[i]);
    return n;
  }
  case CE_CASE: {
    n->body = cl_expr(c, e->body);
    n->type = cl_type(c, e->type);
    CoreVar *sb;
    n->var = cl_binder(c, e->var, &sb);
    n->alts = LZ_NEW_ARRAY(CoreAlt, e->nalts);
    for (int i = 0; i < e->nalts; i++) {
      CoreAlt *a = &e->alts[i], *na = &n->alts[i];
      *na = *a;
      int ar = a->kind == ALT_CON ? a->con->arity : 0;
      CoreVar **saved = NULL;
      if (ar > 0) {
        na->vars = LZ_NEW_ARRAY(CoreVar *, ar);
        saved = LZ_NEW_ARRAY(CoreVar *, ar);
        for (int j = 0; j < ar; j++)
          na->vars[j] = cl_binder(c, a->vars[j], &saved[j]);
      }
      na->rhs = cl_expr(c, a->rhs);
      for (int j = ar - 1; j >= 0; j--)
        cl_unbind(c, a->vars[j], saved[j]);
    }
    cl_unbind(c, e->var, sb);
    return n;
  }
  case CE_CON:
    if (e->ntyargs) {
      n->tyargs = LZ_NEW_ARRAY(CoreType *, e->ntyargs);
      for (int i = 0; i < e->ntyargs; i++)
        n->tyargs[i] = cl_type(c, e->tyargs[i]);
    }
    /* fall through */
  case CE_PRIMOP:
    if (e->kind == CE_PRIMOP) n->type = cl_type(c, e->type);
    if (e->nargs) {
      n->args = LZ_NEW_ARRAY(CoreExpr *, e->nargs);
      for (int i = 0; i < e->nargs; i++)
        n->args[i] = cl_expr(c, e->args[i]);
    }
    return n;
  case CE_CAST:
    n->type = cl_type(c, e->type);
    n->body = cl_expr(c, e->body);
    return n;
  case CE_SCC: n->body = cl_expr(c, e->body); return n;
  }
  return n;
}

CoreExpr *core_opt_clone(Opt *O, CoreExpr *e, int ntv, CoreTyVar **tvs, CoreType **tys, int nv,
                         CoreVar **vars, CoreExpr **vsub) {
  Clone c = {0};
  c.O = O;
  for (int i = 0; i < ntv; i++) {
    LZ_PUSH(c.tvs, tvs[i]);
    LZ_PUSH(c.tys, tys[i]);
  }
  /* Value substitutions go through clone_to when the replacement is a variable; other
   * trivial replacements are handled by a let the caller's simplifier removes. */
  CoreVar **saved = nv ? LZ_NEW_ARRAY(CoreVar *, nv) : NULL;
  for (int i = 0; i < nv; i++) {
    OptVarInfo *vi = core_opt_vvi(O, vars[i]);
    saved[i] = vi->clone_to;
    vi->clone_to = vsub[i]->var;
  }
  CoreExpr *r = cl_expr(&c, e);
  for (int i = nv - 1; i >= 0; i--)
    core_opt_vvi(O, vars[i])->clone_to = saved[i];
  core_opt_occ_expr(O, r);
  return r;
}

/* ---- sizes ---------------------------------------------------------------------------------- */

static int size_rec(const CoreExpr *e, int acc, int limit) {
  while (e && acc <= limit) {
    switch (e->kind) {
    case CE_VAR:
    case CE_LIT: return acc + 1;
    case CE_APP:
      acc = size_rec(e->arg, acc + 1, limit);
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
      acc++;
      e = e->body;
      break;
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++)
        acc = size_rec(e->binds[i].rhs, acc + 1, limit);
      e = e->body;
      break;
    case CE_CASE:
      acc = size_rec(e->body, acc + 1, limit);
      for (int i = 0; i < e->nalts; i++)
        acc = size_rec(e->alts[i].rhs, acc + 1, limit);
      return acc;
    case CE_CON:
    case CE_PRIMOP:
      acc++;
      for (int i = 0; i < e->nargs; i++)
        acc = size_rec(e->args[i], acc, limit);
      return acc;
    }
  }
  return acc;
}

int core_opt_size(const CoreExpr *e, int limit) { return size_rec(e, 0, limit); }

/* ---- occurrence analysis ------------------------------------------------------------------------
 */

typedef struct Occ {
  Opt *O;
  int lam, scc;
} Occ;

static void occ_bind(Occ *c, CoreVar *v) {
  OptVarInfo *vi = core_opt_vvi(c->O, v);
  vi->occ = 0;
  vi->self_occ = 0;
  vi->flags &= ~(unsigned)(VI_IN_LAM | VI_IN_SCC | VI_LETREC);
  vi->lam_depth = c->lam;
  vi->scc_depth = c->scc;
}

static void occ_expr(Occ *c, CoreExpr *e) {
  while (e) {
    switch (e->kind) {
    case CE_VAR: {
      OptVarInfo *vi = core_opt_vvi(c->O, e->var);
      vi->occ++;
      if (!e->var->global) {
        if (c->lam > vi->lam_depth) vi->flags |= VI_IN_LAM;
        if (c->scc > vi->scc_depth) vi->flags |= VI_IN_SCC;
      }
      return;
    }
    case CE_LIT: return;
    case CE_APP:
      occ_expr(c, e->arg);
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
      c->lam++;
      occ_bind(c, e->var);
      occ_expr(c, e->body);
      c->lam--;
      return;
    case CE_TYLAM:
    case CE_CAST: e = e->body; break;
    case CE_SCC:
      c->scc++;
      occ_expr(c, e->body);
      c->scc--;
      return;
    case CE_LET:
      if (e->rec) {
        for (int i = 0; i < e->nbinds; i++) {
          occ_bind(c, e->binds[i].var);
          core_opt_vvi(c->O, e->binds[i].var)->flags |= VI_LETREC;
        }
        /* occurrences in the right-hand sides of a recursive group are "self" ones;
         * a right-hand side may run many times, so treat it as under a lambda */
        c->lam++;
        for (int i = 0; i < e->nbinds; i++)
          occ_expr(c, e->binds[i].rhs);
        c->lam--;
        for (int i = 0; i < e->nbinds; i++) {
          OptVarInfo *vi = core_opt_vvi(c->O, e->binds[i].var);
          vi->self_occ = vi->occ;
        }
      } else {
        occ_expr(c, e->binds[0].rhs);
        occ_bind(c, e->binds[0].var);
      }
      e = e->body;
      break;
    case CE_CASE:
      occ_expr(c, e->body);
      occ_bind(c, e->var);
      for (int i = 0; i < e->nalts; i++) {
        CoreAlt *a = &e->alts[i];
        if (a->kind == ALT_CON)
          for (int j = 0; j < a->con->arity; j++)
            occ_bind(c, a->vars[j]);
        occ_expr(c, a->rhs);
      }
      return;
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++)
        occ_expr(c, e->args[i]);
      return;
    }
  }
}

void core_opt_occ_expr(Opt *O, CoreExpr *e) {
  Occ c = {O, 0, 0};
  occ_expr(&c, e);
}

void core_opt_occ_program(Opt *O) {
  CoreProgram *p = O->p;
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      OptVarInfo *vi = core_opt_vvi(O, p->groups.data[g].binds[i].var);
      vi->occ = vi->self_occ = 0;
    }
  if (p->main) core_opt_vvi(O, p->main)->occ++; /* the runtime uses main */
  for (int g = 0; g < p->groups.len; g++) {
    CoreBindGroup *grp = &p->groups.data[g];
    for (int i = 0; i < grp->nbinds; i++) {
      int before[64];
      int n = grp->rec && grp->nbinds <= 64 ? grp->nbinds : 0;
      for (int j = 0; j < n; j++)
        before[j] = core_opt_vvi(O, grp->binds[j].var)->occ;
      core_opt_occ_expr(O, grp->binds[i].rhs);
      for (int j = 0; j < n; j++) {
        OptVarInfo *vj = core_opt_vvi(O, grp->binds[j].var);
        vj->self_occ += vj->occ - before[j];
      }
    }
  }
}

static bool mentions_rec(const CoreExpr *e, int u) {
  while (e) {
    switch (e->kind) {
    case CE_VAR: return e->var->uniq == u;
    case CE_LIT: return false;
    case CE_APP:
      if (mentions_rec(e->arg, u)) return true;
      e = e->fn;
      break;
    case CE_TYAPP: e = e->fn; break;
    case CE_LAM:
    case CE_TYLAM:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_LET:
      for (int i = 0; i < e->nbinds; i++)
        if (mentions_rec(e->binds[i].rhs, u)) return true;
      e = e->body;
      break;
    case CE_CASE:
      if (mentions_rec(e->body, u)) return true;
      for (int i = 0; i < e->nalts; i++)
        if (mentions_rec(e->alts[i].rhs, u)) return true;
      return false;
    case CE_CON:
    case CE_PRIMOP:
      for (int i = 0; i < e->nargs; i++)
        if (mentions_rec(e->args[i], u)) return true;
      return false;
    }
  }
  return false;
}

bool core_opt_mentions(const CoreExpr *e, int uniq) { return mentions_rec(e, uniq); }

/* ---- predicates
 * ------------------------------------------------------------------------------------ */

bool core_opt_is_trivial(const CoreExpr *e) {
  while (e) {
    switch (e->kind) {
    case CE_VAR: return true;
    case CE_LIT: return e->lit.kind != CL_STRING;
    case CE_TYAPP: e = e->fn; break;
    case CE_CAST: e = e->body; break;
    case CE_CON: return e->nargs == 0;
    case CE_PRIMOP: return e->primop == P_REALWORLD;
    default: return false;
    }
  }
  return false;
}

bool core_opt_is_value(const CoreExpr *e) {
  while (e && (e->kind == CE_CAST || e->kind == CE_TYLAM))
    e = e->body;
  return e && (e->kind == CE_LAM || e->kind == CE_CON || e->kind == CE_LIT);
}

bool core_opt_is_lambda(const CoreExpr *e) {
  while (e && (e->kind == CE_CAST || e->kind == CE_TYLAM))
    e = e->body;
  return e && e->kind == CE_LAM;
}

bool core_opt_ok_for_spec(const CoreExpr *e) {
  while (e && e->kind == CE_CAST)
    e = e->body;
  if (!e) return false;
  if (core_opt_is_trivial(e)) return true;
  if (e->kind == CE_LIT) return true;
  if (e->kind == CE_PRIMOP) {
    if (e->primop < 0 || e->primop >= PRIMOP_COUNT) return false;
    if (core_primops[e->primop].flags != PRIM_PURE) return false;
    if (e->primop == P_ADDR_INDEX_CHAR || e->primop == P_DATA_TO_TAG) return false;
    for (int i = 0; i < e->nargs; i++) {
      const CoreExpr *a = e->args[i];
      if (!core_opt_is_trivial(a) && !(a->kind == CE_LIT)) return false;
    }
    return true;
  }
  return false;
}

bool core_opt_is_evaluated(Opt *O, const CoreExpr *e) {
  for (int guard = 0; e && guard < 1000; guard++) {
    switch (e->kind) {
    case CE_LIT:
      /* Integer literals become top-level CAFs in stg/: keep their evaluation */
      return e->lit.kind != CL_INTEGER;
    case CE_LAM:
    case CE_CON: return true;
    case CE_TYLAM:
    case CE_CAST: e = e->body; break;
    case CE_TYAPP: e = e->fn; break;
    case CE_VAR: {
      if (core_type_unlifted(e->var->type)) return true;
      OptVarInfo *vi = core_opt_vvi(O, e->var);
      if (vi->flags & VI_EVALUATED) return true;
      if (e->var->global && vi->gbind) return core_opt_is_value(vi->gbind->rhs);
      return false;
    }
    default: return false;
    }
  }
  return false;
}

int core_opt_lam_arity(const CoreExpr *e) {
  int n = 0;
  while (e && (e->kind == CE_LAM || e->kind == CE_TYLAM || e->kind == CE_CAST)) {
    if (e->kind == CE_LAM) n++;
    e = e->body;
  }
  return n;
}

bool core_opt_is_bottom(Opt *O, const CoreExpr *e) {
  for (int guard = 0; e && guard < 10000; guard++) {
    switch (e->kind) {
    case CE_PRIMOP: return e->primop == P_RAISE_ERROR;
    case CE_LET:
    case CE_CAST:
    case CE_SCC: e = e->body; break;
    case CE_CASE:
      if (core_opt_is_bottom(O, e->body)) return true;
      for (int i = 0; i < e->nalts; i++)
        if (!core_opt_is_bottom(O, e->alts[i].rhs)) return false;
      return true;
    case CE_APP:
    case CE_TYAPP: {
      int n = 0;
      const CoreExpr *h = e;
      for (; h->kind == CE_APP || h->kind == CE_TYAPP; h = h->fn)
        n += h->kind == CE_APP;
      if (h->kind != CE_VAR || !h->var->global) return false;
      OptVarInfo *vi = core_opt_vvi(O, h->var);
      return (vi->flags & VI_BOTTOM) && n >= vi->arity;
    }
    case CE_VAR: {
      OptVarInfo *vi = core_opt_vvi(O, e->var);
      return e->var->global && (vi->flags & VI_BOTTOM) && vi->arity == 0;
    }
    default: return false;
    }
  }
  return false;
}

bool core_opt_type_unlifted_under_foralls(const CoreType *t) {
  while (t && t->kind == CT_FORALL)
    t = t->body;
  return core_type_unlifted(t);
}

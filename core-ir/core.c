/* core.c — constructors for Core, the built-in and primitive type constructors, and
 * the type utilities every Core pass needs (substitution, alpha-equivalence, the type
 * of an expression).
 *
 * The idea: Core nodes are plain arena records and the constructors here are thin; the
 * only state is a unique counter and a cache of the built-in type constructors (list,
 * unit, tuples, Int#, ...), which are made on first use in each compilation and
 * forgotten by core_reset (the arena they live in is freed by lz_reset). Types are
 * compared up to renaming of forall-bound variables, and substitution renames a
 * forall binder only when it would capture a substituted type's free variable.
 * See Note [Core] in docs/notes/core.md.
 */
#include "core.h"

#include <string.h>

/* ---- uniques, kinds, type variables ------------------------------------------------ */

static int next_uniq;

int core_fresh_uniq(void) { return ++next_uniq; }

/* Kinds are immutable, so star is one static node that survives lz_reset. */
static CoreKind star_kind = {CK_STAR, NULL, NULL};

CoreKind *core_kind_star(void) { return &star_kind; }

CoreKind *core_kind_arrow(CoreKind *a, CoreKind *r) {
  CoreKind *k = LZ_NEW(CoreKind);
  k->kind = CK_ARROW;
  k->arg = a ? a : &star_kind;
  k->res = r ? r : &star_kind;
  return k;
}

CoreTyVar *core_tyvar_new(Sym name, CoreKind *k) {
  CoreTyVar *v = LZ_NEW(CoreTyVar);
  v->name = name;
  v->uniq = core_fresh_uniq();
  v->kind = k ? k : &star_kind;
  return v;
}

/* ---- types -------------------------------------------------------------------------- */

static CoreType *type_new(CoreTypeKind kind) {
  CoreType *t = LZ_NEW(CoreType);
  t->kind = kind;
  return t;
}

CoreType *core_type_var(CoreTyVar *v) {
  CoreType *t = type_new(CT_VAR);
  t->var = v;
  return t;
}

CoreType *core_type_con(CoreTyCon *c) {
  CoreType *t = type_new(CT_CON);
  t->con = c;
  return t;
}

CoreType *core_type_app(CoreType *f, CoreType *a) {
  CoreType *t = type_new(CT_APP);
  t->fn = f;
  t->arg = a;
  return t;
}

CoreType *core_type_fun(CoreType *a, CoreType *r) {
  CoreType *t = type_new(CT_FUN);
  t->arg = a;
  t->res = r;
  return t;
}

CoreType *core_type_forall(CoreTyVar *v, CoreType *body) {
  CoreType *t = type_new(CT_FORALL);
  t->var = v;
  t->body = body;
  return t;
}

CoreType *core_type_apply_con(CoreTyCon *c, int n, CoreType **args) {
  CoreType *t = core_type_con(c);
  for (int i = 0; i < n; i++)
    t = core_type_app(t, args[i]);
  return t;
}

static bool same_tyvar(const CoreTyVar *a, const CoreTyVar *b) {
  return a == b || (a && b && a->uniq != 0 && a->uniq == b->uniq);
}

/* Primitive tycons are equal by name too, in case a pass made its own Int#. */
static bool same_tycon(const CoreTyCon *a, const CoreTyCon *b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->uniq != 0 && a->uniq == b->uniq) return true;
  return a->sort == TC_PRIM && b->sort == TC_PRIM && a->name == b->name;
}

static bool occurs_free(const CoreTyVar *v, const CoreType *t) {
  while (t) {
    switch (t->kind) {
    case CT_VAR: return same_tyvar(v, t->var);
    case CT_CON: return false;
    case CT_APP:
      if (occurs_free(v, t->fn)) return true;
      t = t->arg;
      break;
    case CT_FUN:
      if (occurs_free(v, t->arg)) return true;
      t = t->res;
      break;
    case CT_FORALL:
      if (same_tyvar(v, t->var)) return false;
      t = t->body;
      break;
    }
  }
  return false;
}

CoreType *core_type_subst(CoreType *t, int n, CoreTyVar **vars, CoreType **tys) {
  if (!t || n == 0) return t;
  switch (t->kind) {
  case CT_VAR:
    for (int i = 0; i < n; i++)
      if (same_tyvar(vars[i], t->var)) return tys[i];
    return t;
  case CT_CON: return t;
  case CT_APP: {
    CoreType *f = core_type_subst(t->fn, n, vars, tys);
    CoreType *a = core_type_subst(t->arg, n, vars, tys);
    return f == t->fn && a == t->arg ? t : core_type_app(f, a);
  }
  case CT_FUN: {
    CoreType *a = core_type_subst(t->arg, n, vars, tys);
    CoreType *r = core_type_subst(t->res, n, vars, tys);
    return a == t->arg && r == t->res ? t : core_type_fun(a, r);
  }
  case CT_FORALL: {
    /* Drop a substitution the binder shadows; rename the binder if it would capture a
     * free variable of a substituted type. */
    CoreTyVar **nv = LZ_NEW_ARRAY(CoreTyVar *, n + 1);
    CoreType **nt = LZ_NEW_ARRAY(CoreType *, n + 1);
    int m = 0;
    bool capture = false;
    for (int i = 0; i < n; i++) {
      if (same_tyvar(vars[i], t->var)) continue;
      nv[m] = vars[i];
      nt[m++] = tys[i];
      if (occurs_free(t->var, tys[i])) capture = true;
    }
    CoreTyVar *bv = t->var;
    if (capture && bv) {
      bv = core_tyvar_new(t->var->name, t->var->kind);
      nv[m] = t->var;
      nt[m++] = core_type_var(bv);
    }
    CoreType *b = core_type_subst(t->body, m, nv, nt);
    return b == t->body && bv == t->var ? t : core_type_forall(bv, b);
  }
  }
  return t;
}

/* Alpha-equivalence: env pairs the forall binders of a with those of b. */
typedef struct TyEnv {
  const CoreTyVar *a, *b;
  const struct TyEnv *next;
} TyEnv;

static bool type_eq(const CoreType *a, const CoreType *b, const TyEnv *env) {
  for (;;) {
    if (a == b && !env) return true;
    if (!a || !b || a->kind != b->kind) return false;
    switch (a->kind) {
    case CT_VAR:
      for (const TyEnv *e = env; e; e = e->next) {
        bool ma = same_tyvar(e->a, a->var), mb = same_tyvar(e->b, b->var);
        if (ma || mb) return ma && mb;
      }
      return same_tyvar(a->var, b->var);
    case CT_CON: return same_tycon(a->con, b->con);
    case CT_APP:
      if (!type_eq(a->fn, b->fn, env)) return false;
      a = a->arg, b = b->arg;
      break;
    case CT_FUN:
      if (!type_eq(a->arg, b->arg, env)) return false;
      a = a->res, b = b->res;
      break;
    case CT_FORALL: {
      if (!a->var || !b->var) return false;
      TyEnv e = {a->var, b->var, env};
      return type_eq(a->body, b->body, &e);
    }
    }
  }
}

bool core_type_equal(const CoreType *a, const CoreType *b) { return type_eq(a, b, NULL); }

CoreType *core_con_field_type(CoreDataCon *c, int i, CoreType **tyargs) {
  if (!c || i < 0 || i >= c->arity || !c->fields) return NULL;
  CoreTyCon *tc = c->tycon;
  return core_type_subst(c->fields[i], tc ? tc->arity : 0, tc ? tc->params : NULL, tyargs);
}

/* ---- built-in type constructors ------------------------------------------------------ */

#define MAX_TUPLE 62

static CoreTyCon *list_tc, *unit_tc, *tuple_tc[MAX_TUPLE + 1];
static CoreTyCon *prim_tc[6];
static const char *const prim_names[6] = {"Int#", "Double#", "Char#", "Addr#", "World#", "Integer"};

static CoreTyCon *tycon_new(Sym name, Sym module, CoreTyConSort sort, int arity) {
  CoreTyCon *tc = LZ_NEW(CoreTyCon);
  tc->name = name;
  tc->module = module;
  tc->sort = sort;
  tc->arity = arity;
  tc->params = LZ_NEW_ARRAY(CoreTyVar *, arity > 0 ? arity : 1);
  CoreKind *k = core_kind_star();
  for (int i = arity - 1; i >= 0; i--) {
    const char *pn = i < 26 ? lz_fmt("%c", 'a' + i) : lz_fmt("t%d", i);
    tc->params[i] = core_tyvar_new(lz_sym(pn), core_kind_star());
    k = core_kind_arrow(core_kind_star(), k);
  }
  tc->kind = k;
  tc->uniq = core_fresh_uniq();
  return tc;
}

static CoreDataCon *datacon_new(CoreTyCon *tc, Sym name, int arity) {
  CoreDataCon *c = LZ_NEW(CoreDataCon);
  c->name = name;
  c->tycon = tc;
  c->tag = tc->ncons;
  c->arity = arity;
  c->fields = LZ_NEW_ARRAY(CoreType *, arity > 0 ? arity : 1);
  c->strict = LZ_NEW_ARRAY(bool, arity > 0 ? arity : 1);
  c->labels = LZ_NEW_ARRAY(Sym, arity > 0 ? arity : 1);
  c->uniq = core_fresh_uniq();
  tc->cons[tc->ncons++] = c;
  return c;
}

/* The type tc a1 .. an over tc's own parameters. */
static CoreType *tycon_self_type(CoreTyCon *tc) {
  CoreType **args = LZ_NEW_ARRAY(CoreType *, tc->arity > 0 ? tc->arity : 1);
  for (int i = 0; i < tc->arity; i++)
    args[i] = core_type_var(tc->params[i]);
  return core_type_apply_con(tc, tc->arity, args);
}

CoreTyCon *core_list_tycon(void) {
  if (list_tc) return list_tc;
  CoreTyCon *tc = tycon_new(lz_sym("[]"), NULL, TC_DATA, 1);
  tc->cons = LZ_NEW_ARRAY(CoreDataCon *, 2);
  datacon_new(tc, lz_sym("[]"), 0);
  CoreDataCon *cons = datacon_new(tc, lz_sym(":"), 2);
  cons->fields[0] = core_type_var(tc->params[0]);
  cons->fields[1] = tycon_self_type(tc);
  return list_tc = tc;
}

CoreTyCon *core_unit_tycon(void) {
  if (unit_tc) return unit_tc;
  CoreTyCon *tc = tycon_new(lz_sym("()"), NULL, TC_DATA, 0);
  tc->cons = LZ_NEW_ARRAY(CoreDataCon *, 1);
  datacon_new(tc, lz_sym("()"), 0);
  return unit_tc = tc;
}

CoreTyCon *core_tuple_tycon(int n) {
  if (n < 2 || n > MAX_TUPLE) return NULL;
  if (tuple_tc[n]) return tuple_tc[n];
  char name[MAX_TUPLE + 2];
  name[0] = '(';
  memset(name + 1, ',', (size_t)(n - 1));
  name[n] = ')';
  name[n + 1] = 0;
  CoreTyCon *tc = tycon_new(lz_sym(name), NULL, TC_DATA, n);
  tc->cons = LZ_NEW_ARRAY(CoreDataCon *, 1);
  CoreDataCon *c = datacon_new(tc, tc->name, n);
  for (int i = 0; i < n; i++)
    c->fields[i] = core_type_var(tc->params[i]);
  return tuple_tc[n] = tc;
}

CoreTyCon *core_prim_tycon(const char *name) {
  if (!name) return NULL;
  for (int i = 0; i < 6; i++) {
    if (strcmp(name, prim_names[i]) != 0) continue;
    if (!prim_tc[i]) {
      prim_tc[i] = tycon_new(lz_sym(prim_names[i]), lz_sym("Lz.Base"), TC_PRIM, 0);
      prim_tc[i]->unlifted = i < 5; /* all but Integer */
    }
    return prim_tc[i];
  }
  return NULL;
}

CoreType *core_lit_type(const CoreLit *l) {
  static const char *const names[] = {[CL_INT] = "Int#",
                                      [CL_DOUBLE] = "Double#",
                                      [CL_CHAR] = "Char#",
                                      [CL_STRING] = "Addr#",
                                      [CL_INTEGER] = "Integer"};
  if (!l || (unsigned)l->kind > CL_INTEGER) return NULL;
  return core_type_con(core_prim_tycon(names[l->kind]));
}

void core_reset(void) {
  next_uniq = 0;
  list_tc = unit_tc = NULL;
  memset(tuple_tc, 0, sizeof tuple_tc);
  memset(prim_tc, 0, sizeof prim_tc);
}

/* ---- variables and expressions --------------------------------------------------------- */

CoreVar *core_var_new(Sym name, CoreType *type, LzSpan span) {
  CoreVar *v = LZ_NEW(CoreVar);
  v->name = name;
  v->uniq = core_fresh_uniq();
  v->type = type;
  v->span = span;
  return v;
}

CoreExpr *core_expr_new(CoreExprKind kind, LzSpan span) {
  CoreExpr *e = LZ_NEW(CoreExpr);
  e->kind = kind;
  e->span = span;
  return e;
}

CoreExpr *core_var(CoreVar *v) {
  CoreExpr *e = core_expr_new(CE_VAR, (LzSpan){0});
  e->var = v;
  return e;
}

CoreExpr *core_app(CoreExpr *f, CoreExpr *a) {
  CoreExpr *e =
      core_expr_new(CE_APP, lz_span_join(f ? f->span : (LzSpan){0}, a ? a->span : (LzSpan){0}));
  e->fn = f;
  e->arg = a;
  return e;
}

CoreExpr *core_tyapp(CoreExpr *f, CoreType *t) {
  CoreExpr *e = core_expr_new(CE_TYAPP, f ? f->span : (LzSpan){0});
  e->fn = f;
  e->type = t;
  return e;
}

CoreExpr *core_lam(CoreVar *v, CoreExpr *body) {
  CoreExpr *e = core_expr_new(CE_LAM, body ? body->span : (LzSpan){0});
  e->var = v;
  e->body = body;
  return e;
}

CoreExpr *core_tylam(CoreTyVar *tv, CoreExpr *body) {
  CoreExpr *e = core_expr_new(CE_TYLAM, body ? body->span : (LzSpan){0});
  e->tyvar = tv;
  e->body = body;
  return e;
}

/* ---- the type of an expression ----------------------------------------------------------- */

/* Application spines and let/scc bodies are walked in loops, so a long argument list or
 * a long chain of lets does not cost C stack. */
CoreType *core_expr_type(CoreExpr *e) {
  while (e) {
    switch (e->kind) {
    case CE_VAR: return e->var ? e->var->type : NULL;
    case CE_LIT: return core_lit_type(&e->lit);
    case CE_APP:
    case CE_TYAPP: {
      int n = 0;
      CoreExpr *h = e;
      for (; h && (h->kind == CE_APP || h->kind == CE_TYAPP); h = h->fn)
        n++;
      CoreExpr *small[32];
      CoreExpr **spine = n <= 32 ? small : LZ_NEW_ARRAY(CoreExpr *, n);
      int i = n;
      for (CoreExpr *x = e; x != h; x = x->fn)
        spine[--i] = x;
      CoreType *t = core_expr_type(h);
      for (i = 0; i < n && t; i++) {
        if (spine[i]->kind == CE_APP) {
          t = t->kind == CT_FUN ? t->res : NULL;
        } else if (t->kind == CT_FORALL) {
          t = core_type_subst(t->body, 1, &t->var, &spine[i]->type);
        } else {
          t = NULL;
        }
      }
      return t;
    }
    case CE_LAM: {
      CoreType *b = core_expr_type(e->body);
      return b && e->var ? core_type_fun(e->var->type, b) : NULL;
    }
    case CE_TYLAM: {
      CoreType *b = core_expr_type(e->body);
      return b ? core_type_forall(e->tyvar, b) : NULL;
    }
    case CE_LET:
    case CE_SCC: e = e->body; break;
    case CE_CASE:
    case CE_PRIMOP:
    case CE_CAST: return e->type;
    case CE_CON:
      if (!e->con || !e->con->tycon) return NULL;
      return core_type_apply_con(e->con->tycon, e->ntyargs, e->tyargs);
    }
  }
  return NULL;
}

/* core_fixture.h — the hand-built world of Core types shared by the core-ir unit tests
 * (test_core.c, test_core_lint.c): Int = I# Int#, Bool, Maybe, lists, IO as a newtype
 * over World# -> IORes a, a Functor dictionary with a polymorphic field, a newtype Age,
 * a data type Box with a strict field; small constructors for Core expressions; and a
 * lint runner that captures the linter's report in memory. Helpers are static inline
 * so each test file uses what it needs. */
#ifndef LZ_TEST_CORE_FIXTURE_H
#define LZ_TEST_CORE_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core.h"

/* ---- fixture --------------------------------------------------------------------------- */

typedef struct World {
  CoreTyCon *intp, *charp, *world, *integer; /* primitives */
  CoreTyCon *int_, *bool_, *maybe, *list, *io, *iores, *functor, *age, *box, *unit;
  CoreDataCon *ihash, *false_, *true_, *nothing, *just, *nil, *cons, *iocon, *ioresc, *cfunctor,
      *agecon, *boxcon, *unitc;
  CoreProgram *p;
} World;

static World W;
static char *lint_out;
static size_t lint_len;
static FILE *lint_file;

static inline CoreType *T(CoreTyCon *c) { return core_type_con(c); }
static inline CoreType *TV(CoreTyVar *v) { return core_type_var(v); }
static inline CoreType *TA(CoreTyCon *c, CoreType *a) { return core_type_apply_con(c, 1, &a); }
static inline CoreType *FN(CoreType *a, CoreType *r) { return core_type_fun(a, r); }
static inline CoreTyVar *tv(const char *n) { return core_tyvar_new(lz_sym(n), NULL); }
static inline CoreType *INT(void) { return T(W.int_); }

static inline CoreTyCon *mk_tycon(const char *name, CoreTyConSort sort, int arity,
                                  CoreTyVar **params) {
  CoreTyCon *tc = LZ_NEW(CoreTyCon);
  tc->name = lz_sym(name);
  tc->module = lz_sym("Lz.Base");
  tc->sort = sort;
  tc->arity = arity;
  tc->params = LZ_NEW_ARRAY(CoreTyVar *, arity + 1);
  CoreKind *k = core_kind_star();
  for (int i = arity - 1; i >= 0; i--) {
    tc->params[i] = params[i];
    k = core_kind_arrow(params[i]->kind, k);
  }
  tc->kind = k;
  tc->cons = LZ_NEW_ARRAY(CoreDataCon *, 4);
  tc->uniq = core_fresh_uniq();
  LZ_PUSH(W.p->tycons, tc);
  return tc;
}

static inline CoreDataCon *mk_con(CoreTyCon *tc, const char *name, int arity, CoreType **fields) {
  CoreDataCon *c = LZ_NEW(CoreDataCon);
  c->name = lz_sym(name);
  c->tycon = tc;
  c->tag = tc->ncons;
  c->arity = arity;
  c->fields = LZ_NEW_ARRAY(CoreType *, arity + 1);
  c->strict = LZ_NEW_ARRAY(bool, arity + 1);
  c->labels = LZ_NEW_ARRAY(Sym, arity + 1);
  for (int i = 0; i < arity; i++)
    c->fields[i] = fields[i];
  c->uniq = core_fresh_uniq();
  tc->cons[tc->ncons++] = c;
  return c;
}

static inline CoreExpr *con_app(CoreDataCon *c, int ntys, CoreType **tys, int n, CoreExpr **args) {
  CoreExpr *e = core_expr_new(CE_CON, (LzSpan){0});
  e->con = c;
  e->ntyargs = ntys;
  e->tyargs = LZ_NEW_ARRAY(CoreType *, ntys + 1);
  for (int i = 0; i < ntys; i++)
    e->tyargs[i] = tys[i];
  e->nargs = n;
  e->args = LZ_NEW_ARRAY(CoreExpr *, n + 1);
  for (int i = 0; i < n; i++)
    e->args[i] = args[i];
  return e;
}
static inline CoreExpr *con0(CoreDataCon *c) { return con_app(c, 0, NULL, 0, NULL); }

static inline CoreExpr *lit_int(int64_t i) {
  CoreExpr *e = core_expr_new(CE_LIT, (LzSpan){0});
  e->lit.kind = CL_INT;
  e->lit.i = i;
  return e;
}
static inline CoreExpr *boxed(int64_t i) {
  return con_app(W.ihash, 0, NULL, 1, (CoreExpr *[]){lit_int(i)});
}

static inline CoreVar *local(const char *name, CoreType *t) {
  return core_var_new(lz_sym(name), t, (LzSpan){0});
}

static inline CoreVar *global(const char *name, CoreType *t) {
  CoreVar *v = local(name, t);
  v->global = true;
  v->module = lz_sym("Main");
  return v;
}

static inline CoreAlt alt_con(CoreDataCon *c, CoreVar **vars, CoreExpr *rhs) {
  CoreAlt a = {ALT_CON, c, NULL, {0}, rhs};
  a.vars = LZ_NEW_ARRAY(CoreVar *, c->arity + 1);
  for (int i = 0; i < c->arity; i++)
    a.vars[i] = vars[i];
  return a;
}
static inline CoreAlt alt_lit(int64_t i, CoreExpr *rhs) {
  CoreAlt a = {ALT_LIT, NULL, NULL, {0}, rhs};
  a.lit.kind = CL_INT;
  a.lit.i = i;
  return a;
}
static inline CoreAlt alt_default(CoreExpr *rhs) {
  return (CoreAlt){ALT_DEFAULT, NULL, NULL, {0}, rhs};
}

static inline CoreExpr *mk_case(CoreExpr *scrut, CoreVar *b, CoreType *res, int n, CoreAlt *alts) {
  CoreExpr *e = core_expr_new(CE_CASE, (LzSpan){0});
  e->body = scrut;
  e->var = b;
  e->type = res;
  e->nalts = n;
  e->alts = LZ_NEW_ARRAY(CoreAlt, n + 1);
  for (int i = 0; i < n; i++)
    e->alts[i] = alts[i];
  return e;
}

static inline CoreExpr *mk_let(bool rec, CoreVar *v, CoreExpr *rhs, CoreExpr *body) {
  CoreExpr *e = core_expr_new(CE_LET, (LzSpan){0});
  e->rec = rec;
  e->binds = LZ_NEW(CoreBind);
  e->binds[0] = (CoreBind){v, rhs};
  e->nbinds = 1;
  e->body = body;
  return e;
}

static inline CoreExpr *mk_primop(int op, CoreType *res, int n, CoreExpr **args) {
  CoreExpr *e = core_expr_new(CE_PRIMOP, (LzSpan){0});
  e->primop = op;
  e->type = res;
  e->nargs = n;
  e->args = LZ_NEW_ARRAY(CoreExpr *, n + 1);
  for (int i = 0; i < n; i++)
    e->args[i] = args[i];
  return e;
}

static inline CoreExpr *mk_cast(CoreExpr *x, CoreType *to) {
  CoreExpr *e = core_expr_new(CE_CAST, (LzSpan){0});
  e->body = x;
  e->type = to;
  return e;
}

static inline void add_group(bool rec, int n, CoreVar **vars, CoreExpr **rhss) {
  CoreBindGroup g = {rec, LZ_NEW_ARRAY(CoreBind, n), n};
  for (int i = 0; i < n; i++)
    g.binds[i] = (CoreBind){vars[i], rhss[i]};
  LZ_PUSH(W.p->groups, g);
}
static inline void add_bind(CoreVar *v, CoreExpr *rhs) { add_group(false, 1, &v, &rhs); }

/* main = (\ (w :: World#) -> IORes @() w ()) |> IO () */
static inline void add_main(void) {
  CoreType *unit = T(W.unit);
  CoreVar *w = local("w", T(W.world));
  CoreExpr *res = con_app(W.ioresc, 1, &unit, 2, (CoreExpr *[]){core_var(w), con0(W.unitc)});
  CoreVar *m = global("main", TA(W.io, unit));
  add_bind(m, mk_cast(core_lam(w, res), TA(W.io, unit)));
  W.p->main = m;
}

static inline int setup(void **state) {
  (void)state;
  lz_reset();
  core_reset();
  memset(&W, 0, sizeof W);
  W.p = LZ_NEW(CoreProgram);
  W.intp = core_prim_tycon("Int#");
  W.charp = core_prim_tycon("Char#");
  W.world = core_prim_tycon("World#");
  W.integer = core_prim_tycon("Integer");
  W.list = core_list_tycon();
  W.nil = W.list->cons[0];
  W.cons = W.list->cons[1];
  W.unit = core_unit_tycon();
  W.unitc = W.unit->cons[0];
  W.int_ = mk_tycon("Int", TC_DATA, 0, NULL);
  W.ihash = mk_con(W.int_, "I#", 1, (CoreType *[]){T(W.intp)});
  W.bool_ = mk_tycon("Bool", TC_DATA, 0, NULL);
  W.false_ = mk_con(W.bool_, "False", 0, NULL);
  W.true_ = mk_con(W.bool_, "True", 0, NULL);
  CoreTyVar *a = tv("a");
  W.maybe = mk_tycon("Maybe", TC_DATA, 1, &a);
  W.nothing = mk_con(W.maybe, "Nothing", 0, NULL);
  W.just = mk_con(W.maybe, "Just", 1, (CoreType *[]){TV(a)});
  CoreTyVar *r = tv("a");
  W.iores = mk_tycon("IORes", TC_DATA, 1, &r);
  W.ioresc = mk_con(W.iores, "IORes", 2, (CoreType *[]){T(W.world), TV(r)});
  CoreTyVar *i = tv("a");
  W.io = mk_tycon("IO", TC_NEWTYPE, 1, &i);
  W.iocon = mk_con(W.io, "IO", 1, (CoreType *[]){FN(T(W.world), TA(W.iores, TV(i)))});
  /* data Functor f = C:Functor (forall a b. (a -> b) -> f a -> f b) */
  CoreTyVar *f = core_tyvar_new(lz_sym("f"), core_kind_arrow(core_kind_star(), core_kind_star()));
  W.functor = mk_tycon("Functor", TC_DATA, 1, &f);
  W.functor->is_class = true;
  CoreTyVar *fa = tv("a"), *fb = tv("b");
  CoreType *fmap_ty = core_type_forall(
      fa, core_type_forall(fb, FN(FN(TV(fa), TV(fb)),
                                  FN(core_type_app(TV(f), TV(fa)), core_type_app(TV(f), TV(fb))))));
  W.cfunctor = mk_con(W.functor, "C:Functor", 1, &fmap_ty);
  W.age = mk_tycon("Age", TC_NEWTYPE, 0, NULL);
  W.agecon = mk_con(W.age, "Age", 1, (CoreType *[]){INT()});
  /* data Box = Box !Int */
  W.box = mk_tycon("Box", TC_DATA, 0, NULL);
  W.boxcon = mk_con(W.box, "Box", 1, (CoreType *[]){INT()});
  W.boxcon->strict[0] = true;
  W.p->primop_types[P_INT_ADD] = FN(T(W.intp), FN(T(W.intp), T(W.intp)));
  lint_file = open_memstream(&lint_out, &lint_len);
  core_set_lint_stream(lint_file);
  return 0;
}

static inline int teardown(void **state) {
  (void)state;
  core_set_lint_stream(NULL);
  fclose(lint_file);
  free(lint_out);
  lint_out = NULL;
  return 0;
}

static inline int lint(void) {
  int n = core_lint_program(W.p, "test");
  fflush(lint_file);
  if (getenv("SHOW_LINT")) fprintf(stderr, "lint output (%d):\n%s\n", n, lint_out);
  return n;
}

/* Lint must report at least one violation, and its report must contain `needle`. */
static inline void expect_violation(const char *needle) {
  int n = lint();
  if (n == 0 || !strstr(lint_out, needle)) fprintf(stderr, "lint output was:\n%s\n", lint_out);
  assert_true(n > 0);
  assert_non_null(strstr(lint_out, needle));
}

static inline void expect_clean(void) {
  int n = lint();
  if (n) fprintf(stderr, "unexpected lint output:\n%s\n", lint_out);
  assert_int_equal(n, 0);
}

/* ---- well-typed building blocks ---- */

/* id :: forall a. a -> a;  id = /\ a -> \ (x :: a) -> x */
static inline CoreVar *build_id(void) {
  CoreTyVar *a = tv("a");
  CoreVar *x = local("x", TV(a));
  CoreVar *id = global("id", core_type_forall(a, FN(TV(a), TV(a))));
  add_bind(id, core_tylam(a, core_lam(x, core_var(x))));
  return id;
}

/* map :: forall a b. (a -> b) -> [a] -> [b]
 * map = /\ a b -> \ f xs -> case xs of wild { [] -> [] @b; : y ys -> : @b (f y) (map @a @b f ys) }
 */
static inline CoreVar *build_map(void) {
  CoreTyVar *a = tv("a"), *b = tv("b"), *a2 = tv("a"), *b2 = tv("b");
  CoreType *la = TA(W.list, TV(a)), *lb = TA(W.list, TV(b));
  CoreVar *map = global(
      "map",
      core_type_forall(a2, core_type_forall(b2, FN(FN(TV(a2), TV(b2)),
                                                   FN(TA(W.list, TV(a2)), TA(W.list, TV(b2)))))));
  CoreVar *f = local("f", FN(TV(a), TV(b))), *xs = local("xs", la), *wild = local("wild", la);
  CoreVar *y = local("y", TV(a)), *ys = local("ys", la);
  CoreType *tb = TV(b);
  CoreExpr *rec = core_app(
      core_app(core_tyapp(core_tyapp(core_var(map), TV(a)), TV(b)), core_var(f)), core_var(ys));
  CoreExpr *cons =
      con_app(W.cons, 1, &tb, 2, (CoreExpr *[]){core_app(core_var(f), core_var(y)), rec});
  CoreAlt alts[] = {alt_con(W.nil, NULL, con_app(W.nil, 1, &tb, 0, NULL)),
                    alt_con(W.cons, (CoreVar *[]){y, ys}, cons)};
  CoreExpr *body = mk_case(core_var(xs), wild, lb, 2, alts);
  CoreExpr *rhs = core_tylam(a, core_tylam(b, core_lam(f, core_lam(xs, body))));
  add_group(true, 1, &map, &rhs);
  return map;
}

/* plus = \ a b -> case a of a' { I# x -> case b of b' { I# y -> I# (intAdd# x y) } } */
static inline CoreExpr *plus_rhs(CoreExpr **prim_out) {
  CoreVar *a = local("a", INT()), *b = local("b", INT()), *a2 = local("a'", INT()),
          *b2 = local("b'", INT());
  CoreVar *x = local("x", T(W.intp)), *y = local("y", T(W.intp));
  CoreExpr *prim = mk_primop(P_INT_ADD, T(W.intp), 2, (CoreExpr *[]){core_var(x), core_var(y)});
  if (prim_out) *prim_out = prim;
  CoreAlt inner = alt_con(W.ihash, &y, con_app(W.ihash, 0, NULL, 1, &prim));
  CoreAlt outer = alt_con(W.ihash, &x, mk_case(core_var(b), b2, INT(), 1, &inner));
  return core_lam(a, core_lam(b, mk_case(core_var(a), a2, INT(), 1, &outer)));
}

/* isZero = \ (n :: Int#) -> case n of n' { 0# -> True; DEFAULT -> False } */
static inline CoreExpr *is_zero_case(CoreVar **n_out) {
  CoreVar *n = local("n", T(W.intp)), *n2 = local("n'", T(W.intp));
  if (n_out) *n_out = n;
  CoreAlt alts[] = {alt_lit(0, con0(W.true_)), alt_default(con0(W.false_))};
  return mk_case(core_var(n), n2, T(W.bool_), 2, alts);
}

#endif

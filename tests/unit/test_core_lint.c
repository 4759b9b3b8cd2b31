/* test_core_lint.c — the Core linter rejects each kind of broken Core.
 *
 * One test per invariant of core.h: each builds a small program over the fixture of
 * core_fixture.h that breaks exactly that invariant and checks that the linter reports
 * a violation with the expected wording (and, for a few, the exact count). Then
 * robustness: malformed nodes (NULL fields) must be reported rather than crash,
 * reporting stops after 20 violations, and very deep nesting neither crashes the
 * linter nor the printer. */
#include "core_fixture.h"
#include "core_priv.h" /* CORE_MAX_DEPTH */

/* ---- scoping ------------------------------------------------------------------------------- */

static void test_unbound_variable(void **state) {
  (void)state;
  CoreVar *ghost = local("ghost", INT());
  add_bind(global("f", INT()), core_var(ghost));
  add_main();
  expect_violation("in binding ‘f’: variable ‘ghost_");
  assert_non_null(strstr(lint_out, "is not in scope"));
  assert_non_null(strstr(lint_out, "core lint (after test): "));
  assert_non_null(strstr(lint_out, "    in: ghost_"));
}

static void test_variable_out_of_its_scope(void **state) {
  (void)state;
  /* (\x -> x) x : the second x is outside its lambda */
  CoreVar *x = local("x", INT());
  add_bind(global("f", INT()), core_app(core_lam(x, core_var(x)), core_var(x)));
  add_main();
  expect_violation("is not in scope");
}

static void test_binder_rebound(void **state) {
  (void)state;
  CoreVar *x = local("x", INT());
  add_bind(global("f", FN(INT(), FN(INT(), INT()))), core_lam(x, core_lam(x, core_var(x))));
  add_main();
  expect_violation("reuses unique");
}

static void test_global_binder_rebound_and_not_global(void **state) {
  (void)state;
  CoreVar *g = global("g", INT());
  add_bind(g, boxed(1));
  CoreVar *h = local("h", INT());
  h->uniq = g->uniq;
  add_bind(h, boxed(2));
  add_main();
  expect_violation("top-level binder ‘h_");
  assert_non_null(strstr(lint_out, "is not marked global"));
  assert_non_null(strstr(lint_out, "reuses unique"));
}

static void test_nonrec_group_self_reference(void **state) {
  (void)state;
  CoreVar *loop = global("loop", INT());
  add_bind(loop, core_var(loop));
  add_main();
  expect_violation("refers to itself but its binding group is not recursive");
}

static void test_groups_out_of_dependency_order(void **state) {
  (void)state;
  CoreVar *a = global("a", INT()), *b = global("b", INT());
  add_bind(a, core_var(b));
  add_bind(b, boxed(1));
  add_main();
  expect_violation("‘b’ is used before its binding group");
}

static void test_occurrence_type_differs_from_binder(void **state) {
  (void)state;
  CoreVar *x = local("x", INT());
  CoreVar *x2 = local("x", T(W.bool_));
  x2->uniq = x->uniq;
  add_bind(global("f", FN(INT(), T(W.bool_))), core_lam(x, core_var(x2)));
  add_main();
  expect_violation("disagrees with its binder’s type");
}

/* ---- application and types ------------------------------------------------------------------ */

static void test_argument_type_mismatch(void **state) {
  (void)state;
  CoreVar *id = build_id();
  /* id @Int True */
  add_bind(global("f", INT()), core_app(core_tyapp(core_var(id), INT()), con0(W.true_)));
  add_main();
  expect_violation("argument type mismatch: expected Int but got Bool");
}

static void test_applying_non_function(void **state) {
  (void)state;
  add_bind(global("f", INT()), core_app(boxed(1), boxed(2)));
  add_main();
  expect_violation("applying an expression of non-function type Int");
}

static void test_binding_type_differs_from_rhs(void **state) {
  (void)state;
  add_bind(global("f", T(W.bool_)), boxed(1));
  add_main();
  expect_violation(
      "right-hand side of ‘f’ does not have the binder’s type: expected Bool but got Int");
}

static void test_tyapp_to_monomorphic(void **state) {
  (void)state;
  add_bind(global("f", INT()), core_tyapp(boxed(1), INT()));
  add_main();
  expect_violation("type application to an expression of non-polymorphic type Int");
}

static void test_tyapp_kind_mismatch(void **state) {
  (void)state;
  /* fmap-like: /\ (f :: * -> *) -> ...  applied to Int (kind *) */
  CoreTyVar *f = core_tyvar_new(lz_sym("f"), core_kind_arrow(core_kind_star(), core_kind_star()));
  CoreVar *d = local("d", TA(W.functor, TV(f)));
  CoreVar *g = global("g", core_type_forall(f, FN(TA(W.functor, TV(f)), TA(W.functor, TV(f)))));
  add_bind(g, core_tylam(f, core_lam(d, core_var(d))));
  CoreVar *h = global("h", FN(TA(W.functor, INT()), TA(W.functor, INT())));
  add_bind(h, core_tyapp(core_var(g), INT()));
  add_main();
  expect_violation("kind");
}

static void test_ill_kinded_binder_type(void **state) {
  (void)state;
  CoreVar *x = local("x", TA(W.int_, INT())); /* Int Int */
  add_bind(global("f", FN(TA(W.int_, INT()), TA(W.int_, INT()))), core_lam(x, core_var(x)));
  add_main();
  expect_violation("applied to too many arguments");
}

static void test_type_variable_escapes(void **state) {
  (void)state;
  /* f = let y :: a = ... in /\ a -> ... : y's type mentions a outside its /\ */
  CoreTyVar *a = tv("a");
  CoreVar *x = local("x", TV(a)), *y = local("y", FN(TV(a), TV(a)));
  CoreExpr *idlam = core_lam(x, core_var(x));
  CoreExpr *body = core_tylam(a, core_var(y));
  add_bind(global("f", core_type_forall(a, FN(TV(a), TV(a)))), mk_let(false, y, idlam, body));
  add_main();
  expect_violation("type variable ‘a_");
  assert_non_null(strstr(lint_out, "is not in scope"));
}

/* ---- case ------------------------------------------------------------------------------------ */

static void test_alternative_type_differs_from_result(void **state) {
  (void)state;
  CoreVar *n;
  CoreExpr *c = is_zero_case(&n);
  c->alts[1].rhs = boxed(0); /* DEFAULT -> I# 0# in a Bool case */
  add_bind(global("isZero", FN(T(W.intp), T(W.bool_))), core_lam(n, c));
  add_main();
  expect_violation(
      "alternative 2’s type differs from the case’s result type: expected Bool but got Int");
}

static void test_constructor_of_wrong_type(void **state) {
  (void)state;
  CoreVar *m = local("m", TA(W.maybe, INT())), *b = local("b", TA(W.maybe, INT()));
  CoreAlt alts[] = {alt_con(W.true_, NULL, boxed(1)), alt_default(boxed(0))};
  add_bind(global("f", FN(TA(W.maybe, INT()), INT())),
           core_lam(m, mk_case(core_var(m), b, INT(), 2, alts)));
  add_main();
  expect_violation("constructor ‘True’ does not belong to the scrutinee’s type Maybe Int");
}

static void test_pattern_variable_type(void **state) {
  (void)state;
  CoreVar *m = local("m", TA(W.maybe, INT())), *b = local("b", TA(W.maybe, INT()));
  CoreVar *v = local("v", T(W.bool_)); /* should be Int */
  CoreAlt alts[] = {alt_con(W.just, &v, boxed(1)), alt_default(boxed(0))};
  add_bind(global("f", FN(TA(W.maybe, INT()), INT())),
           core_lam(m, mk_case(core_var(m), b, INT(), 2, alts)));
  add_main();
  expect_violation("(field 1 of ‘Just’): expected Int but got Bool");
}

static void test_case_binder_type(void **state) {
  (void)state;
  CoreVar *n;
  CoreExpr *c = is_zero_case(&n);
  c->var->type = INT();
  add_bind(global("isZero", FN(T(W.intp), T(W.bool_))), core_lam(n, c));
  add_main();
  expect_violation("case binder’s type differs from the scrutinee’s");
}

static void test_literal_alternative_type(void **state) {
  (void)state;
  CoreVar *c = local("c", T(W.charp)), *c2 = local("c'", T(W.charp));
  CoreAlt alts[] = {alt_lit(0, con0(W.true_)), alt_default(con0(W.false_))};
  add_bind(global("f", FN(T(W.charp), T(W.bool_))),
           core_lam(c, mk_case(core_var(c), c2, T(W.bool_), 2, alts)));
  add_main();
  expect_violation("literal alternative does not match the scrutinee’s type");
}

static void test_two_defaults(void **state) {
  (void)state;
  CoreVar *n;
  CoreExpr *c = is_zero_case(&n);
  c->alts[0] = alt_default(con0(W.true_));
  add_bind(global("isZero", FN(T(W.intp), T(W.bool_))), core_lam(n, c));
  add_main();
  expect_violation("more than one DEFAULT alternative");
}

static void test_default_not_last(void **state) {
  (void)state;
  CoreVar *n;
  CoreExpr *c = is_zero_case(&n);
  CoreAlt t = c->alts[0];
  c->alts[0] = c->alts[1];
  c->alts[1] = t;
  add_bind(global("isZero", FN(T(W.intp), T(W.bool_))), core_lam(n, c));
  add_main();
  expect_violation("the DEFAULT alternative is not the last one");
}

static void test_mixed_alternatives(void **state) {
  (void)state;
  CoreVar *b = local("b", T(W.bool_)), *b2 = local("b'", T(W.bool_));
  CoreAlt alts[] = {alt_con(W.true_, NULL, boxed(1)), alt_lit(0, boxed(0))};
  add_bind(global("f", FN(T(W.bool_), INT())),
           core_lam(b, mk_case(core_var(b), b2, INT(), 2, alts)));
  add_main();
  expect_violation("case mixes constructor and literal alternatives");
}

static void test_case_without_alternatives(void **state) {
  (void)state;
  CoreVar *b = local("b", T(W.bool_)), *b2 = local("b'", T(W.bool_));
  add_bind(global("f", FN(T(W.bool_), INT())),
           core_lam(b, mk_case(core_var(b), b2, INT(), 0, NULL)));
  add_main();
  expect_violation("case without alternatives");
}

static void test_case_on_newtype(void **state) {
  (void)state;
  CoreVar *g = local("g", T(W.age)), *g2 = local("g'", T(W.age)), *i = local("i", INT());
  CoreAlt alt = alt_con(W.agecon, &i, core_var(i));
  add_bind(global("f", FN(T(W.age), INT())), core_lam(g, mk_case(core_var(g), g2, INT(), 1, &alt)));
  add_main();
  expect_violation("newtypes exist only in types");
}

/* ---- constructors, primops, casts ---------------------------------------------------------------
 */

static void test_constructor_unsaturated(void **state) {
  (void)state;
  CoreType *ti = INT();
  add_bind(global("f", TA(W.list, INT())), con_app(W.cons, 1, &ti, 1, (CoreExpr *[]){boxed(1)}));
  add_main();
  expect_violation("constructor ‘:’ has 2 fields but is applied to 1 arguments");
}

static void test_constructor_missing_type_argument(void **state) {
  (void)state;
  add_bind(global("f", TA(W.maybe, INT())), con_app(W.just, 0, NULL, 1, (CoreExpr *[]){boxed(1)}));
  add_main();
  expect_violation("constructor ‘Just’ needs 1 type arguments but has 0");
}

static void test_constructor_argument_type(void **state) {
  (void)state;
  CoreType *ti = INT();
  add_bind(global("f", TA(W.maybe, INT())),
           con_app(W.just, 1, &ti, 1, (CoreExpr *[]){con0(W.true_)}));
  add_main();
  expect_violation("argument 1 of constructor ‘Just’: expected Int but got Bool");
}

static void test_strict_field_not_evaluated(void **state) {
  (void)state;
  CoreVar *id = build_id();
  CoreExpr *thunk = core_app(core_tyapp(core_var(id), INT()), boxed(1));
  add_bind(global("f", T(W.box)), con_app(W.boxcon, 0, NULL, 1, &thunk));
  /* evaluated first: accepted */
  CoreVar *v = local("v", INT());
  CoreExpr *ok =
      mk_case(core_app(core_tyapp(core_var(id), INT()), boxed(1)), v, T(W.box), 1,
              (CoreAlt[]){alt_default(con_app(W.boxcon, 0, NULL, 1, (CoreExpr *[]){core_var(v)}))});
  add_bind(global("g", T(W.box)), ok);
  add_main();
  int n = lint();
  assert_int_equal(n, 1);
  assert_non_null(strstr(
      lint_out, "in binding ‘f’: argument 1 for the strict field of ‘Box’ is not evaluated"));
}

static void test_newtype_constructor_as_value(void **state) {
  (void)state;
  add_bind(global("f", T(W.age)), con_app(W.agecon, 0, NULL, 1, (CoreExpr *[]){boxed(3)}));
  add_main();
  expect_violation("constructor ‘Age’ of newtype Age used as a value");
}

static void test_primop_arity(void **state) {
  (void)state;
  add_bind(global("f", T(W.intp)), mk_primop(P_INT_ADD, T(W.intp), 1, (CoreExpr *[]){lit_int(1)}));
  add_main();
  expect_violation("primop intAdd# takes 2 arguments but is given 1");
}

static void test_primop_argument_type(void **state) {
  (void)state;
  add_bind(global("f", T(W.intp)),
           mk_primop(P_INT_ADD, T(W.intp), 2, (CoreExpr *[]){lit_int(1), boxed(2)}));
  add_main();
  expect_violation(
      "argument 2 of primop intAdd# has type Int, but its declared type is Int# -> Int# -> Int#");
}

static void test_primop_result_type(void **state) {
  (void)state;
  add_bind(global("f", INT()),
           mk_primop(P_INT_ADD, INT(), 2, (CoreExpr *[]){lit_int(1), lit_int(2)}));
  add_main();
  expect_violation("primop intAdd# returns Int, but its declared type is");
}

static void test_primop_lifted_argument_not_evaluated(void **state) {
  (void)state;
  /* pretend intAdd# took Integers (no declared type): a lifted argument must be evaluated */
  W.p->primop_types[P_INT_ADD] = NULL;
  CoreVar *a = local("a", T(W.integer)), *b = local("b", T(W.integer));
  add_bind(global("f", FN(T(W.integer), FN(T(W.integer), T(W.integer)))),
           core_lam(a, core_lam(b, mk_primop(P_INT_ADD, T(W.integer), 2,
                                             (CoreExpr *[]){core_var(a), core_var(b)}))));
  add_main();
  expect_violation("lifted argument 1 of primop intAdd# is not evaluated");
}

static void test_primop_unknown(void **state) {
  (void)state;
  add_bind(global("f", T(W.intp)), mk_primop(PRIMOP_COUNT + 3, T(W.intp), 0, NULL));
  add_main();
  expect_violation("unknown primop number");
}

static void test_cast_between_unrelated_types(void **state) {
  (void)state;
  add_bind(global("f", T(W.bool_)), mk_cast(boxed(1), T(W.bool_)));
  add_main();
  expect_violation("cast from Int to Bool is not between a newtype and its representation");
}

static void test_cast_to_wrong_newtype_instance(void **state) {
  (void)state;
  /* (\w -> IORes @() w ()) |> IO Int */
  CoreType *unit = T(W.unit);
  CoreVar *w = local("w", T(W.world));
  CoreExpr *f =
      core_lam(w, con_app(W.ioresc, 1, &unit, 2, (CoreExpr *[]){core_var(w), con0(W.unitc)}));
  add_bind(global("f", TA(W.io, INT())), mk_cast(f, TA(W.io, INT())));
  add_main();
  expect_violation("is not between a newtype and its representation");
}

/* ---- let
 * ------------------------------------------------------------------------------------------ */

static void test_let_binder_type(void **state) {
  (void)state;
  CoreVar *y = local("y", T(W.bool_));
  add_bind(global("f", T(W.bool_)), mk_let(false, y, boxed(1), core_var(y)));
  add_main();
  expect_violation("right-hand side of ‘y_");
}

static void test_nonrec_let_refers_to_itself(void **state) {
  (void)state;
  CoreVar *y = local("y", INT());
  add_bind(global("f", INT()), mk_let(false, y, core_var(y), core_var(y)));
  add_main();
  expect_violation("is not in scope");
  /* the recursive version is fine */
  lz_reset();
  core_reset();
  teardown(NULL);
  setup(NULL);
  y = local("y", INT());
  add_bind(global("f", INT()), mk_let(true, y, core_var(y), core_var(y)));
  add_main();
  expect_clean();
}

static void test_recursive_unlifted_binding(void **state) {
  (void)state;
  CoreVar *y = local("y", T(W.intp));
  add_bind(global("f", T(W.intp)), mk_let(true, y, core_var(y), core_var(y)));
  add_main();
  expect_violation("has unlifted type Int#");
}

/* ---- main
 * ------------------------------------------------------------------------------------------ */

static void test_no_main(void **state) {
  (void)state;
  add_bind(global("f", INT()), boxed(1));
  expect_violation("in binding ‘main’: the program has no main");
}

static void test_main_wrong_type(void **state) {
  (void)state;
  CoreVar *m = global("main", INT());
  add_bind(m, boxed(1));
  W.p->main = m;
  expect_violation("main has type Int, but it must have type IO t");
}

static void test_main_not_bound(void **state) {
  (void)state;
  W.p->main = global("main", TA(W.io, T(W.unit)));
  expect_violation("is not bound at top level");
}

/* ---- robustness
 * --------------------------------------------------------------------------------------- */

static void test_malformed_nodes_do_not_crash(void **state) {
  (void)state;
  CoreExpr *app = core_app(NULL, boxed(1));
  CoreExpr *lam = core_lam(NULL, NULL);
  CoreExpr *var = core_var(NULL);
  CoreExpr *con = core_expr_new(CE_CON, (LzSpan){0});
  CoreExpr *cas = mk_case(boxed(1), NULL, NULL, 1, (CoreAlt[]){{ALT_CON, NULL, NULL, {0}, NULL}});
  CoreExpr *bad = core_expr_new((CoreExprKind)99, (LzSpan){0});
  CoreExpr *tyapp = core_tyapp(boxed(1), NULL);
  CoreExpr *cast = mk_cast(NULL, NULL);
  CoreExpr *lets = core_expr_new(CE_LET, (LzSpan){0});
  CoreExpr *all[] = {app, lam, var, con, cas, bad, tyapp, cast, lets};
  for (int i = 0; i < 9; i++)
    add_bind(global(lz_fmt("f%d", i), INT()), all[i]);
  add_bind(global("nulltype", NULL), boxed(1));
  add_main();
  int n = lint();
  assert_true(n >= 9);
  /* the printer copes too */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  core_print_program(f, W.p);
  fclose(f);
  assert_non_null(strstr(buf, "<no expr>"));
  free(buf);
}

static void test_stops_after_20_violations(void **state) {
  (void)state;
  for (int i = 0; i < 30; i++)
    add_bind(global(lz_fmt("f%d", i), T(W.bool_)), boxed(i));
  add_main();
  assert_int_equal(lint(), 20);
  assert_non_null(strstr(lint_out, "too many violations, stopping here"));
  assert_null(strstr(lint_out, "‘f20’"));
}

/* let x1 = I# 1# in let x2 = x1 in ... in xN */
static CoreExpr *deep_lets(int n) {
  CoreVar **vs = malloc(sizeof *vs * (size_t)n);
  for (int i = 0; i < n; i++)
    vs[i] = local("x", INT());
  CoreExpr *e = core_var(vs[n - 1]);
  for (int i = n - 1; i >= 0; i--)
    e = mk_let(false, vs[i], i ? core_var(vs[i - 1]) : boxed(1), e);
  free(vs);
  return e;
}

/* \ x0 -> case x0 of x1 { DEFAULT -> case x1 of x2 { ... DEFAULT -> xN } } */
static CoreExpr *deep_cases(int n) {
  CoreVar **vs = malloc(sizeof *vs * (size_t)(n + 1));
  for (int i = 0; i <= n; i++)
    vs[i] = local("x", INT());
  CoreExpr *e = core_var(vs[n]);
  for (int i = n - 1; i >= 0; i--)
    e = mk_case(core_var(vs[i]), vs[i + 1], INT(), 1, (CoreAlt[]){alt_default(e)});
  e = core_lam(vs[0], e);
  free(vs);
  return e;
}

/* [1, 2, ..., n] as nested (:) */
static CoreExpr *deep_list(int n) {
  CoreType *ti = INT();
  CoreExpr *e = con_app(W.nil, 1, &ti, 0, NULL);
  for (int i = n; i >= 1; i--)
    e = con_app(W.cons, 1, &ti, 2, (CoreExpr *[]){boxed(i), e});
  return e;
}

static void test_deep_nesting(void **state) {
  (void)state;
  /* deep but within the limit: checked, on the normal 8 MB stack (also under ASan) */
  int n = CORE_MAX_DEPTH - 100;
  add_bind(global("ok", INT()), deep_lets(n));
  add_bind(global("cases", FN(INT(), INT())), deep_cases(n));
  add_bind(global("list", TA(W.list, INT())), deep_list(n));
  add_bind(global("deep", INT()), deep_lets(200000)); /* beyond: no crash, not checked */
  add_main();
  assert_int_equal(lint(), 0);
  assert_non_null(strstr(lint_out, "nested deeper than"));
  assert_null(strstr(lint_out, "binding ‘ok’"));
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  core_print_program(f, W.p);
  fclose(f);
  assert_non_null(strstr(buf, "..."));
  free(buf);
  assert_non_null(core_expr_type(W.p->groups.data[3].binds[0].rhs));
}

#define T_(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T_(test_unbound_variable),
      T_(test_variable_out_of_its_scope),
      T_(test_binder_rebound),
      T_(test_global_binder_rebound_and_not_global),
      T_(test_nonrec_group_self_reference),
      T_(test_groups_out_of_dependency_order),
      T_(test_occurrence_type_differs_from_binder),
      T_(test_argument_type_mismatch),
      T_(test_applying_non_function),
      T_(test_binding_type_differs_from_rhs),
      T_(test_tyapp_to_monomorphic),
      T_(test_tyapp_kind_mismatch),
      T_(test_ill_kinded_binder_type),
      T_(test_type_variable_escapes),
      T_(test_alternative_type_differs_from_result),
      T_(test_constructor_of_wrong_type),
      T_(test_pattern_variable_type),
      T_(test_case_binder_type),
      T_(test_literal_alternative_type),
      T_(test_two_defaults),
      T_(test_default_not_last),
      T_(test_mixed_alternatives),
      T_(test_case_without_alternatives),
      T_(test_case_on_newtype),
      T_(test_constructor_unsaturated),
      T_(test_constructor_missing_type_argument),
      T_(test_constructor_argument_type),
      T_(test_strict_field_not_evaluated),
      T_(test_newtype_constructor_as_value),
      T_(test_primop_arity),
      T_(test_primop_argument_type),
      T_(test_primop_result_type),
      T_(test_primop_lifted_argument_not_evaluated),
      T_(test_primop_unknown),
      T_(test_cast_between_unrelated_types),
      T_(test_cast_to_wrong_newtype_instance),
      T_(test_let_binder_type),
      T_(test_nonrec_let_refers_to_itself),
      T_(test_recursive_unlifted_binding),
      T_(test_no_main),
      T_(test_main_wrong_type),
      T_(test_main_not_bound),
      T_(test_malformed_nodes_do_not_crash),
      T_(test_stops_after_20_violations),
      T_(test_deep_nesting),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

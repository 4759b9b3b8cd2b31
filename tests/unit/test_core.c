/* test_core.c — unit tests of core-ir: constructors and type utilities, the printer,
 * and the linter's acceptance of well-typed programs.
 *
 * The approach: a fixture builds, by hand, the small world of types a real program
 * has (Int = I# Int#, Bool, Maybe, lists, IO as a newtype over World# -> IORes a, a
 * Functor dictionary with a polymorphic field, a newtype Age), then well-typed
 * programs over it (identity, map, a dictionary selector, newtype casts, a primop
 * call, a literal case) that the linter must accept and the printer must render as
 * expected. The rejected variants, one per invariant, are in test_core_lint.c; the
 * fixture is in core_fixture.h. */
#include "core_fixture.h"

/* ---- well-typed programs ------------------------------------------------------------------- */

static void test_identity_lints_and_prints(void **state) {
  (void)state;
  CoreVar *id = build_id();
  /* use = id @Int (I# 3#) */
  CoreVar *use = global("use", INT());
  add_bind(use, core_app(core_tyapp(core_var(id), INT()), boxed(3)));
  add_main();
  expect_clean();
  assert_string_equal(core_type_to_string(id->type), "forall a. a -> a");
  CoreExpr *rhs = W.p->groups.data[0].binds[0].rhs;
  rhs->body->var->uniq = 12;
  assert_string_equal(core_expr_to_string(rhs, 200), "/\\ a -> \\ (x_12 :: a) -> x_12");
  assert_string_equal(core_expr_to_string(W.p->groups.data[1].binds[0].rhs, 200),
                      "id @Int (I# 3#)");
  assert_true(core_type_equal(core_expr_type(W.p->groups.data[1].binds[0].rhs), INT()));
}

static void test_map_lints_and_prints(void **state) {
  (void)state;
  CoreVar *map = build_map();
  add_main();
  expect_clean();
  assert_string_equal(core_type_to_string(map->type), "forall a b. (a -> b) -> [a] -> [b]");
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  core_print_program(f, W.p);
  fclose(f);
  assert_non_null(strstr(buf, "data Maybe a = Nothing | Just a\n"));
  assert_non_null(strstr(buf, "newtype IO a = IO (World# -> IORes a)\n"));
  assert_non_null(strstr(buf, "data Box = Box !Int\n"));
  assert_non_null(
      strstr(buf, "Rec {\nmap :: forall a b. (a -> b) -> [a] -> [b]\nmap =\n  /\\ a b ->\n"));
  assert_non_null(strstr(buf, "case xs_"));
  assert_non_null(strstr(buf, "[] -> [] @b;"));
  assert_non_null(strstr(buf, ": @b (f_"));
  assert_non_null(strstr(buf, "(map @a @b f_"));
  assert_non_null(strstr(buf, "end Rec }"));
  assert_non_null(strstr(buf, "main :: IO ()\nmain = (\\ (w_"));
  for (char *line = buf; line && *line;) { /* layout keeps lines near the width */
    char *nl = strchr(line, '\n');
    assert_true((nl ? nl - line : (long)strlen(line)) <= 110);
    line = nl ? nl + 1 : NULL;
  }
  free(buf);
}

/* fmap :: forall f. Functor f -> forall a b. (a -> b) -> f a -> f b
 * fmap = /\ f -> \ (d :: Functor f) -> case d of d' { C:Functor m -> m }
 * dFunctorList = C:Functor @[] map;  use = fmap @[] dFunctorList @Int @Int (\x -> x) [] */
static void test_dictionary_with_polymorphic_field(void **state) {
  (void)state;
  CoreVar *map = build_map();
  CoreTyVar *f = core_tyvar_new(lz_sym("f"), core_kind_arrow(core_kind_star(), core_kind_star()));
  CoreType *df = TA(W.functor, TV(f));
  CoreType *field = core_con_field_type(W.cfunctor, 0, (CoreType *[]){TV(f)});
  CoreVar *d = local("d", df), *d2 = local("d'", df), *m = local("m", field);
  CoreVar *fmap = global("fmap", core_type_forall(f, FN(df, field)));
  CoreAlt alt = alt_con(W.cfunctor, &m, core_var(m));
  add_bind(fmap, core_tylam(f, core_lam(d, mk_case(core_var(d), d2, field, 1, &alt))));
  CoreType *listcon = T(W.list);
  CoreVar *dict = global("dFunctorList", TA(W.functor, listcon));
  add_bind(dict, con_app(W.cfunctor, 1, &listcon, 1, (CoreExpr *[]){core_var(map)}));
  CoreVar *x = local("x", INT());
  CoreExpr *use_rhs = core_app(
      core_app(core_tyapp(
                   core_tyapp(core_app(core_tyapp(core_var(fmap), listcon), core_var(dict)), INT()),
                   INT()),
               core_lam(x, core_var(x))),
      con_app(W.nil, 1, (CoreType *[]){INT()}, 0, NULL));
  CoreVar *use = global("use", TA(W.list, INT()));
  add_bind(use, use_rhs);
  add_main();
  expect_clean();
  assert_string_equal(core_type_to_string(fmap->type),
                      "forall f. Functor f -> forall a b. (a -> b) -> f a -> f b");
  assert_string_equal(core_type_to_string(dict->type), "Functor []");
}

/* mkAge = \ (i :: Int) -> i |> Age;  unAge = \ (g :: Age) -> g |> Int */
static void test_newtype_cast(void **state) {
  (void)state;
  CoreVar *i = local("i", INT()), *g = local("g", T(W.age));
  CoreVar *mk = global("mkAge", FN(INT(), T(W.age))), *un = global("unAge", FN(T(W.age), INT()));
  add_bind(mk, core_lam(i, mk_cast(core_var(i), T(W.age))));
  add_bind(un, core_lam(g, mk_cast(core_var(g), INT())));
  add_main();
  expect_clean();
  assert_string_equal(core_expr_to_string(W.p->groups.data[1].binds[0].rhs->body, 100),
                      lz_fmt("g_%d |> Int", g->uniq));
}

static void test_primop_call(void **state) {
  (void)state;
  CoreExpr *prim;
  CoreVar *plus = global("plus", FN(INT(), FN(INT(), INT())));
  add_bind(plus, plus_rhs(&prim));
  add_main();
  expect_clean();
  assert_string_equal(core_primops[P_INT_ADD].name, "intAdd#");
  assert_int_equal(core_primop_lookup("intAdd#"), P_INT_ADD);
  assert_int_equal(core_primop_lookup("noSuchPrimop#"), -1);
  prim->args[0]->var->uniq = 7;
  prim->args[1]->var->uniq = 8;
  assert_string_equal(core_expr_to_string(prim, 100), "intAdd# x_7 y_8");
}

static void test_literal_case_and_default_first(void **state) {
  (void)state;
  CoreVar *n;
  CoreExpr *c = is_zero_case(&n);
  add_bind(global("isZero", FN(T(W.intp), T(W.bool_))), core_lam(n, c));
  add_main();
  expect_clean();
  n->uniq = 1;
  c->var->uniq = 2;
  assert_string_equal(core_expr_to_string(c, 200),
                      "case n_1 of n'_2 { DEFAULT -> False; 0# -> True }");
}

static void test_type_printing_and_equality(void **state) {
  (void)state;
  CoreType *mm = TA(W.maybe, TA(W.maybe, INT()));
  assert_string_equal(core_type_to_string(mm), "Maybe (Maybe Int)");
  CoreTyCon *pair = core_tuple_tycon(2);
  assert_ptr_equal(pair, core_tuple_tycon(2));
  assert_string_equal(pair->name, "(,)");
  assert_string_equal(core_tuple_tycon(3)->name, "(,,)");
  assert_null(core_tuple_tycon(1));
  assert_string_equal(
      core_type_to_string(core_type_apply_con(pair, 2, (CoreType *[]){INT(), T(W.bool_)})),
      "(Int, Bool)");
  assert_string_equal(core_type_to_string(FN(FN(INT(), INT()), TA(W.list, TA(W.maybe, INT())))),
                      "(Int -> Int) -> [Maybe Int]");
  assert_string_equal(core_type_to_string(T(W.unit)), "()");
  CoreTyVar *a = tv("a"), *b = tv("b");
  CoreType *ida = core_type_forall(a, FN(TV(a), TV(a))),
           *idb = core_type_forall(b, FN(TV(b), TV(b)));
  assert_true(core_type_equal(ida, idb)); /* alpha-equivalent */
  assert_false(core_type_equal(ida, core_type_forall(b, FN(TV(a), TV(a)))));
  assert_string_equal(core_type_to_string(FN(ida, INT())), "(forall a. a -> a) -> Int");
  /* substitution avoids capture: (forall b. a -> b)[a := b] */
  CoreType *t = core_type_forall(b, FN(TV(a), TV(b)));
  CoreType *s = core_type_subst(t, 1, &a, (CoreType *[]){TV(b)});
  assert_int_equal(s->kind, CT_FORALL);
  assert_true(s->var != b);
  assert_true(core_type_equal(s->body->arg, TV(b)));
  assert_false(core_type_equal(s->body->arg, s->body->res));
  /* literals */
  CoreExpr *str = core_expr_new(CE_LIT, (LzSpan){0});
  str->lit = (CoreLit){.kind = CL_STRING, .str = "a\"b\n", .len = 4};
  assert_string_equal(core_expr_to_string(str, 100), "\"a\\\"b\\n\"#");
  CoreExpr *d = core_expr_new(CE_LIT, (LzSpan){0});
  d->lit = (CoreLit){.kind = CL_DOUBLE, .d = 0.1};
  assert_string_equal(core_expr_to_string(d, 100), "0.1##");
  d->lit.d = 3;
  assert_string_equal(core_expr_to_string(d, 100), "3.0##");
  assert_string_equal(core_type_to_string(core_lit_type(&d->lit)), "Double#");
  CoreExpr *ch = core_expr_new(CE_LIT, (LzSpan){0});
  ch->lit = (CoreLit){.kind = CL_CHAR, .i = 'x'};
  assert_string_equal(core_expr_to_string(ch, 100), "'x'#");
  assert_string_equal(core_expr_to_string(boxed(-3), 100), "I# -3#");
  /* shortening */
  char *cut = core_expr_to_string(boxed(123456789), 10);
  assert_true(strlen(cut) <= 10);
  assert_non_null(strstr(cut, "..."));
}

static void test_builtins_reset(void **state) {
  (void)state;
  CoreTyCon *l = core_list_tycon();
  assert_int_equal(l->ncons, 2);
  assert_string_equal(l->cons[1]->name, ":");
  assert_string_equal(core_type_to_string(l->cons[1]->fields[1]), "[a]");
  assert_ptr_equal(core_prim_tycon("Int#"), W.intp);
  assert_true(W.intp->unlifted);
  assert_false(W.integer->unlifted);
  assert_null(core_prim_tycon("Float#"));
  lz_reset();
  core_reset();
  CoreTyCon *l2 = core_list_tycon(); /* freshly made, usable after the reset */
  assert_int_equal(l2->ncons, 2);
  assert_int_equal(core_fresh_uniq() > 0, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_identity_lints_and_prints, setup, teardown),
      cmocka_unit_test_setup_teardown(test_map_lints_and_prints, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dictionary_with_polymorphic_field, setup, teardown),
      cmocka_unit_test_setup_teardown(test_newtype_cast, setup, teardown),
      cmocka_unit_test_setup_teardown(test_primop_call, setup, teardown),
      cmocka_unit_test_setup_teardown(test_literal_case_and_default_first, setup, teardown),
      cmocka_unit_test_setup_teardown(test_type_printing_and_equality, setup, teardown),
      cmocka_unit_test_setup_teardown(test_builtins_reset, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_stg.c — unit tests of stg/: Core -> STG conversion, the analyses, printer and linter.
 *
 * The approach: hand-built Core programs over the fixture of core_fixture.h (Int = I# Int#,
 * Maybe, lists, IO as a newtype, a newtype Age), each first checked by the Core linter so
 * the input is known to be valid, then converted; every conversion must pass the STG
 * linter, and the tests check the result both structurally (closure kinds, free-variable
 * lists, LNE flags, call kinds, reps) and in the printed form. The second half breaks
 * converted programs on purpose, one invariant at a time, and checks that the linter
 * reports it. */
#include <pthread.h>

#include "core_fixture.h"
#include "stg.h"

/* ---- harness --------------------------------------------------------------------------- */

static char *stg_out;
static size_t stg_len;
static FILE *stg_file;
static StgProgram *S;
static char *text;
static CoreVar *plus_v;
static CoreTyCon *dbl_tc;
static CoreDataCon *dhash;

static CoreType *INTP(void) { return T(W.intp); }

static int stg_setup(void **state) {
  setup(state);
  stg_file = open_memstream(&stg_out, &stg_len);
  stg_set_lint_stream(stg_file);
  CoreType *ii_i = FN(INTP(), FN(INTP(), INTP()));
  W.p->primop_types[P_INT_SUB] = ii_i;
  W.p->primop_types[P_INT_QUOT] = ii_i;
  W.p->primop_types[P_REALWORLD] = T(W.world);
  CoreType *d = T(core_prim_tycon("Double#"));
  W.p->primop_types[P_DBL_ADD] = FN(d, FN(d, d));
  dbl_tc = mk_tycon("Double", TC_DATA, 0, NULL);
  dhash = mk_con(dbl_tc, "D#", 1, &d);
  S = NULL;
  text = NULL;
  plus_v = NULL;
  return 0;
}

static int stg_teardown(void **state) {
  stg_set_lint_stream(NULL);
  fclose(stg_file);
  free(stg_out);
  stg_out = NULL;
  return teardown(state);
}

static char *print_stg(const StgProgram *p) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  stg_print_program(f, p);
  fclose(f);
  char *copy = lz_strdup(buf);
  free(buf);
  return copy;
}

static int stg_lint(void) {
  int n = stg_lint_program(S, "test");
  fflush(stg_file);
  if (getenv("SHOW_LINT")) fprintf(stderr, "stg lint output (%d):\n%s\n", n, stg_out);
  return n;
}

/* Core lints clean, converts, STG lints clean; `text` is the printed STG. */
static void convert(void) {
  if (!W.p->main) add_main();
  expect_clean();
  S = stg_from_core(W.p);
  assert_non_null(S);
  text = print_stg(S);
  if (getenv("SHOW_STG")) fprintf(stderr, "---- STG ----\n%s", text);
  int n = stg_lint();
  if (n) fprintf(stderr, "unexpected stg lint output:\n%s\nSTG:\n%s", stg_out, text);
  assert_int_equal(n, 0);
}

static void expect_text(const char *needle) {
  if (!strstr(text, needle)) fprintf(stderr, "expected in STG: %s\nSTG was:\n%s", needle, text);
  assert_non_null(strstr(text, needle));
}

static void expect_no_text(const char *needle) {
  if (strstr(text, needle)) fprintf(stderr, "unexpected in STG: %s\nSTG was:\n%s", needle, text);
  assert_null(strstr(text, needle));
}

static int count_text(const char *needle) {
  int n = 0;
  for (const char *s = text; (s = strstr(s, needle)); s++)
    n++;
  return n;
}

/* The linter must report a violation whose text contains `needle`. */
static void expect_stg_violation(const char *needle) {
  long before = (long)stg_len;
  int n = stg_lint();
  const char *out = stg_out + before;
  if (n == 0 || !strstr(out, needle)) fprintf(stderr, "stg lint output was:\n%s\n", out);
  assert_true(n > 0);
  assert_non_null(strstr(out, needle));
}

static const char *N(const CoreVar *v) { return lz_fmt("%s_%d", v->name, v->uniq); }

/* ---- finding things in the converted program ---- */

static StgVar *found;
static void find_in_expr(StgExpr *e, int uniq);

static void find_check(StgVar *v, int uniq) {
  if (v && v->uniq == uniq) found = v;
}

static void find_in_rhs(StgRhs *r, int uniq) {
  for (int i = 0; i < r->arity; i++)
    find_check(r->params[i], uniq);
  if (r->kind != STG_CON) find_in_expr(r->body, uniq);
}

static void find_in_expr(StgExpr *e, int uniq) {
  if (!e) return;
  switch (e->kind) {
  case SE_CASE:
    find_in_expr(e->scrut, uniq);
    find_check(e->binder, uniq);
    for (int i = 0; i < e->nalts; i++) {
      for (int j = 0; e->alts[i].kind == STG_ALT_CON && j < e->alts[i].con->arity; j++)
        find_check(e->alts[i].vars[j], uniq);
      find_in_expr(e->alts[i].rhs, uniq);
    }
    break;
  case SE_LET:
    for (int i = 0; i < e->nbinds; i++) {
      find_check(e->binds[i].var, uniq);
      find_in_rhs(e->binds[i].rhs, uniq);
    }
    find_in_expr(e->body, uniq);
    break;
  case SE_SCC: find_in_expr(e->body, uniq); break;
  default: break;
  }
}

/* The STG variable converted from Core variable v. */
static StgVar *sv(const CoreVar *v) {
  found = NULL;
  for (int i = 0; i < S->binds.len; i++) {
    find_check(S->binds.data[i].var, v->uniq);
    find_in_rhs(S->binds.data[i].rhs, v->uniq);
  }
  assert_non_null(found);
  return found;
}

static StgRhs *top_rhs(const char *name) {
  for (int i = 0; i < S->binds.len; i++)
    if (strcmp(S->binds.data[i].var->name, name) == 0) return S->binds.data[i].rhs;
  fail_msg("no top-level binding %s", name);
  return NULL;
}

/* The first expression of `kind` in e (pre-order), or NULL. */
static StgExpr *first_of(StgExpr *e, StgExprKind kind) {
  if (!e) return NULL;
  if (e->kind == kind) return e;
  StgExpr *r = NULL;
  switch (e->kind) {
  case SE_CASE:
    if ((r = first_of(e->scrut, kind))) return r;
    for (int i = 0; i < e->nalts; i++)
      if ((r = first_of(e->alts[i].rhs, kind))) return r;
    return NULL;
  case SE_LET:
    for (int i = 0; i < e->nbinds; i++)
      if (e->binds[i].rhs->kind != STG_CON && (r = first_of(e->binds[i].rhs->body, kind))) return r;
    return first_of(e->body, kind);
  case SE_SCC: return first_of(e->body, kind);
  default: return NULL;
  }
}

/* ---- Core building blocks ---- */

static CoreExpr *V(CoreVar *v) { return core_var(v); }
static CoreExpr *A2(CoreExpr *f, CoreExpr *a, CoreExpr *b) { return core_app(core_app(f, a), b); }
static CoreVar *plus(void) {
  if (!plus_v) {
    plus_v = global("plus", FN(INT(), FN(INT(), INT())));
    add_bind(plus_v, plus_rhs(NULL));
  }
  return plus_v;
}
static CoreExpr *PLUS(CoreExpr *a, CoreExpr *b) { return A2(V(plus()), a, b); }
static CoreExpr *just(CoreExpr *x) {
  CoreType *t = INT();
  return con_app(W.just, 1, &t, 1, &x);
}
static CoreExpr *lams(int n, CoreVar **vs, CoreExpr *body) {
  for (int i = n - 1; i >= 0; i--)
    body = core_lam(vs[i], body);
  return body;
}
static CoreExpr *prim2(int op, CoreExpr *a, CoreExpr *b) {
  return mk_primop(op, INTP(), 2, (CoreExpr *[]){a, b});
}
static CoreExpr *lit_integer(const char *digits, bool fits, int64_t i) {
  CoreExpr *e = core_expr_new(CE_LIT, (LzSpan){0});
  e->lit.kind = CL_INTEGER;
  e->lit.str = digits;
  e->lit.fits = fits;
  e->lit.i = i;
  return e;
}
/* case x of b { I# n -> k } */
static CoreExpr *unbox(CoreVar *x, CoreVar *b, CoreVar *n, CoreType *res, CoreExpr *k) {
  CoreAlt a = alt_con(W.ihash, &n, k);
  return mk_case(V(x), b, res, 1, &a);
}
static CoreExpr *scc(const char *name, CoreExpr *body) {
  CoreExpr *e = core_expr_new(CE_SCC, (LzSpan){0});
  e->scc = lz_sym(name);
  e->scc_module = lz_sym("Main");
  e->body = body;
  return e;
}

/* ---- conversion: ANF and free variables --------------------------------------------------- */

/* f = \a b c -> let t = plus a b in let u = plus t c in Just u */
static void test_free_variables_in_order(void **state) {
  (void)state;
  CoreVar *a = local("a", INT()), *b = local("b", INT()), *c = local("c", INT());
  CoreVar *t = local("t", INT()), *u = local("u", INT());
  CoreExpr *body =
      mk_let(false, t, PLUS(V(a), V(b)), mk_let(false, u, PLUS(V(t), V(c)), just(V(u))));
  CoreVar *f = global("f", FN(INT(), FN(INT(), FN(INT(), TA(W.maybe, INT())))));
  add_bind(f, lams(3, (CoreVar *[]){a, b, c}, body));
  convert();
  StgRhs *rf = top_rhs("f");
  assert_int_equal(rf->kind, STG_FUN);
  assert_int_equal(rf->arity, 3);
  assert_int_equal(rf->nfvs, 0);
  StgVar *st = sv(t), *su = sv(u);
  assert_int_equal(st->rhs->kind, STG_THUNK);
  assert_int_equal(st->rhs->nfvs, 2);
  assert_ptr_equal(st->rhs->fvs[0], sv(a));
  assert_ptr_equal(st->rhs->fvs[1], sv(b));
  assert_int_equal(su->rhs->nfvs, 2);
  assert_ptr_equal(su->rhs->fvs[0], st);
  assert_ptr_equal(su->rhs->fvs[1], sv(c));
  assert_false(st->lne);
  expect_text(lz_fmt("%s = \\u [%s %s] -> plus/2 %s %s", N(t), N(a), N(b), N(a), N(b)));
  expect_text(lz_fmt("%s = \\u [%s %s] -> plus/2 %s %s", N(u), N(t), N(c), N(t), N(c)));
  expect_text(lz_fmt("Just [%s]", N(u)));
  expect_text(lz_fmt("f = \\r [] %s %s %s ->", N(a), N(b), N(c)));
  assert_int_equal(sv(a)->uses, 1);
  assert_int_equal(st->uses, 1);
}

/* g = \h x -> h (h x);  k = \x -> plus (plus x x) x;  m = \x -> Just (Just x) */
static void test_anf_of_nested_applications(void **state) {
  (void)state;
  CoreType *ii = FN(INT(), INT());
  CoreVar *h = local("h", ii), *x = local("x", INT());
  CoreVar *g = global("g", FN(ii, ii));
  add_bind(g, lams(2, (CoreVar *[]){h, x}, core_app(V(h), core_app(V(h), V(x)))));
  CoreVar *x2 = local("x", INT());
  CoreVar *k = global("k", ii);
  add_bind(k, core_lam(x2, PLUS(PLUS(V(x2), V(x2)), V(x2))));
  CoreVar *x3 = local("x", INT());
  CoreType *mi = TA(W.maybe, INT());
  CoreVar *m = global("m", FN(INT(), TA(W.maybe, mi)));
  CoreExpr *inner = just(V(x3));
  add_bind(m, core_lam(x3, con_app(W.just, 1, &mi, 1, &inner)));
  convert();
  /* g: the inner call is a thunk, the outer an unknown call of h */
  StgExpr *let = top_rhs("g")->body;
  assert_int_equal(let->kind, SE_LET);
  StgRhs *sat = let->binds[0].rhs;
  assert_int_equal(sat->kind, STG_THUNK);
  assert_int_equal(sat->nfvs, 2);
  assert_ptr_equal(sat->fvs[0], sv(h));
  assert_ptr_equal(sat->fvs[1], sv(x));
  assert_int_equal(let->body->kind, SE_APP);
  assert_int_equal(let->body->call, STG_CALL_UNKNOWN);
  assert_ptr_equal(let->body->args[0].var, let->binds[0].var);
  expect_text(lz_fmt("\\u [%s %s] -> %s %s", N(h), N(x), N(h), N(x)));
  /* k: known calls of plus */
  StgExpr *lk = top_rhs("k")->body;
  assert_int_equal(lk->kind, SE_LET);
  assert_int_equal(lk->body->call, STG_CALL_KNOWN);
  expect_text(lz_fmt("\\u [%s] -> plus/2 %s %s", N(x2), N(x2), N(x2)));
  /* m: the inner constructor application is a constructor closure */
  StgExpr *lm = top_rhs("m")->body;
  assert_int_equal(lm->kind, SE_LET);
  assert_int_equal(lm->binds[0].rhs->kind, STG_CON);
  assert_int_equal(lm->body->kind, SE_CON);
  expect_text(lz_fmt("= Just [%s] } in", N(x3)));
}

/* k = \x -> let a = plus x x in let b = Just x in let c = \y -> plus y x in (a, b, c) */
static void test_update_flags(void **state) {
  (void)state;
  CoreVar *x = local("x", INT()), *a = local("a", INT()), *y = local("y", INT());
  CoreType *mi = TA(W.maybe, INT()), *ii = FN(INT(), INT());
  CoreVar *b = local("b", mi), *c = local("c", ii);
  CoreTyCon *t3 = core_tuple_tycon(3);
  CoreType *tys[] = {INT(), mi, ii};
  CoreExpr *tup = con_app(t3->cons[0], 3, tys, 3, (CoreExpr *[]){V(a), V(b), V(c)});
  CoreExpr *body =
      mk_let(false, a, PLUS(V(x), V(x)),
             mk_let(false, b, just(V(x)), mk_let(false, c, core_lam(y, PLUS(V(y), V(x))), tup)));
  add_bind(global("k", FN(INT(), core_type_apply_con(t3, 3, tys))), core_lam(x, body));
  convert();
  assert_int_equal(sv(a)->rhs->kind, STG_THUNK);
  assert_int_equal(sv(b)->rhs->kind, STG_CON);
  assert_ptr_equal(sv(b)->rhs->con, W.just);
  assert_int_equal(sv(c)->rhs->kind, STG_FUN);
  assert_int_equal(sv(c)->rhs->arity, 1);
  assert_int_equal(sv(c)->rhs->nfvs, 1);
  assert_ptr_equal(sv(c)->rhs->fvs[0], sv(x));
  assert_false(sv(a)->lne || sv(b)->lne || sv(c)->lne);
  expect_text(lz_fmt("%s = \\u [%s] -> plus/2", N(a), N(x)));
  expect_text(lz_fmt("%s = Just [%s]", N(b), N(x)));
  expect_text(lz_fmt("%s = \\r [%s] %s -> plus/2 %s %s", N(c), N(x), N(y), N(y), N(x)));
  expect_text(lz_fmt("(,,) [%s %s %s]", N(a), N(b), N(c)));
}

/* konst = /\a b -> \x y -> x;  io = \n -> (\w -> IORes w n) |> IO Int;  main as usual */
static void test_arity_collects_nested_lambdas(void **state) {
  (void)state;
  CoreTyVar *ta = tv("a"), *tb = tv("b");
  CoreVar *x = local("x", TV(ta)), *y = local("y", TV(tb));
  add_bind(
      global("konst", core_type_forall(ta, core_type_forall(tb, FN(TV(ta), FN(TV(tb), TV(ta)))))),
      core_tylam(ta, core_tylam(tb, core_lam(x, core_lam(y, V(x))))));
  CoreVar *n = local("n", INT()), *w = local("w", T(W.world));
  CoreType *it = INT();
  CoreExpr *res = con_app(W.ioresc, 1, &it, 2, (CoreExpr *[]){V(w), V(n)});
  add_bind(global("io", FN(INT(), TA(W.io, INT()))),
           core_lam(n, mk_cast(core_lam(w, res), TA(W.io, INT()))));
  add_main();
  convert();
  assert_int_equal(top_rhs("konst")->arity, 2);
  StgRhs *io = top_rhs("io");
  assert_int_equal(io->kind, STG_FUN);
  assert_int_equal(io->arity, 2);
  assert_int_equal(io->params[0]->rep, STG_P);
  assert_int_equal(io->params[1]->rep, STG_I);
  assert_int_equal(io->result_rep, STG_P);
  StgRhs *m = top_rhs("main");
  assert_int_equal(m->kind, STG_FUN);
  assert_int_equal(m->arity, 1);
  assert_int_equal(m->params[0]->rep, STG_I);
  assert_ptr_equal(S->main, m->var);
  expect_text(lz_fmt("io = \\r [] %s %s:I -> IORes [%s %s]", N(n), N(w), N(w), N(n)));
}

/* ---- let-no-escape ------------------------------------------------------------------------- */

/* f = \x -> let j = \y -> plus y x in case x of b { I# n -> case n of { 0# -> j x; DEFAULT -> j b }
 * } */
static void test_lne_detected(void **state) {
  (void)state;
  CoreVar *x = local("x", INT()), *y = local("y", INT()), *j = local("j", FN(INT(), INT()));
  CoreVar *b = local("b", INT()), *n = local("n", INTP()), *n2 = local("n2", INTP());
  CoreAlt alts[] = {alt_lit(0, core_app(V(j), V(x))), alt_default(core_app(V(j), V(b)))};
  CoreExpr *body = unbox(x, b, n, INT(), mk_case(V(n), n2, INT(), 2, alts));
  add_bind(global("f", FN(INT(), INT())),
           core_lam(x, mk_let(false, j, core_lam(y, PLUS(V(y), V(x))), body)));
  convert();
  StgVar *sj = sv(j);
  assert_true(sj->lne);
  assert_true(sj->rhs->lne);
  assert_int_equal(sj->rhs->nfvs, 1);
  assert_ptr_equal(sj->rhs->fvs[0], sv(x));
  StgExpr *let = top_rhs("f")->body;
  assert_int_equal(let->kind, SE_LET);
  assert_true(let->lne);
  StgExpr *jump = first_of(let->body, SE_APP);
  assert_non_null(jump);
  assert_int_equal(jump->call, STG_CALL_JUMP);
  expect_text("let-no-escape {");
  expect_text(lz_fmt("jump %s %s", N(j), N(x)));
  expect_text(lz_fmt("jump %s %s", N(j), N(b)));
  assert_int_equal(sj->uses, 2);
}

/* g = \x -> let t = plus x x in case x of b { I# n -> case n of { 0# -> t; DEFAULT -> x } }
 * (a nullary join point) and h: an LNE that jumps to another LNE. */
static void test_lne_nullary_and_transitive(void **state) {
  (void)state;
  CoreVar *x = local("x", INT()), *t = local("t", INT());
  CoreVar *b = local("b", INT()), *n = local("n", INTP()), *n2 = local("n2", INTP());
  CoreAlt alts[] = {alt_lit(0, V(t)), alt_default(V(x))};
  add_bind(global("g", FN(INT(), INT())),
           core_lam(x, mk_let(false, t, PLUS(V(x), V(x)),
                              unbox(x, b, n, INT(), mk_case(V(n), n2, INT(), 2, alts)))));
  /* h = \x -> let j = \y -> plus y x in let k = \z -> j z in case x of b { I# n -> case n of { 0#
   * -> k x; DEFAULT -> j x } } */
  CoreVar *hx = local("x", INT()), *y = local("y", INT()), *z = local("z", INT());
  CoreVar *j = local("j", FN(INT(), INT())), *k = local("k", FN(INT(), INT()));
  CoreVar *hb = local("b", INT()), *hn = local("n", INTP()), *hn2 = local("n2", INTP());
  CoreAlt halts[] = {alt_lit(0, core_app(V(k), V(hx))), alt_default(core_app(V(j), V(hx)))};
  CoreExpr *hbody = unbox(hx, hb, hn, INT(), mk_case(V(hn), hn2, INT(), 2, halts));
  add_bind(global("h", FN(INT(), INT())),
           core_lam(hx, mk_let(false, j, core_lam(y, PLUS(V(y), V(hx))),
                               mk_let(false, k, core_lam(z, core_app(V(j), V(z))), hbody))));
  convert();
  StgVar *st = sv(t);
  assert_true(st->lne);
  assert_int_equal(st->rhs->kind, STG_THUNK);
  expect_text(lz_fmt("jump %s }", N(t)));
  assert_true(sv(j)->lne);
  assert_true(sv(k)->lne);
  /* k's body only jumps to j, but x must be live at a jump to k */
  assert_int_equal(sv(k)->rhs->nfvs, 1);
  assert_ptr_equal(sv(k)->rhs->fvs[0], sv(hx));
}

/* sumTo = \n -> let rec go = \i acc -> case i of { 0# -> acc; DEFAULT -> go (i -# 1#) (acc +# i) }
 * in go n 0# */
static void test_lne_recursive_loop(void **state) {
  (void)state;
  CoreVar *n = local("n", INTP()), *i = local("i", INTP()), *acc = local("acc", INTP()),
          *i2 = local("i2", INTP());
  CoreVar *go = local("go", FN(INTP(), FN(INTP(), INTP())));
  CoreExpr *rec_call =
      A2(V(go), prim2(P_INT_SUB, V(i), lit_int(1)), prim2(P_INT_ADD, V(acc), V(i)));
  CoreAlt alts[] = {alt_lit(0, V(acc)), alt_default(rec_call)};
  CoreExpr *go_rhs = lams(2, (CoreVar *[]){i, acc}, mk_case(V(i), i2, INTP(), 2, alts));
  add_bind(global("sumTo", FN(INTP(), INTP())),
           core_lam(n, mk_let(true, go, go_rhs, A2(V(go), V(n), lit_int(0)))));
  convert();
  StgRhs *top = top_rhs("sumTo");
  assert_int_equal(top->result_rep, STG_I);
  StgVar *sgo = sv(go);
  assert_true(sgo->lne);
  assert_int_equal(sgo->rhs->result_rep, STG_I);
  assert_int_equal(sgo->rhs->nfvs, 0);
  assert_int_equal(sgo->rhs->params[0]->rep, STG_I);
  expect_text("let-no-escape rec {");
  expect_text(lz_fmt("jump %s %s 0#", N(go), N(n)));
  expect_text("sumTo = \\r:I [] ");
  expect_text(lz_fmt("%s = \\r:I [] %s:I %s:I ->", N(go), N(i), N(acc)));
  /* the arguments are evaluated by cases, never thunks */
  expect_text(lz_fmt("case intSub# [%s 1#] of ", N(i)));
  expect_no_text("\\u");
}

/* Each of these join-point candidates escapes in some way: not LNE. */
static void test_lne_negative_cases(void **state) {
  (void)state;
  CoreVar *map = build_map();
  CoreType *ii = FN(INT(), INT()), *it = INT();
  /* f1: passed as an argument (map j [x]) */
  CoreVar *x1 = local("x", INT()), *y1 = local("y", INT()), *j1 = local("j1", ii);
  CoreExpr *lst =
      con_app(W.cons, 1, &it, 2, (CoreExpr *[]){V(x1), con_app(W.nil, 1, &it, 0, NULL)});
  CoreExpr *call = A2(core_tyapp(core_tyapp(V(map), INT()), INT()), V(j1), lst);
  add_bind(global("f1", FN(INT(), TA(W.list, INT()))),
           core_lam(x1, mk_let(false, j1, core_lam(y1, PLUS(V(y1), V(x1))), call)));
  /* f2: called as a case scrutinee */
  CoreVar *x2 = local("x", INT()), *y2 = local("y", INT()), *j2 = local("j2", ii),
          *r2 = local("r", INT());
  CoreExpr *sc2 = mk_case(core_app(V(j2), V(x2)), r2, INT(), 1, (CoreAlt[]){alt_default(V(x2))});
  add_bind(global("f2", ii),
           core_lam(x2, mk_let(false, j2, core_lam(y2, PLUS(V(y2), V(x2))), sc2)));
  /* f3: called with too few arguments */
  CoreVar *x3 = local("x", INT()), *y3 = local("y", INT()), *z3 = local("z", INT());
  CoreVar *j3 = local("j3", FN(INT(), ii));
  add_bind(global("f3", FN(INT(), ii)),
           core_lam(x3, mk_let(false, j3, lams(2, (CoreVar *[]){y3, z3}, PLUS(V(y3), V(z3))),
                               core_app(V(j3), V(x3)))));
  /* f4: called inside a thunk */
  CoreVar *x4 = local("x", INT()), *y4 = local("y", INT()), *j4 = local("j4", ii),
          *t4 = local("t", INT());
  add_bind(global("f4", FN(INT(), TA(W.maybe, INT()))),
           core_lam(x4, mk_let(false, j4, core_lam(y4, PLUS(V(y4), V(x4))),
                               mk_let(false, t4, core_app(V(j4), V(x4)), just(V(t4))))));
  /* f5: a recursive nullary binding (a <<loop>>, which must stay detectable) */
  CoreVar *x5 = local("x", INT()), *r5 = local("r5", INT()), *b5 = local("b", INT()),
          *n5 = local("n", INTP());
  add_bind(global("f5", ii),
           core_lam(x5, mk_let(true, r5, unbox(x5, b5, n5, INT(), V(r5)), V(r5))));
  /* f6: called under an scc */
  CoreVar *x6 = local("x", INT()), *y6 = local("y", INT()), *j6 = local("j6", ii);
  add_bind(global("f6", ii), core_lam(x6, mk_let(false, j6, core_lam(y6, PLUS(V(y6), V(x6))),
                                                 scc("work", core_app(V(j6), V(x6))))));
  convert();
  assert_false(sv(j1)->lne);
  assert_false(sv(j2)->lne);
  assert_false(sv(j3)->lne);
  assert_false(sv(j4)->lne);
  assert_false(sv(r5)->lne);
  assert_false(sv(j6)->lne);
  expect_no_text("let-no-escape");
  expect_no_text("jump");
  expect_text("map/2");
  expect_text(lz_fmt("scc<\"work\"> %s/1 %s", N(j6), N(x6)));
  assert_int_equal(sv(r5)->rhs->kind, STG_THUNK);
}

/* A let rec mixing a closure (xs, a value) and a join point (go) is split in two. */
static void test_mixed_rec_group_is_split(void **state) {
  (void)state;
  CoreType *it = INT(), *li = TA(W.list, INT());
  CoreVar *x = local("x", INT()), *i = local("i", INT()), *b = local("b", INT()),
          *n = local("n", INTP());
  CoreVar *n2 = local("n2", INTP()), *go = local("go", FN(INT(), li)), *xs = local("xs", li);
  CoreAlt alts[] = {alt_lit(0, V(xs)), alt_default(core_app(V(go), V(x)))};
  CoreExpr *go_rhs = core_lam(i, unbox(i, b, n, li, mk_case(V(n), n2, li, 2, alts)));
  CoreExpr *xs_rhs = con_app(W.cons, 1, &it, 2, (CoreExpr *[]){V(x), V(xs)});
  CoreExpr *let = core_expr_new(CE_LET, (LzSpan){0});
  let->rec = true;
  let->nbinds = 2;
  let->binds = LZ_NEW_ARRAY(CoreBind, 2);
  let->binds[0] = (CoreBind){go, go_rhs};
  let->binds[1] = (CoreBind){xs, xs_rhs};
  let->body = core_app(V(go), V(x));
  add_bind(global("f", FN(INT(), li)), core_lam(x, let));
  convert();
  assert_true(sv(go)->lne);
  assert_false(sv(xs)->lne);
  StgExpr *outer = top_rhs("f")->body;
  assert_int_equal(outer->kind, SE_LET);
  assert_false(outer->lne);
  assert_int_equal(outer->nbinds, 1);
  assert_ptr_equal(outer->binds[0].var, sv(xs));
  assert_int_equal(outer->body->kind, SE_LET);
  assert_true(outer->body->lne);
  /* a closure does not capture itself: xs is the node inside its own code */
  assert_int_equal(sv(xs)->rhs->nfvs, 1);
  assert_ptr_equal(sv(xs)->rhs->fvs[0], sv(x));
  char *lr = strstr(text, "let rec {"), *lne = strstr(text, "let-no-escape rec {");
  assert_non_null(lr);
  assert_non_null(lne);
  assert_true(lr < lne);
}

/* ---- erasure ---------------------------------------------------------------------------- */

static void test_erasure_of_casts_and_type_applications(void **state) {
  (void)state;
  CoreVar *id = build_id();
  CoreType *age = T(W.age);
  /* useId = \a -> id @Int (a |> Int) */
  CoreVar *a = local("a", age);
  add_bind(global("useId", FN(age, INT())),
           core_lam(a, core_app(core_tyapp(V(id), INT()), mk_cast(V(a), INT()))));
  /* mkAge = \n -> n |> Age */
  CoreVar *n = local("n", INT());
  add_bind(global("mkAge", FN(INT(), age)), core_lam(n, mk_cast(V(n), age)));
  /* caseAge = \a -> case (a |> Int) of b { I# m -> b } */
  CoreVar *a2 = local("a", age), *b = local("b", INT()), *m = local("m", INTP());
  CoreAlt alt = alt_con(W.ihash, &m, V(b));
  add_bind(global("caseAge", FN(age, INT())),
           core_lam(a2, mk_case(mk_cast(V(a2), INT()), b, INT(), 1, &alt)));
  /* alias = \x -> let y = x |> Age in y */
  CoreVar *x = local("x", INT()), *y = local("y", age);
  add_bind(global("alias", FN(INT(), age)),
           core_lam(x, mk_let(false, y, mk_cast(V(x), age), V(y))));
  convert();
  expect_text(lz_fmt("useId = \\r [] %s -> id/1 %s\n", N(a), N(a)));
  expect_text(lz_fmt("mkAge = \\r [] %s -> %s\n", N(n), N(n)));
  expect_text(lz_fmt("case %s of %s { I# %s:I -> %s }", N(a2), N(b), N(m), N(b)));
  expect_text(lz_fmt("alias = \\r [] %s -> %s\n", N(x), N(x)));
  expect_text("id = \\r [] ");
  expect_no_text("|>");
  expect_no_text("@");
}

/* ---- unlifted values ------------------------------------------------------------------------- */

static void test_unlifted_arguments_are_evaluated_not_thunked(void **state) {
  (void)state;
  /* gi = \n -> I# n;  f = \x -> gi (x +# 1#) */
  CoreVar *gn = local("n", INTP()), *gi = global("gi", FN(INTP(), INT()));
  add_bind(gi, core_lam(gn, con_app(W.ihash, 0, NULL, 1, (CoreExpr *[]){V(gn)})));
  CoreVar *x = local("x", INTP());
  add_bind(global("f", FN(INTP(), INT())),
           core_lam(x, core_app(V(gi), prim2(P_INT_ADD, V(x), lit_int(1)))));
  /* h = \x -> let b = I# (x +# 1#) in Just b  (pure primop: evaluated early, b a constructor) */
  CoreVar *hx = local("x", INTP()), *hb = local("b", INT());
  CoreExpr *box = con_app(W.ihash, 0, NULL, 1, (CoreExpr *[]){prim2(P_INT_ADD, V(hx), lit_int(1))});
  add_bind(global("h", FN(INTP(), TA(W.maybe, INT()))),
           core_lam(hx, mk_let(false, hb, box, just(V(hb)))));
  /* q = \x -> let b = I# (quotInt# x 0#) in Just b  (can fail: stays lazy, a thunk) */
  CoreVar *qx = local("x", INTP()), *qb = local("b", INT());
  CoreExpr *qbox =
      con_app(W.ihash, 0, NULL, 1, (CoreExpr *[]){prim2(P_INT_QUOT, V(qx), lit_int(0))});
  add_bind(global("q", FN(INTP(), TA(W.maybe, INT()))),
           core_lam(qx, mk_let(false, qb, qbox, just(V(qb)))));
  /* s = \x -> let y :: Int# = x +# x in I# y  (a strict let: a case) */
  CoreVar *sx = local("x", INTP()), *sy = local("y", INTP());
  add_bind(global("s", FN(INTP(), INT())),
           core_lam(sx, mk_let(false, sy, prim2(P_INT_ADD, V(sx), V(sx)),
                               con_app(W.ihash, 0, NULL, 1, (CoreExpr *[]){V(sy)}))));
  /* r = gw realWorld#  and  d = \x -> D# (x +## x) */
  CoreVar *w = local("w", T(W.world)), *gw = global("gw", FN(T(W.world), INT()));
  add_bind(gw, core_lam(w, boxed(1)));
  add_bind(global("r", INT()), core_app(V(gw), mk_primop(P_REALWORLD, T(W.world), 0, NULL)));
  CoreType *dp = T(core_prim_tycon("Double#"));
  CoreVar *dx = local("x", dp);
  CoreExpr *dsum = mk_primop(P_DBL_ADD, dp, 2, (CoreExpr *[]){V(dx), V(dx)});
  add_bind(global("d", FN(dp, T(dbl_tc))), core_lam(dx, con_app(dhash, 0, NULL, 1, &dsum)));
  convert();
  StgExpr *fb = top_rhs("f")->body;
  assert_int_equal(fb->kind, SE_CASE);
  assert_int_equal(fb->alts_type, STG_ALTS_PRIM);
  assert_int_equal(fb->binder->rep, STG_I);
  assert_int_equal(fb->scrut->kind, SE_PRIMOP);
  expect_text(lz_fmt("f = \\r [] %s:I -> case intAdd# [%s 1#] of ds_", N(x), N(x)));
  assert_int_equal(sv(hb)->rhs->kind, STG_CON);
  assert_int_equal(top_rhs("h")->body->kind, SE_CASE);
  assert_int_equal(sv(qb)->rhs->kind, STG_THUNK);
  expect_text(lz_fmt("%s = \\u [%s] -> case intQuot# [%s 0#] of ", N(qb), N(qx), N(qx)));
  expect_text(lz_fmt("s = \\r [] %s:I -> case intAdd# [%s %s] of %s:I { DEFAULT -> I# [%s] }",
                     N(sx), N(sx), N(sx), N(sy), N(sy)));
  expect_text("r = \\u [] -> gw/1 0#");
  StgExpr *db = top_rhs("d")->body;
  assert_int_equal(db->kind, SE_CASE);
  assert_int_equal(db->binder->rep, STG_D);
  assert_int_equal(top_rhs("d")->params[0]->rep, STG_D);
  expect_no_text("\\u [] -> intAdd#");
}

/* Integer literals become shared top-level CAFs. */
static void test_integer_literals(void **state) {
  (void)state;
  CoreType *integer = T(W.integer);
  CoreExpr *l1 = lit_integer("42", true, 42), *l2 = lit_integer("42", true, 42);
  CoreExpr *l3 = lit_integer("123456789012345678901234567890", false, 0),
           *l4 = lit_integer("-5", true, -5);
  add_bind(global("i1", TA(W.maybe, integer)), con_app(W.just, 1, &integer, 1, &l1));
  add_bind(global("i2", TA(W.maybe, integer)), con_app(W.just, 1, &integer, 1, &l2));
  add_bind(global("i3", TA(W.maybe, integer)), con_app(W.just, 1, &integer, 1, &l3));
  add_bind(global("i4", TA(W.maybe, integer)), con_app(W.just, 1, &integer, 1, &l4));
  convert();
  expect_text("$integer_42 = \\u [] -> integerFromInt# [42#]");
  assert_int_equal(count_text("$integer_42 = "), 1);
  expect_text("i1 = Just [$integer_42]");
  expect_text("i2 = Just [$integer_42]");
  expect_text("= \\u [] -> integerFromDecAddr# [\"123456789012345678901234567890\"#]");
  expect_text("$integer_m5 = \\u [] -> integerFromInt# [-5#]");
  StgRhs *r = top_rhs("$integer_42");
  assert_non_null(r->integer);
  assert_int_equal(r->integer->i, 42);
  assert_int_equal(top_rhs("i1")->kind, STG_CON);
}

/* Arguments of static constructors become static closures (or CAFs) of their own. */
static void test_static_constructors(void **state) {
  (void)state;
  CoreType *it = INT();
  CoreExpr *nil = con_app(W.nil, 1, &it, 0, NULL);
  CoreExpr *l2 = con_app(W.cons, 1, &it, 2, (CoreExpr *[]){boxed(2), nil});
  add_bind(global("xs", TA(W.list, INT())),
           con_app(W.cons, 1, &it, 2, (CoreExpr *[]){boxed(1), l2}));
  add_bind(global("ys", TA(W.maybe, INT())), just(PLUS(boxed(1), boxed(2))));
  convert();
  for (int i = 0; i < S->binds.len; i++) {
    const char *nm = S->binds.data[i].var->name;
    if (strncmp(nm, "xs", 2) == 0) assert_int_equal(S->binds.data[i].rhs->kind, STG_CON);
    assert_int_equal(S->binds.data[i].rhs->nfvs, 0);
  }
  assert_int_equal(top_rhs("ys")->kind, STG_CON);
  /* constant constructor applications are shared static closures, one per value */
  assert_int_equal(count_text("= I# [1#]"), 1);
  assert_int_equal(count_text("= I# [2#]"), 1);
  expect_text("[] = [] []");
  expect_text("$");
  expect_text(" = \\u [] -> plus/2 Lz.Base.I#$");
  expect_no_text("let");
}

/* Constant data nests: Just (Just (I# 1#)) is three static closures, no code. A strict
 * Integer field never receives the literal's CAF unevaluated. */
static void test_nested_static_data_and_strict_integer_fields(void **state) {
  (void)state;
  CoreType *mi = TA(W.maybe, INT());
  CoreExpr *inner = just(boxed(1));
  add_bind(global("nest", TA(W.maybe, mi)), con_app(W.just, 1, &mi, 1, &inner));
  CoreType *integer = T(W.integer);
  CoreTyCon *bi = mk_tycon("BI", TC_DATA, 0, NULL);
  CoreDataCon *bic = mk_con(bi, "BI", 1, &integer);
  bic->strict[0] = true;
  CoreExpr *l1 = lit_integer("5", true, 5), *l2 = lit_integer("5", true, 5),
           *l3 = lit_integer("5", true, 5);
  add_bind(global("b1", T(bi)), con_app(bic, 0, NULL, 1, &l1));
  CoreVar *x = local("x", INT());
  add_bind(global("b2", FN(INT(), T(bi))), core_lam(x, con_app(bic, 0, NULL, 1, &l2)));
  CoreVar *y = local("y", INT()), *b = local("b", T(bi));
  CoreType *tbi = T(bi);
  CoreExpr *jb = con_app(W.just, 1, &tbi, 1, (CoreExpr *[]){V(b)});
  add_bind(global("b3", FN(INT(), TA(W.maybe, T(bi)))),
           core_lam(y, mk_let(false, b, con_app(bic, 0, NULL, 1, &l3), jb)));
  convert();
  StgRhs *nest = top_rhs("nest");
  assert_int_equal(nest->kind, STG_CON);
  assert_int_equal(nest->args[0].kind, SA_VAR);
  StgRhs *mid = nest->args[0].var->rhs;
  assert_int_equal(mid->kind, STG_CON);
  assert_ptr_equal(mid->con, W.just);
  assert_int_equal(mid->args[0].var->rhs->kind, STG_CON);
  assert_ptr_equal(mid->args[0].var->rhs->con, W.ihash);
  /* b1 is a CAF that evaluates the literal first; b2 evaluates it in its body; b3's let
   * is a thunk */
  assert_int_equal(top_rhs("b1")->kind, STG_THUNK);
  expect_text("b1 = \\u [] -> case $integer_5 of ds_");
  expect_text(lz_fmt("b2 = \\r [] %s -> case $integer_5 of ds_", N(x)));
  assert_int_equal(sv(b)->rhs->kind, STG_THUNK);
  expect_no_text("BI [$integer_5]");
}

/* case x of b { DEFAULT -> y } on a lifted x evaluates x: it stays. scc stays too. */
static void test_seq_case_and_scc_kept(void **state) {
  (void)state;
  CoreVar *x = local("x", INT()), *y = local("y", INT()), *b = local("b", INT());
  CoreAlt alt = alt_default(V(y));
  add_bind(global("sq", FN(INT(), FN(INT(), INT()))),
           lams(2, (CoreVar *[]){x, y}, mk_case(V(x), b, INT(), 1, &alt)));
  CoreVar *z = local("z", INT());
  add_bind(global("sc", FN(INT(), INT())), core_lam(z, scc("work", PLUS(V(z), V(z)))));
  convert();
  StgExpr *c = top_rhs("sq")->body;
  assert_int_equal(c->kind, SE_CASE);
  assert_int_equal(c->scrut->kind, SE_ATOM);
  assert_int_equal(c->alts_type, STG_ALTS_ALG);
  assert_ptr_equal(c->tycon, W.int_);
  expect_text(lz_fmt("case %s of %s { DEFAULT -> %s }", N(x), N(b), N(y)));
  assert_int_equal(sv(b)->uses, 0);
  expect_text(lz_fmt("scc<\"work\"> plus/2 %s %s", N(z), N(z)));
}

/* A lambda in expression position, an application of a let, a beta redex. */
static void test_odd_shapes(void **state) {
  (void)state;
  CoreType *ii = FN(INT(), INT());
  /* mk = \x -> \y -> ... is arity 2; but ret = \x -> Just (\y -> plus x y) needs a closure */
  CoreVar *x = local("x", INT()), *y = local("y", INT());
  CoreExpr *lam = core_lam(y, PLUS(V(x), V(y)));
  CoreExpr *jl = con_app(W.just, 1, &ii, 1, &lam);
  add_bind(global("ret", FN(INT(), TA(W.maybe, ii))), core_lam(x, jl));
  /* app_let = \x -> (let f = \y -> plus y x in f) x */
  CoreVar *x2 = local("x", INT()), *y2 = local("y", INT()), *f2 = local("f", ii);
  add_bind(
      global("app_let", ii),
      core_lam(x2, core_app(mk_let(false, f2, core_lam(y2, PLUS(V(y2), V(x2))), V(f2)), V(x2))));
  /* beta = \x -> (\y -> plus y y) (plus x x) */
  CoreVar *x3 = local("x", INT()), *y3 = local("y", INT());
  add_bind(global("beta", ii),
           core_lam(x3, core_app(core_lam(y3, PLUS(V(y3), V(y3))), PLUS(V(x3), V(x3)))));
  /* lamret = \x -> (\y -> y) returned from a case */
  CoreVar *x4 = local("x", INT()), *y4 = local("y", INT()), *b4 = local("b", INT());
  CoreAlt alt = alt_default(core_lam(y4, V(y4)));
  add_bind(global("lamret", FN(INT(), ii)), core_lam(x4, mk_case(V(x4), b4, ii, 1, &alt)));
  convert();
  StgExpr *r = top_rhs("ret")->body;
  assert_int_equal(r->kind, SE_LET);
  assert_int_equal(r->binds[0].rhs->kind, STG_FUN);
  assert_int_equal(r->binds[0].rhs->nfvs, 1);
  /* (let f = .. in f) x: the let floats out, f is then called saturated: LNE */
  assert_true(sv(f2)->lne);
  expect_text(lz_fmt("jump %s %s", N(f2), N(x2)));
  /* the redex becomes a let of the argument */
  assert_int_equal(sv(y3)->rhs->kind, STG_THUNK);
  expect_text(lz_fmt("DEFAULT -> let { lam_"));
}

/* ---- the linter rejects broken STG ------------------------------------------------------------
 */

static StgVar *lint_fixture(CoreVar **a, CoreVar **t, CoreVar **u) {
  CoreVar *va = local("a", INT()), *vb = local("b", INT()), *vc = local("c", INT());
  CoreVar *vt = local("t", INT()), *vu = local("u", INT());
  CoreExpr *body =
      mk_let(false, vt, PLUS(V(va), V(vb)), mk_let(false, vu, PLUS(V(vt), V(vc)), just(V(vu))));
  add_bind(global("f", FN(INT(), FN(INT(), FN(INT(), TA(W.maybe, INT()))))),
           lams(3, (CoreVar *[]){va, vb, vc}, body));
  convert();
  if (a) *a = va;
  if (t) *t = vt;
  if (u) *u = vu;
  return sv(vt);
}

static void test_lint_missing_free_variable(void **state) {
  (void)state;
  StgVar *t = lint_fixture(NULL, NULL, NULL);
  t->rhs->nfvs = 1;
  expect_stg_violation("is missing from the list of");
}

static void test_lint_extra_free_variable(void **state) {
  (void)state;
  CoreVar *u;
  StgVar *t = lint_fixture(NULL, NULL, &u);
  StgVar **fvs = LZ_NEW_ARRAY(StgVar *, 3);
  fvs[0] = t->rhs->fvs[0];
  fvs[1] = t->rhs->fvs[1];
  fvs[2] = sv(u)->rhs->fvs[1]; /* c: in scope, but t does not mention it */
  t->rhs->fvs = fvs;
  t->rhs->nfvs = 3;
  expect_stg_violation("but does not occur");
}

static void test_lint_rep_mismatch(void **state) {
  (void)state;
  CoreVar *u;
  lint_fixture(NULL, NULL, &u);
  StgExpr *con = first_of(top_rhs("f")->body, SE_CON);
  assert_non_null(con);
  CoreLit l = {0};
  l.kind = CL_INT;
  con->args[0] = stg_atom_lit(l); /* Just [1#]: an I where a P is required */
  expect_stg_violation("has rep I where P is required");
}

static void test_lint_unbound_variable(void **state) {
  (void)state;
  lint_fixture(NULL, NULL, NULL);
  StgExpr *con = first_of(top_rhs("f")->body, SE_CON);
  con->args[0] = stg_atom_var(stg_var_new(S, lz_sym("ghost"), 99999, STG_P, (LzSpan){0}));
  expect_stg_violation("variable ‘ghost_99999’ is not in scope");
}

static void test_lint_unsaturated(void **state) {
  (void)state;
  lint_fixture(NULL, NULL, NULL);
  StgExpr *con = first_of(top_rhs("f")->body, SE_CON);
  con->nargs = 0;
  expect_stg_violation("constructor ‘Just’ applied to 0 arguments (arity 1)");
  StgExpr *prim = first_of(top_rhs("plus")->body, SE_PRIMOP);
  assert_non_null(prim);
  prim->nargs = 1;
  expect_stg_violation("primop ‘intAdd#’ applied to 1 arguments (arity 2)");
}

static void test_lint_call_kinds(void **state) {
  (void)state;
  StgVar *t = lint_fixture(NULL, NULL, NULL);
  assert_int_equal(t->rhs->body->call, STG_CALL_KNOWN);
  t->rhs->body->call = STG_CALL_UNKNOWN;
  expect_stg_violation("call of known function ‘plus’ marked unknown");
}

/* An LNE jumped to from inside an scc, or used as a value, is rejected. */
static void test_lint_lne_discipline(void **state) {
  (void)state;
  CoreVar *x = local("x", INT()), *y = local("y", INT()), *j = local("j", FN(INT(), INT()));
  add_bind(global("f", FN(INT(), INT())),
           core_lam(x, mk_let(false, j, core_lam(y, PLUS(V(y), V(x))), core_app(V(j), V(x)))));
  convert();
  StgExpr *let = top_rhs("f")->body;
  assert_true(let->lne);
  StgExpr *jump = let->body;
  assert_int_equal(jump->call, STG_CALL_JUMP);
  StgExpr *s = stg_expr_new(SE_SCC, jump->rep, jump->span);
  s->scc = lz_sym("c");
  s->body = jump;
  let->body = s;
  expect_stg_violation("is not in tail position of its let");
  StgExpr *val = stg_expr_new(SE_ATOM, STG_P, jump->span);
  val->atom = stg_atom_var(jump->fn);
  let->body = val;
  expect_stg_violation("used as a value");
}

static void test_lint_bound_twice_and_bad_case(void **state) {
  (void)state;
  CoreVar *x = local("x", INT()), *b = local("b", INT()), *n = local("n", INTP());
  add_bind(global("f", FN(INT(), INT())), core_lam(x, unbox(x, b, n, INT(), V(b))));
  convert();
  StgExpr *c = top_rhs("f")->body;
  StgVar *sn = sv(n);
  assert_int_equal(c->kind, SE_CASE);
  c->alts[0].vars[0] = top_rhs("f")->params[0]; /* I# x -> ...: x rebound, with the wrong rep */
  expect_stg_violation("is bound twice");
  assert_non_null(strstr(stg_out, "has rep P but field 1 of ‘I#’ is I"));
  c->alts[0].vars[0] = sn;
  c->alts_type = STG_ALTS_PRIM;
  expect_stg_violation("case of a P scrutinee has primitive alternatives");
}

/* ---- robustness -------------------------------------------------------------------------------
 */

typedef struct DeepJob {
  StgProgram *result;
  int lint_errors;
  char *text;
} DeepJob;

/* Convert (and lint and print) on a thread with a big stack, as lzc does; no cmocka
 * assertions on that thread. */
static void *deep_convert(void *arg) {
  DeepJob *j = arg;
  j->result = stg_from_core(W.p);
  if (j->result) {
    j->lint_errors = stg_lint_program(j->result, "test");
    j->text = print_stg(j->result);
  }
  return NULL;
}

static void run_on_big_stack(DeepJob *job) {
  pthread_attr_t attr;
  pthread_t th;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, 512u << 20), 0);
  assert_int_equal(pthread_create(&th, &attr, deep_convert, job), 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&attr);
}

/* Moderately deep nesting converts, lints and prints; deeper than STG_MAX_DEPTH is an
 * error, not a crash. */
static void test_deep_nesting(void **state) {
  CoreExpr *ok = boxed(0);
  for (int i = 0; i < 1500; i++) {
    CoreVar *v = local("v", INT());
    ok = mk_let(false, v, PLUS(ok, boxed(i)), V(v));
  }
  add_bind(global("ok", INT()), ok);
  add_main();
  expect_clean();
  DeepJob job = {NULL, 0, NULL};
  run_on_big_stack(&job);
  assert_non_null(job.result);
  assert_int_equal(job.lint_errors, 0);
  assert_non_null(strstr(job.text, "ok = \\u [] ->"));

  /* too deep: a chain of strict lets of unlifted values, nested in their right-hand sides */
  stg_teardown(state);
  stg_setup(state);
  CoreExpr *deep = lit_int(0);
  for (int i = 0; i < STG_MAX_DEPTH + 10; i++) {
    CoreVar *v = local("v", INTP());
    deep = mk_let(false, v, prim2(P_INT_ADD, deep, lit_int(1)), V(v));
  }
  add_bind(global("deep", INT()), con_app(W.ihash, 0, NULL, 1, &deep));
  add_main();
  char *diag = NULL;
  size_t dlen = 0;
  FILE *df = open_memstream(&diag, &dlen);
  lz_set_diag_stream(df);
  DeepJob job2 = {NULL, 0, NULL};
  run_on_big_stack(&job2);
  lz_set_diag_stream(NULL);
  fclose(df);
  assert_null(job2.result);
  assert_non_null(strstr(diag, "nested too deeply"));
  free(diag);
}

/* ---- through the real front end -------------------------------------------------------------- */

#include "../../frontend/frontend.h"

static const char real_program[] = "module Main where\n"
                                   "data Shape = Circle Double | Rect Double Double deriving Show\n"
                                   "area :: Shape -> Double\n"
                                   "area (Circle r) = 3.14159 * r * r\n"
                                   "area (Rect w h) = w * h\n"
                                   "sumTo :: Int -> Int\n"
                                   "sumTo n = go 0 n where\n"
                                   "  go acc 0 = acc\n"
                                   "  go acc k = go (acc + k) (k - 1)\n"
                                   "main :: IO ()\n"
                                   "main = do\n"
                                   "  mapM_ (print . area) [Circle 1.0, Rect 2 3]\n"
                                   "  print (sumTo 100, 2 ^ 70 :: Integer)\n";

typedef struct RealJob {
  CoreProgram *core;
  StgProgram *stg;
  int core_lint, stg_lint;
  char *text;
} RealJob;

static void *real_compile(void *arg) {
  RealJob *j = arg;
  FeOptions o = {0};
  o.stdlib_dir = LZ_STDLIB_DIR;
  j->core = fe_compile_text("real.lz", real_program, sizeof real_program - 1, &o);
  if (!j->core) return NULL;
  j->core_lint = core_lint_program(j->core, "front end");
  j->stg = stg_from_core(j->core);
  if (!j->stg) return NULL;
  j->stg_lint = stg_lint_program(j->stg, "core to stg");
  j->text = print_stg(j->stg);
  return NULL;
}

/* A real program (with the whole standard library) converts and lints; its join point,
 * Integer literal and Double code look as expected. */
static void test_real_program(void **state) {
  (void)state;
  RealJob job = {0};
  pthread_attr_t attr;
  pthread_t th;
  assert_int_equal(pthread_attr_init(&attr), 0);
  assert_int_equal(pthread_attr_setstacksize(&attr, 512u << 20), 0);
  assert_int_equal(pthread_create(&th, &attr, real_compile, &job), 0);
  pthread_join(th, NULL);
  pthread_attr_destroy(&attr);
  if (!job.core) fprintf(stderr, "front end failed (%d errors)\n", lz_error_count());
  assert_non_null(job.core);
  assert_int_equal(job.core_lint, 0);
  assert_non_null(job.stg);
  if (job.stg_lint) fprintf(stderr, "stg lint:\n%s\n", stg_out);
  assert_int_equal(job.stg_lint, 0);
  text = job.text;
  expect_text("\nsumTo = \\r [] n_");
  expect_text("\narea = \\r [] ");
  expect_text("integerFromInt# [70#]");  /* the literal of 2 ^ 70 */
  expect_text(" = Circle [Lz.Base.D#$"); /* Circle 1.0: static data */
  assert_non_null(job.stg->main);
  assert_string_equal(job.stg->main->name, "main");
}

#define T_(name) cmocka_unit_test_setup_teardown(name, stg_setup, stg_teardown)

int main(void) {
  const struct CMUnitTest tests[] = {
      T_(test_free_variables_in_order),
      T_(test_anf_of_nested_applications),
      T_(test_update_flags),
      T_(test_arity_collects_nested_lambdas),
      T_(test_lne_detected),
      T_(test_lne_nullary_and_transitive),
      T_(test_lne_recursive_loop),
      T_(test_lne_negative_cases),
      T_(test_mixed_rec_group_is_split),
      T_(test_erasure_of_casts_and_type_applications),
      T_(test_unlifted_arguments_are_evaluated_not_thunked),
      T_(test_integer_literals),
      T_(test_static_constructors),
      T_(test_nested_static_data_and_strict_integer_fields),
      T_(test_seq_case_and_scc_kept),
      T_(test_odd_shapes),
      T_(test_lint_missing_free_variable),
      T_(test_lint_extra_free_variable),
      T_(test_lint_rep_mismatch),
      T_(test_lint_unbound_variable),
      T_(test_lint_unsaturated),
      T_(test_lint_call_kinds),
      T_(test_lint_lne_discipline),
      T_(test_lint_bound_twice_and_bad_case),
      T_(test_deep_nesting),
      T_(test_real_program),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

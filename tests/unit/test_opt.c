/* test_opt.c — unit tests of the Core optimiser (core-ir/opt*.c, simplify*.c,
 * strictness.c): each transformation fires where it should and not where it must not,
 * and every result passes the Core linter (core_optimise runs it after every pass here).
 *
 * The approach: two kinds of programs. Hand-built ones over the fixture of
 * core_fixture.h, whose `main` returns the expression under test in its IORes, so the
 * test reads the optimised expression back out of main (known constructor, constant
 * folding, a failing quot left alone, an effect kept, an scc boundary respected, no
 * work moved under a lambda, case of case, casts of casts). And programs compiled by the
 * front end from Lz source with the real standard library (nfib becomes a worker on
 * Int#, dictionary methods become primitive code, an overloaded recursive function is
 * specialised, and the whole golden corpus optimises with clean lint), where the tests
 * count Core nodes before and after. */
#include <pthread.h>

#include "core_fixture.h"
#include "frontend.h"

/* ---- helpers ---------------------------------------------------------------------------- */

static int count_kind(const CoreExpr *e, CoreExprKind k) {
  if (!e) return 0;
  int n = e->kind == k;
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: return n;
  case CE_APP: return n + count_kind(e->fn, k) + count_kind(e->arg, k);
  case CE_TYAPP: return n + count_kind(e->fn, k);
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return n + count_kind(e->body, k);
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++)
      n += count_kind(e->binds[i].rhs, k);
    return n + count_kind(e->body, k);
  case CE_CASE:
    n += count_kind(e->body, k);
    for (int i = 0; i < e->nalts; i++)
      n += count_kind(e->alts[i].rhs, k);
    return n;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      n += count_kind(e->args[i], k);
    return n;
  }
  return n;
}

static int count_primop(const CoreExpr *e, int op) {
  if (!e) return 0;
  int n = e->kind == CE_PRIMOP && e->primop == op;
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: return n;
  case CE_APP: return n + count_primop(e->fn, op) + count_primop(e->arg, op);
  case CE_TYAPP: return n + count_primop(e->fn, op);
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return n + count_primop(e->body, op);
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++)
      n += count_primop(e->binds[i].rhs, op);
    return n + count_primop(e->body, op);
  case CE_CASE:
    n += count_primop(e->body, op);
    for (int i = 0; i < e->nalts; i++)
      n += count_primop(e->alts[i].rhs, op);
    return n;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      n += count_primop(e->args[i], op);
    return n;
  }
  return n;
}

/* Does e mention a global whose name starts with prefix (or equals it, exact)? */
static bool mentions_global(const CoreExpr *e, const char *name, bool prefix) {
  if (!e) return false;
  switch (e->kind) {
  case CE_VAR:
    return e->var->global && (prefix ? strncmp(e->var->name, name, strlen(name)) == 0
                                     : strcmp(e->var->name, name) == 0);
  case CE_LIT: return false;
  case CE_APP: return mentions_global(e->fn, name, prefix) || mentions_global(e->arg, name, prefix);
  case CE_TYAPP: return mentions_global(e->fn, name, prefix);
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return mentions_global(e->body, name, prefix);
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++)
      if (mentions_global(e->binds[i].rhs, name, prefix)) return true;
    return mentions_global(e->body, name, prefix);
  case CE_CASE:
    if (mentions_global(e->body, name, prefix)) return true;
    for (int i = 0; i < e->nalts; i++)
      if (mentions_global(e->alts[i].rhs, name, prefix)) return true;
    return false;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      if (mentions_global(e->args[i], name, prefix)) return true;
    return false;
  }
  return false;
}

static CoreBind *find_bind(CoreProgram *p, const char *name) {
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++)
      if (strcmp(p->groups.data[g].binds[i].var->name, name) == 0)
        return &p->groups.data[g].binds[i];
  return NULL;
}

/* The right-hand side of the first local binding named name (a prefix) in e. */
static const CoreExpr *find_local_bind(const CoreExpr *e, const char *name) {
  if (!e) return NULL;
  const CoreExpr *r = NULL;
  switch (e->kind) {
  case CE_VAR:
  case CE_LIT: return NULL;
  case CE_APP: return (r = find_local_bind(e->fn, name)) ? r : find_local_bind(e->arg, name);
  case CE_TYAPP: return find_local_bind(e->fn, name);
  case CE_LAM:
  case CE_TYLAM:
  case CE_CAST:
  case CE_SCC: return find_local_bind(e->body, name);
  case CE_LET:
    for (int i = 0; i < e->nbinds; i++) {
      if (strncmp(e->binds[i].var->name, name, strlen(name)) == 0) return e->binds[i].rhs;
      if ((r = find_local_bind(e->binds[i].rhs, name))) return r;
    }
    return find_local_bind(e->body, name);
  case CE_CASE:
    if ((r = find_local_bind(e->body, name))) return r;
    for (int i = 0; i < e->nalts; i++)
      if ((r = find_local_bind(e->alts[i].rhs, name))) return r;
    return NULL;
  case CE_CON:
  case CE_PRIMOP:
    for (int i = 0; i < e->nargs; i++)
      if ((r = find_local_bind(e->args[i], name))) return r;
    return NULL;
  }
  return NULL;
}

/* ---- hand-built programs: main returns the expression under test ---------------------------- */

static CoreType *UNIT(void) { return T(W.unit); }

/* main = (\ w -> IORes @t w e) |> IO t */
static void main_returning(CoreExpr *e, CoreType *t) {
  CoreVar *w = local("w", T(W.world));
  CoreExpr *res = con_app(W.ioresc, 1, &t, 2, (CoreExpr *[]){core_var(w), e});
  CoreVar *m = global("main", TA(W.io, t));
  add_bind(m, mk_cast(core_lam(w, res), TA(W.io, t)));
  W.p->main = m;
}

/* The expression main returns, after optimisation. */
static CoreExpr *main_result(void) {
  CoreExpr *e = find_bind(W.p, "main")->rhs;
  while (e->kind == CE_CAST || e->kind == CE_LAM)
    e = e->body;
  while (e->kind == CE_LET)
    e = e->body;
  assert_int_equal(e->kind, CE_CON);
  assert_ptr_equal(e->con, W.ioresc);
  return e->args[1];
}

static void optimise_clean(void) {
  expect_clean();
  core_optimise(W.p, 2, true);
  expect_clean();
}

/* g :: Int -> Int; g = \ n -> g n  (recursive: never inlined, an opaque call) */
static CoreVar *opaque_fun(void) {
  CoreVar *g = global("g", FN(INT(), INT()));
  CoreVar *n = local("n", INT());
  CoreExpr *rhs = core_lam(n, core_app(core_var(g), core_var(n)));
  add_group(true, 1, &g, &rhs);
  return g;
}

static void test_known_constructor(void **state) {
  (void)state;
  CoreType *it = INT();
  CoreVar *y = local("y", INT()), *w = local("wild", TA(W.maybe, INT()));
  CoreAlt alts[] = {alt_con(W.nothing, NULL, boxed(0)), alt_con(W.just, &y, core_var(y))};
  CoreExpr *scrut = con_app(W.just, 1, &it, 1, (CoreExpr *[]){boxed(5)});
  main_returning(mk_case(scrut, w, INT(), 2, alts), INT());
  optimise_clean();
  CoreExpr *r = main_result();
  assert_int_equal(r->kind, CE_CON);
  assert_ptr_equal(r->con, W.ihash);
  assert_int_equal(r->args[0]->lit.i, 5);
}

static void test_known_literal(void **state) {
  (void)state;
  CoreVar *n;
  CoreExpr *c = is_zero_case(&n);
  c->body = lit_int(0); /* case 0# of { 0# -> True; DEFAULT -> False } */
  main_returning(c, T(W.bool_));
  optimise_clean();
  CoreExpr *r = main_result();
  assert_int_equal(r->kind, CE_CON);
  assert_ptr_equal(r->con, W.true_);
}

static void test_constant_folding(void **state) {
  (void)state;
  CoreType *ip = T(W.intp);
  CoreExpr *sum = mk_primop(P_INT_ADD, ip, 2, (CoreExpr *[]){lit_int(INT64_MAX), lit_int(1)});
  main_returning(con_app(W.ihash, 0, NULL, 1, &sum), INT());
  optimise_clean();
  CoreExpr *r = main_result();
  assert_int_equal(r->args[0]->kind, CE_LIT);
  assert_true(r->args[0]->lit.i == INT64_MIN); /* wraps like the runtime */
}

static void test_no_folding_of_failing_quot(void **state) {
  (void)state;
  CoreType *ip = T(W.intp);
  W.p->primop_types[P_INT_QUOT] = FN(ip, FN(ip, ip));
  CoreExpr *q = mk_primop(P_INT_QUOT, ip, 2, (CoreExpr *[]){lit_int(7), lit_int(0)});
  CoreExpr *ok = mk_primop(P_INT_QUOT, ip, 2, (CoreExpr *[]){lit_int(7), lit_int(2)});
  CoreType *it = INT();
  CoreExpr *pair = con_app(W.just, 1, &it, 1, (CoreExpr *[]){con_app(W.ihash, 0, NULL, 1, &q)});
  main_returning(
      con_app(W.cons, 1, (CoreType *[]){TA(W.maybe, INT())}, 2,
              (CoreExpr *[]){pair, con_app(W.nil, 1, (CoreType *[]){TA(W.maybe, INT())}, 0, NULL)}),
      TA(W.list, TA(W.maybe, INT())));
  (void)ok;
  optimise_clean();
  assert_int_equal(count_primop(main_result(), P_INT_QUOT), 1); /* division by zero stays */
  /* and a valid one folds */
  teardown(NULL);
  setup(NULL);
  W.p->primop_types[P_INT_QUOT] = FN(T(W.intp), FN(T(W.intp), T(W.intp)));
  ok = mk_primop(P_INT_QUOT, T(W.intp), 2, (CoreExpr *[]){lit_int(-7), lit_int(2)});
  main_returning(con_app(W.ihash, 0, NULL, 1, &ok), INT());
  optimise_clean();
  assert_int_equal(main_result()->args[0]->lit.i, -3); /* truncates toward zero */
}

static void test_effect_primop_kept(void **state) {
  (void)state;
  CoreType *ip = T(W.intp), *wt = T(W.world);
  W.p->primop_types[P_HFLUSH] = FN(ip, FN(wt, ip));
  /* main = (\ w -> case hFlush# 1# w of r { DEFAULT -> IORes w () }) |> IO () */
  CoreVar *w = local("w", wt), *r = local("r", ip);
  CoreType *u = UNIT();
  CoreExpr *res = con_app(W.ioresc, 1, &u, 2, (CoreExpr *[]){core_var(w), con0(W.unitc)});
  CoreExpr *flush = mk_primop(P_HFLUSH, ip, 2, (CoreExpr *[]){lit_int(1), core_var(w)});
  CoreAlt a = alt_default(res);
  CoreVar *m = global("main", TA(W.io, u));
  add_bind(m, mk_cast(core_lam(w, mk_case(flush, r, TA(W.iores, u), 1, &a)), TA(W.io, u)));
  W.p->main = m;
  optimise_clean();
  assert_int_equal(count_primop(find_bind(W.p, "main")->rhs, P_HFLUSH), 1);
}

/* let x = g (I# 1#) in WRAP(Just x): x is used once; is it moved into WRAP? */
static CoreExpr *once_used_let(CoreVar *g, int wrap) {
  CoreVar *x = local("x", INT());
  CoreType *it = INT();
  CoreExpr *use = con_app(W.just, 1, &it, 1, (CoreExpr *[]){core_var(x)});
  if (wrap == 1) {
    CoreExpr *s = core_expr_new(CE_SCC, (LzSpan){0});
    s->scc = lz_sym("cc");
    s->scc_module = lz_sym("Main");
    s->body = use;
    use = s;
  }
  if (wrap == 2) {
    CoreVar *z = local("z", INT());
    CoreType *ft = FN(INT(), TA(W.maybe, INT()));
    use = con_app(W.just, 1, &ft, 1, (CoreExpr *[]){core_lam(z, use)});
  }
  return mk_let(false, x, core_app(core_var(g), boxed(1)), use);
}

static void test_scc_boundary(void **state) {
  (void)state;
  CoreVar *g = opaque_fun();
  main_returning(once_used_let(g, 1), TA(W.maybe, INT()));
  optimise_clean();
  CoreExpr *r = main_result();
  /* the work stays outside the cost centre */
  assert_int_equal(r->kind, CE_LET);
  assert_int_equal(r->body->kind, CE_SCC);
  assert_false(mentions_global(r->body, "g", false));
  /* without the scc the same binding is inlined */
  teardown(NULL);
  setup(NULL);
  g = opaque_fun();
  main_returning(once_used_let(g, 0), TA(W.maybe, INT()));
  optimise_clean();
  r = main_result();
  assert_int_equal(r->kind, CE_CON);
  assert_int_equal(r->args[0]->kind, CE_APP);
}

static void test_no_work_under_lambda(void **state) {
  (void)state;
  CoreVar *g = opaque_fun();
  CoreType *ft = FN(INT(), TA(W.maybe, INT()));
  main_returning(once_used_let(g, 2), TA(W.maybe, ft));
  optimise_clean();
  CoreExpr *r = main_result();
  assert_int_equal(r->kind, CE_LET); /* g (I# 1#) is still computed once, outside */
  assert_true(mentions_global(r->binds[0].rhs, "g", false));
  assert_false(mentions_global(r->body, "g", false));
}

static void test_beta_and_dead_argument(void **state) {
  (void)state;
  CoreVar *g = opaque_fun();
  CoreVar *a = local("a", INT()), *b = local("b", INT());
  CoreExpr *k = core_lam(a, core_lam(b, core_var(a)));
  CoreExpr *e = core_app(core_app(k, boxed(1)), core_app(core_var(g), boxed(2)));
  main_returning(e, INT());
  optimise_clean();
  CoreExpr *r = main_result();
  assert_int_equal(r->kind, CE_CON); /* I# 1#; the unused argument is gone */
  assert_int_equal(count_kind(find_bind(W.p, "main")->rhs, CE_APP), 0);
}

static void test_case_of_case(void **state) {
  (void)state;
  CoreVar *g = opaque_fun();
  CoreVar *n, *w = local("w", INT()), *b = local("b", T(W.bool_));
  CoreExpr *isz = is_zero_case(&n);
  CoreAlt inner = alt_con(W.ihash, &n, isz);
  CoreExpr *in = mk_case(core_app(core_var(g), boxed(1)), w, T(W.bool_), 1, &inner);
  CoreAlt outer[] = {alt_con(W.true_, NULL, boxed(10)), alt_con(W.false_, NULL, boxed(20))};
  main_returning(mk_case(in, b, INT(), 2, outer), INT());
  int before = count_kind(find_bind(W.p, "main")->rhs, CE_CASE);
  optimise_clean();
  CoreExpr *r = main_result();
  /* case g (I# 1#) of { I# n -> case n of { 0# -> I# 10#; DEFAULT -> I# 20# } } */
  assert_int_equal(r->kind, CE_CASE);
  assert_int_equal(r->alts[0].rhs->kind, CE_CASE);
  CoreExpr *c = r->alts[0].rhs;
  for (int i = 0; i < c->nalts; i++)
    assert_int_equal(c->alts[i].rhs->kind, CE_CON);
  assert_true(count_kind(find_bind(W.p, "main")->rhs, CE_CASE) < before);
}

static void test_cast_of_cast(void **state) {
  (void)state;
  CoreExpr *e = mk_cast(mk_cast(boxed(3), T(W.age)), INT());
  main_returning(e, INT());
  optimise_clean();
  assert_int_equal(count_kind(find_bind(W.p, "main")->rhs, CE_CAST), 1); /* only main's own */
  assert_int_equal(main_result()->kind, CE_CON);
}

static void test_level_zero_does_nothing(void **state) {
  (void)state;
  CoreType *ip = T(W.intp);
  CoreExpr *sum = mk_primop(P_INT_ADD, ip, 2, (CoreExpr *[]){lit_int(2), lit_int(3)});
  main_returning(con_app(W.ihash, 0, NULL, 1, &sum), INT());
  core_optimise(W.p, 0, true);
  assert_int_equal(main_result()->args[0]->kind, CE_PRIMOP);
}

/* ---- programs from source ------------------------------------------------------------------ */

static CoreProgram *compiled;

typedef struct Job {
  const char *path, *text;
  CoreProgram *p;
} Job;

static void *compile_job(void *arg) {
  Job *j = arg;
  FeOptions o = {0};
  o.stdlib_dir = LZ_STDLIB_DIR;
  if (j->text)
    j->p = fe_compile_text(j->path, j->text, strlen(j->text), &o);
  else
    j->p = fe_compile(j->path, &o);
  return NULL;
}

/* Compile on a big stack (the front end recurses over the standard library). */
static CoreProgram *compile(const char *path, const char *text) {
  lz_reset();
  core_reset();
  lz_set_diag_stream(lint_file);
  Job j = {path, text, NULL};
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256u << 20);
  assert_int_equal(pthread_create(&t, &attr, compile_job, &j), 0);
  pthread_join(t, NULL);
  pthread_attr_destroy(&attr);
  lz_set_diag_stream(NULL);
  return compiled = j.p;
}

typedef struct OptJob {
  CoreProgram *p;
  int level;
} OptJob;

static void *opt_job(void *arg) {
  OptJob *j = arg;
  core_optimise(j->p, j->level, true);
  return NULL;
}

static int optimise_big_stack(CoreProgram *p, int level) {
  OptJob j = {p, level};
  pthread_attr_t attr;
  pthread_t t;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256u << 20);
  assert_int_equal(pthread_create(&t, &attr, opt_job, &j), 0);
  pthread_join(t, NULL);
  pthread_attr_destroy(&attr);
  int n = core_lint_program(p, "test");
  fflush(lint_file);
  if (n) fprintf(stderr, "lint:\n%s\n", lint_out);
  return n;
}

static void test_nfib_becomes_a_loop_on_int_hash(void **state) {
  (void)state;
  CoreProgram *p =
      compile("nfib.lz", "nfib :: Int -> Int\n"
                         "nfib n = if n < 2 then 1 else nfib (n - 1) + nfib (n - 2) + 1\n"
                         "main :: IO ()\nmain = print (nfib 20)\n");
  assert_non_null(p);
  int apps_before = count_kind(find_bind(p, "nfib")->rhs, CE_APP);
  assert_true(mentions_global(find_bind(p, "nfib")->rhs, "$fNumInt", false));
  assert_int_equal(optimise_big_stack(p, 2), 0);
  CoreBind *w = find_bind(p, "$wnfib");
  assert_non_null(w);
  assert_string_equal(core_type_to_string(w->var->type), "Int# -> Int#");
  int apps_after = count_kind(w->rhs, CE_APP);
  assert_int_equal(apps_after, 2); /* the two recursive calls, nothing else */
  assert_true(apps_after < apps_before);
  assert_false(mentions_global(w->rhs, "$f", true)); /* no dictionary left */
  assert_int_equal(count_kind(w->rhs, CE_CON), 0);   /* and no box */
}

/* length (filter (relprime n) [1 .. n - 1]): lenAcc fuses into filter, that loop (taking
 * its list first) into eftIntGo, filter's static predicate is bound outside the loop and
 * inlined, and the accumulator stays unboxed: a loop that allocates no list, no closure
 * and only the result's box. */
static void test_left_fold_of_filter_of_range_is_a_loop(void **state) {
  (void)state;
  CoreProgram *p =
      compile("totient.lz", "hcf :: Int -> Int -> Int\n"
                            "hcf x 0 = x\n"
                            "hcf x y = hcf y (rem x y)\n"
                            "relprime :: Int -> Int -> Bool\n"
                            "relprime x y = hcf x y == 1\n"
                            "euler :: Int -> Int\n"
                            "euler n = length (filter (relprime n) [1 .. n - 1])\n"
                            "main :: IO ()\nmain = print (sum (map euler [1 .. 50]))\n");
  assert_non_null(p);
  assert_int_equal(optimise_big_stack(p, 2), 0);
  CoreBind *e = find_bind(p, "euler");
  assert_non_null(e);
  assert_false(mentions_global(e->rhs, "eftIntGo", false)); /* no list is built */
  assert_false(mentions_global(e->rhs, "filter", false));
  assert_false(mentions_global(e->rhs, "relprime", false)); /* inlined: $whcf called */
  assert_true(mentions_global(e->rhs, "$whcf", false));
  assert_true(count_kind(e->rhs, CE_CON) <= 3); /* I# results only: no (:), no boxed accumulator */
}

/* A local loop that is lazy in q and d (the [] case does not look at them) but is passed
 * evaluated Ints at every call gets a worker on Int#: no I# per iteration. */
static void test_local_loop_unboxes_arguments_evaluated_at_every_call(void **state) {
  (void)state;
  CoreProgram *p = compile("safe.lz", "ok :: Int -> [Int] -> Bool\n"
                                      "ok q b = safe q 1 b\n"
                                      "  where\n"
                                      "    safe _ _ [] = True\n"
                                      "    safe q d (x : xs) = q /= x + d && safe q (d + 1) xs\n"
                                      "main :: IO ()\nmain = print (ok 3 [1, 5, 9])\n");
  assert_non_null(p);
  assert_int_equal(optimise_big_stack(p, 2), 0);
  const CoreExpr *w = NULL; /* (ok may be inlined into main) */
  for (int g = 0; g < p->groups.len && !w; g++)
    for (int i = 0; i < p->groups.data[g].nbinds && !w; i++)
      w = find_local_bind(p->groups.data[g].binds[i].rhs, "$wsafe");
  assert_non_null(w);
  assert_string_equal(core_type_to_string(core_expr_type((CoreExpr *)w)),
                      "Int# -> Int# -> [Int] -> Bool");
  assert_true(count_kind(w, CE_CON) <= 2); /* True and False: no I# box */
}

static void test_dictionary_methods_become_primops(void **state) {
  (void)state;
  CoreProgram *p =
      compile("cmp.lz", "f :: Int -> Int -> Bool\n"
                        "f x y = x == y || x < y\n"
                        "main :: IO ()\n"
                        "main = print (length (filter id (zipWith f [1 .. 100] [50 .. 150])))\n");
  assert_non_null(p);
  assert_int_equal(optimise_big_stack(p, 1), 0);
  /* wherever f ended up (it may be inlined), the comparisons are primitive */
  int prims = 0, mains = 0;
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      CoreBind *b = &p->groups.data[g].binds[i];
      if (!b->var->module || strcmp(b->var->module, "Main") != 0) continue;
      mains++;
      assert_false(mentions_global(b->rhs, "$fEqInt", false));
      assert_false(mentions_global(b->rhs, "$fOrdInt", false));
      assert_false(mentions_global(b->rhs, "==", false));
      prims += count_primop(b->rhs, P_INT_EQ) + count_primop(b->rhs, P_INT_LT);
    }
  assert_true(mains > 0);
  assert_true(prims >= 2);
}

static void test_specialisation(void **state) {
  (void)state;
  CoreProgram *p = compile("spec.lz", "mySum :: Num a => [a] -> a\n"
                                      "mySum [] = 0\n"
                                      "mySum (x : xs) = x + mySum xs\n"
                                      "main :: IO ()\n"
                                      "main = do\n"
                                      "  let xs = [1 .. 100 :: Int]\n"
                                      "      ys = map fromIntegral xs :: [Double]\n"
                                      "  print (mySum xs) >> print (length xs)\n"
                                      "  print (mySum ys) >> print (length ys)\n");
  /* (the lists are shared so that fusion, opt_fuse.c, does not fold mySum into them) */
  assert_non_null(p);
  assert_int_equal(optimise_big_stack(p, 2), 0);
  int specs = 0;
  for (int g = 0; g < p->groups.len; g++)
    for (int i = 0; i < p->groups.data[g].nbinds; i++) {
      CoreBind *b = &p->groups.data[g].binds[i];
      if (strncmp(b->var->name, "$smySum", 7) != 0 && strncmp(b->var->name, "$w$smySum", 9) != 0)
        continue;
      specs++;
      assert_false(mentions_global(b->rhs, "+", false)); /* the method is gone */
    }
  assert_true(specs >= 2);            /* one copy at Int, one at Double */
  assert_null(find_bind(p, "mySum")); /* the overloaded original is dead */
}

static void test_golden_corpus_optimises_with_clean_lint(void **state) {
  (void)state;
  const char *names[] = {"nqueens",      "primes_sieve", "typeclass_shapes", "state_monad",
                         "records",      "huffman",      "interpreter",      "numeric_classes",
                         "lazy_streams", "seq_strict",   "mutual_recursion", "show_instances",
                         "parser_monad", "json_pretty"};
  int done = 0;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char *path = lz_fmt("%s/golden/%s.lz", LZ_TESTS_DIR, names[i]);
    char *copy = strdup(path);
    CoreProgram *p = compile(copy, NULL);
    free(copy);
    if (!p) continue; /* a front-end gap, not ours */
    int nodes_before = 0;
    for (int g = 0; g < p->groups.len; g++)
      nodes_before += p->groups.data[g].nbinds;
    if (optimise_big_stack(p, 2) != 0) fail_msg("lint failed after optimising %s", names[i]);
    int nodes_after = 0;
    for (int g = 0; g < p->groups.len; g++)
      nodes_after += p->groups.data[g].nbinds;
    assert_true(nodes_after < nodes_before); /* at least the unreachable library is gone */
    done++;
  }
  assert_true(done >= 10);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_known_constructor, setup, teardown),
      cmocka_unit_test_setup_teardown(test_known_literal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constant_folding, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_folding_of_failing_quot, setup, teardown),
      cmocka_unit_test_setup_teardown(test_effect_primop_kept, setup, teardown),
      cmocka_unit_test_setup_teardown(test_scc_boundary, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_work_under_lambda, setup, teardown),
      cmocka_unit_test_setup_teardown(test_beta_and_dead_argument, setup, teardown),
      cmocka_unit_test_setup_teardown(test_case_of_case, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cast_of_cast, setup, teardown),
      cmocka_unit_test_setup_teardown(test_level_zero_does_nothing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nfib_becomes_a_loop_on_int_hash, setup, teardown),
      cmocka_unit_test_setup_teardown(test_left_fold_of_filter_of_range_is_a_loop, setup, teardown),
      cmocka_unit_test_setup_teardown(test_local_loop_unboxes_arguments_evaluated_at_every_call,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_dictionary_methods_become_primops, setup, teardown),
      cmocka_unit_test_setup_teardown(test_specialisation, setup, teardown),
      cmocka_unit_test_setup_teardown(test_golden_corpus_optimises_with_clean_lint, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

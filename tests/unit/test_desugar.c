/* test_desugar.c — unit tests of the desugarer (frontend/desugar*.c, match.c, kernel.c).
 *
 * Each test parses and renames a small NoImplicitPrelude program given in memory (so
 * the standard library is not needed: wired-in names such as (>>=) and patError are
 * stand-ins printed by their occurrence), desugars it, and checks the kernel of one
 * binding, printed on one line by k_bind_to_string with local names renumbered in
 * order of appearance (`ds_1`, `x_2`, ...) so that expectations do not depend on
 * unique numbers. Structural properties are checked on the kernel tree itself: no
 * path of a decision tree scrutinises the same variable twice, and a pathological
 * match stays small (the join-point fallback).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"

/* ---- harness ------------------------------------------------------------------------ */

static char *diag_text;
static size_t diag_len;
static FILE *diag;
static KProgram *kp;

static int setup(void **state) {
  (void)state;
  lz_reset();
  diag = open_memstream(&diag_text, &diag_len);
  lz_set_diag_stream(diag);
  lz_set_error_limit(100);
  kp = NULL;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  lz_set_diag_stream(NULL);
  fclose(diag);
  free(diag_text);
  diag_text = NULL;
  lz_reset();
  return 0;
}

static const char *diagnostics(void) {
  fflush(diag);
  return diag_text ? diag_text : "";
}

static const char *header = "{-# LANGUAGE NoImplicitPrelude, BangPatterns #-}\n"
                            "module Main where\n"
                            "data Bool = False | True\n"
                            "data Maybe a = Nothing | Just a\n"
                            "data List a = Nil | Cons a (List a)\n";
/* The header has 5 lines: the program given to run() starts on line 6. */

static KProgram *run_opts(const char *body, FeOptions *o) {
  char *text = lz_fmt("%s%s", header, body);
  FeProgram p = {0};
  if (!fe_rename_program("T.lz", text, strlen(text), o, &p)) {
    print_message("rename failed:\n%.300s\n", diagnostics());
    return NULL;
  }
  kp = fe_desugar_program(&p, o);
  return kp;
}

static KProgram *run(const char *body) {
  FeOptions o = {0};
  return run_opts(body, &o);
}

static KBind *find_bind(KProgram *k, const char *occ) {
  if (!k) return NULL;
  for (int i = 0; i < k->binds.len; i++)
    if (strcmp(k->binds.data[i]->name->occ, occ) == 0) return k->binds.data[i];
  return NULL;
}

/* Renumber local names `occ_123` as `occ_1`, `occ_2`, ... in order of appearance. */
static char *normalise(const char *s) {
  char *out = lz_alloc(strlen(s) * 2 + 16);
  char *o = out;
  int seen[4096], nseen = 0;
  for (const char *p = s; *p;) {
    if (*p == '_' && p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '\'') &&
        isdigit((unsigned char)p[1])) {
      int u = atoi(p + 1);
      int k = 0;
      while (k < nseen && seen[k] != u)
        k++;
      if (k == nseen && nseen < 4096) seen[nseen++] = u;
      o += sprintf(o, "_%d", k + 1);
      p++;
      while (isdigit((unsigned char)*p))
        p++;
    } else {
      *o++ = *p++;
    }
  }
  *o = 0;
  return out;
}

static const char *bind_str(const char *occ) {
  KBind *b = find_bind(kp, occ);
  if (!b) return "<no binding>";
  return normalise(k_bind_to_string(b));
}

#define EXPECT_BIND(occ, text)                                                                     \
  do {                                                                                             \
    const char *got_ = bind_str(occ);                                                              \
    if (strcmp(got_, text) != 0) print_message("got:      %s\nexpected: %s\n", got_, text);        \
    assert_string_equal(got_, text);                                                               \
  } while (0)

/* ---- structural checks ------------------------------------------------------------------- */

/* No path tests the same variable twice with a constructor/literal case. */
static bool no_retest(const KExpr *e, const FeName **path, int n) {
  if (!e || n > 500) return true;
  switch (e->kind) {
  case K_APP: return no_retest(e->fn, path, n) && no_retest(e->arg, path, n);
  case K_LAM:
  case K_SCC:
  case K_ANNOT: return no_retest(e->body, path, n);
  case K_LET:
    for (int i = 0; i < e->binds.len; i++)
      if (!no_retest(e->binds.data[i]->rhs, path, 0)) return false;
    return no_retest(e->body, path, n);
  case K_CASE: {
    const FeName *v = e->body->kind == K_VAR ? e->body->var : NULL;
    for (int i = 0; v && i < n; i++)
      if (path[i] == v) return false;
    if (v) path[n++] = v;
    if (!v && !no_retest(e->body, path, n)) return false;
    for (int i = 0; i < e->alts.len; i++)
      if (!no_retest(e->alts.data[i].rhs, path, n)) return false;
    return true;
  }
  default: return true;
  }
}

static int count_nodes(const KExpr *e) {
  if (!e) return 0;
  int n = 1;
  switch (e->kind) {
  case K_APP: return n + count_nodes(e->fn) + count_nodes(e->arg);
  case K_LAM:
  case K_SCC:
  case K_ANNOT: return n + count_nodes(e->body);
  case K_LET:
    for (int i = 0; i < e->binds.len; i++)
      n += count_nodes(e->binds.data[i]->rhs);
    return n + count_nodes(e->body);
  case K_CASE:
    n += count_nodes(e->body);
    for (int i = 0; i < e->alts.len; i++)
      n += count_nodes(e->alts.data[i].rhs);
    return n;
  default: return n;
  }
}

static void assert_no_retest(const char *occ) {
  KBind *b = find_bind(kp, occ);
  assert_non_null(b);
  const FeName *path[512];
  assert_true(no_retest(b->rhs, path, 0));
}

/* ---- decision trees ------------------------------------------------------------------------ */

static void test_constructor_tree(void **state) {
  (void)state;
  assert_non_null(run("f Nil ys = True\n"
                      "f xs Nil = False\n"
                      "f (Cons x xs) (Cons y ys) = f xs ys\n"
                      "main = f Nil Nil\n"));
  EXPECT_BIND("f", "f = \\xs_1 ys_2 -> case xs_1 of { Nil -> True; Cons x_3 xs_4 -> case ys_2 "
                   "of { Nil -> False; Cons y_5 ys_6 -> f xs_4 ys_6 } }");
  assert_no_retest("f");
}

static void test_nested_patterns(void **state) {
  (void)state;
  assert_non_null(run("g (Just (Just x)) = x\n"
                      "g (Just Nothing) = Nothing\n"
                      "g Nothing = Nothing\n"
                      "main = g Nothing\n"));
  EXPECT_BIND("g", "g = \\ds_1 -> case ds_1 of { Just ds_2 -> case ds_2 of { Just x_3 -> x_3; "
                   "Nothing -> Nothing }; Nothing -> Nothing }");
  assert_no_retest("g");
}

static void test_wildcard_rows_shared(void **state) {
  (void)state;
  /* the last clause is reached from three leaves: one local function, no copies */
  assert_non_null(run("h (Just True) (Just y) = y\n"
                      "h x y = False\n"
                      "main = h Nothing Nothing\n"));
  EXPECT_BIND("h", "h = \\x_1 y_2 -> let { rhs_3 = False } in case x_1 of { Just ds_4 -> "
                   "case ds_4 of { True -> case y_2 of { Just y_5 -> y_5; _ -> rhs_3 }; _ -> "
                   "rhs_3 }; _ -> rhs_3 }");
  assert_no_retest("h");
}

static void test_shared_rhs_with_vars(void **state) {
  (void)state;
  /* a shared right-hand side that uses pattern variables takes them as parameters */
  assert_non_null(run("k (Just True) = True\n"
                      "k v = v2 v\n"
                      "v2 x = False\n"
                      "main = k Nothing\n"));
  EXPECT_BIND("k", "k = \\v_1 -> let { rhs_2 = \\v_3 -> v2 v_3 } in case v_1 of { Just ds_4 "
                   "-> case ds_4 of { True -> True; _ -> rhs_2 v_1 }; _ -> rhs_2 v_1 }");
}

static void test_guards_fall_through(void **state) {
  (void)state;
  assert_non_null(run("gt x y = True\n"
                      "h x y | gt x y = Nil\n"
                      "      | Just z <- y, gt z x = Cons z Nil\n"
                      "h x (Just q) = Cons q Nil\n"
                      "h x y = Nil\n"
                      "main = h 1 2\n"));
  EXPECT_BIND("h", "h = \\x_1 y_2 -> let { fail_3 = case y_2 of { Just q_4 -> Cons q_4 Nil; _ "
                   "-> Nil } } in case gt x_1 y_2 of { True -> Nil; False -> case y_2 of { Just "
                   "z_5 -> case gt z_5 x_1 of { True -> Cons z_5 Nil; False -> fail_3 }; _ -> "
                   "fail_3 } }");
}

static void test_guards_in_case_and_where(void **state) {
  (void)state;
  assert_non_null(run("otherwise = True\n"
                      "c v = case v of\n"
                      "  Just x | x -> True\n"
                      "  Just y -> y\n"
                      "  _ -> False\n"
                      "w x | x = r\n"
                      "    | otherwise = Nothing\n"
                      "  where r = Just x\n"
                      "main = c Nothing\n"));
  EXPECT_BIND("c", "c = \\v_1 -> case v_1 of { Just x_2 -> case x_2 of { True -> True; False "
                   "-> x_2 }; _ -> False }");
  /* the where scopes over all guards; user-defined `otherwise` is not the wired one */
  EXPECT_BIND("w", "w = \\x_1 -> let { r_2 = Just x_1 } in case x_1 of { True -> r_2; False -> "
                   "case otherwise of { True -> Nothing; False -> patError "
                   "\"T.lz:(11,1)-(13,18): Non-exhaustive patterns in function w\" } }");
}

static void test_case_scrutinee_binder(void **state) {
  (void)state;
  assert_non_null(run("f x = case f x of\n"
                      "  Nil -> True\n"
                      "  xs -> False\n"
                      "g x = case f x of\n"
                      "  y -> y\n"
                      "main = f Nil\n"));
  EXPECT_BIND("f", "f = \\x_1 -> case f x_1 of xs_2 { Nil -> True; _ -> False }");
  /* a variable pattern does not force the scrutinee */
  EXPECT_BIND("g", "g = \\x_1 -> let { y_2 = f x_1 } in y_2");
}

/* ---- literals ---------------------------------------------------------------------------------
 */

static void test_numeric_literal_patterns(void **state) {
  (void)state;
  assert_non_null(run("k 0 = 'a'\n"
                      "k (-1) = 'b'\n"
                      "k 2.5 = 'd'\n"
                      "k n = 'c'\n"
                      "main = k 1\n"));
  EXPECT_BIND("k", "k = \\n_1 -> case (==) n_1 0 of { True -> 'a'; False -> case (==) n_1 "
                   "(negate 1) of { True -> 'b'; False -> case (==) n_1 25e-1 of { True -> 'd'; "
                   "False -> 'c' } } }");
}

static void test_char_and_string_patterns(void **state) {
  (void)state;
  assert_non_null(run("v 'a' = True\n"
                      "v 'e' = True\n"
                      "v _ = False\n"
                      "s \"ab\" = True\n"
                      "s \"ac\" = False\n"
                      "s _ = Nothing\n"
                      "main = v 'x'\n"));
  EXPECT_BIND("v", "v = \\ds_1 -> let { rhs_2 = False } in case ds_1 of { C# ds_3 -> case ds_3 of "
                   "{ 'a'# -> True; 'e'# -> True; _ -> rhs_2 }; _ -> rhs_2 }");
  /* string patterns share their common prefix like a trie */
  const char *s = bind_str("s");
  assert_non_null(strstr(s, "'a'# -> case"));
  assert_null(strstr(strstr(s, "'a'#") + 1, "'a'#"));
  assert_non_null(strstr(s, "'b'#"));
  assert_non_null(strstr(s, "'c'#"));
  assert_no_retest("s");
}

/* ---- lazy and strict patterns ------------------------------------------------------------------
 */

static void test_lazy_pattern(void **state) {
  (void)state;
  assert_non_null(run("lz ~(Just a, b) = a\n"
                      "lz2 ~x = x\n"
                      "main = lz Nothing\n"));
  EXPECT_BIND("lz", "lz = \\ds_1 -> let { b_2 = case ds_1 of { (,) ds_3 b_4 -> case ds_3 of { "
                    "Just a_5 -> b_4; _ -> patError \"T.lz:6:1-19: Non-exhaustive patterns in "
                    "(Just a, b)\" } }; a_6 = case ds_1 of { (,) ds_7 b_8 -> case ds_7 of { Just "
                    "a_9 -> a_9; _ -> patError \"T.lz:6:1-19: Non-exhaustive patterns in (Just a, "
                    "b)\" } } } in a_6");
  EXPECT_BIND("lz2", "lz2 = \\x_1 -> x_1");
}

static void test_bang_patterns(void **state) {
  (void)state;
  assert_non_null(run("bg !x y = x\n"
                      "l = let !q = bg True True in q\n"
                      "main = l\n"));
  EXPECT_BIND("bg", "bg = \\x_1 y_2 -> case x_1 of { _ -> x_1 }");
  EXPECT_BIND("l", "l = let { q_1 = bg True True } in case q_1 of { _ -> q_1 }");
}

static void test_newtype_pattern_is_a_case(void **state) {
  (void)state;
  assert_non_null(run("newtype N = N Bool\n"
                      "nt (N x) = x\n"
                      "main = nt (N True)\n"));
  EXPECT_BIND("nt", "nt = \\ds_1 -> case ds_1 of { N x_2 -> x_2 }");
}

/* ---- pattern bindings ------------------------------------------------------------------------ */

static void test_pattern_bindings(void **state) {
  (void)state;
  assert_non_null(run("lets = let (a, Just b) = (True, Just False)\n"
                      "           !(Just c) = Just a\n"
                      "       in b\n"
                      "main = lets\n"));
  EXPECT_BIND("lets",
              "lets = let { p_1 = (,) True (Just False); a_2 = case p_1 of { (,) a_3 ds_4 -> case "
              "ds_4 of { Just b_5 -> a_3; _ -> patError \"T.lz:6:12-43: Non-exhaustive patterns "
              "in (a, Just b)\" } }; b_6 = case p_1 of { (,) a_7 ds_8 -> case ds_8 of { Just b_9 "
              "-> b_9; _ -> patError \"T.lz:6:12-43: Non-exhaustive patterns in (a, Just b)\" } }; "
              "p_10 = Just a_2; c_11 = case p_10 of { Just c_12 -> c_12; _ -> patError "
              "\"T.lz:7:12-29: Non-exhaustive patterns in Just c\" } } in case case p_10 of { Just "
              "c_13 -> (); _ -> patError \"T.lz:7:12-29: Non-exhaustive patterns in Just c\" } of "
              "{ _ -> b_6 }");
  /* pattern-bound variables are not generalised over constrained type variables */
  KBind *lets = find_bind(kp, "lets");
  assert_true(lets->rhs->kind == K_LET);
  for (int i = 0; i < lets->rhs->binds.len; i++)
    assert_true(lets->rhs->binds.data[i]->restricted);
}

static void test_top_level_pattern_binding(void **state) {
  (void)state;
  assert_non_null(run("(x, Nil) = (True, Nil)\n"
                      "main = x\n"));
  KBind *x = find_bind(kp, "x");
  assert_non_null(x);
  assert_true(x->restricted);
  assert_non_null(strstr(bind_str("x"), "T.lz:6:1-22: Non-exhaustive patterns in (x, Nil)"));
}

/* ---- failure messages --------------------------------------------------------------------------
 */

static void test_failure_messages(void **state) {
  (void)state;
  assert_non_null(run("f (Just x) = x\n"
                      "g = \\(Just x) -> x\n"
                      "h y = case y of\n"
                      "  Just x -> x\n"
                      "main = f Nothing\n"));
  assert_non_null(strstr(bind_str("f"), "\"T.lz:6:1-14: Non-exhaustive patterns in function f\""));
  assert_non_null(strstr(bind_str("g"), "\"T.lz:7:5-18: Non-exhaustive patterns in lambda\""));
  assert_non_null(strstr(bind_str("h"), "\"T.lz:(8,7)-(9,13): Non-exhaustive patterns in case\""));
}

/* ---- do, comprehensions, sequences, sections
 * ----------------------------------------------------- */

static void test_do(void **state) {
  (void)state;
  assert_non_null(run("d m = do\n"
                      "  x <- m\n"
                      "  Just y <- m\n"
                      "  (a, b) <- m\n"
                      "  let z = y\n"
                      "  m\n"
                      "  m\n"
                      "main = d Nothing\n"));
  EXPECT_BIND("d",
              "d = \\m_1 -> (>>=) m_1 (\\x_2 -> (>>=) m_1 (\\ds_3 -> case ds_3 of { Just y_4 "
              "-> (>>=) m_1 (\\ds_5 -> case ds_5 of { (,) a_6 b_7 -> let { z_8 = y_4 } in (>>) "
              "m_1 m_1 }); _ -> fail \"Pattern match failure in do expression at T.lz:8:3-8\" "
              "}))");
}

static void test_comprehension(void **state) {
  (void)state;
  assert_non_null(run("c xs = [ (x, y) | Just x <- xs, let y = x, y, z <- xs ]\n"
                      "e = [ True | False ]\n"
                      "main = c Nil\n"));
  EXPECT_BIND("c", "c = \\xs_1 -> let { go_2 = \\xs_3 -> case xs_3 of { [] -> []; (:) y_4 us_5 "
                   "-> case y_4 of { Just x_6 -> let { y_7 = x_6 } in case y_7 of { True -> let { "
                   "go_8 = \\xs_9 -> case xs_9 of { [] -> go_2 us_5; (:) z_10 us_11 -> (:) ((,) "
                   "x_6 y_7) (go_8 us_11) } } in go_8 xs_1; False -> go_2 us_5 }; _ -> go_2 us_5 "
                   "} } } in go_2 xs_1");
  EXPECT_BIND("e", "e = case False of { True -> (:) True []; False -> [] }");
}

static void test_sequences_and_sections(void **state) {
  (void)state;
  assert_non_null(run("gt x y = y\n"
                      "a1 = [True ..]\n"
                      "a2 = [True, False .. True]\n"
                      "s1 = (`gt` True)\n"
                      "s2 = (True `gt`)\n"
                      "s3 = (`gt` gt True False)\n"
                      "n x = - x\n"
                      "main = a1\n"));
  EXPECT_BIND("a1", "a1 = enumFrom True");
  EXPECT_BIND("a2", "a2 = enumFromThenTo True False True");
  EXPECT_BIND("s1", "s1 = \\x_1 -> gt x_1 True");
  EXPECT_BIND("s2", "s2 = gt True");
  /* the section's operand is computed once, outside the lambda */
  EXPECT_BIND("s3", "s3 = let { sec_1 = gt True False } in \\x_2 -> gt x_2 sec_1");
  EXPECT_BIND("n", "n = \\x_1 -> negate x_1");
}

/* ---- records ------------------------------------------------------------------------------------
 */

static void test_records(void **state) {
  (void)state;
  assert_non_null(run("data R = R { fa :: Bool, fb :: Maybe Bool } | S { fa :: Bool }\n"
                      "r1 = R { fa = True }\n"
                      "r2 v = v { fa = False }\n"
                      "r3 v = v { fb = Nothing }\n"
                      "main = r1\n"));
  EXPECT_BIND("fa", "fa = \\r_1 -> case r_1 of { R fa_2 ds_3 -> fa_2; S fa_4 -> fa_4 }");
  EXPECT_BIND("fb", "fb = \\r_1 -> case r_1 of { R ds_2 fb_3 -> fb_3; _ -> patError \"No match "
                    "in record selector fb\" }");
  EXPECT_BIND("r1", "r1 = R True (patError \"T.lz:7:6-20: Missing field in record construction "
                    "fb\")");
  EXPECT_BIND("r2", "r2 = \\v_1 -> let { fa_2 = False } in case v_1 of { R fa_3 fb_4 -> R fa_2 "
                    "fb_4; S fa_5 -> S fa_2 }");
  EXPECT_BIND("r3", "r3 = \\v_1 -> case v_1 of { R fa_2 fb_3 -> R fa_2 Nothing; _ -> patError "
                    "\"T.lz:9:8-25: Non-exhaustive patterns in record update\" }");
}

static void test_record_errors(void **state) {
  (void)state;
  assert_null(run("data R = R { fa :: Bool, fb :: !Bool } | S { fc :: Bool }\n"
                  "r1 = R { fa = True }\n"
                  "main = r1\n"));
  assert_non_null(strstr(diagnostics(), "Constructor ‘R’ does not have the required strict "
                                        "field(s): fb"));
}

/* ---- program-level
 * ------------------------------------------------------------------------------- */

static void test_missing_main(void **state) {
  (void)state;
  assert_null(run("notmain = True\n"));
  assert_non_null(strstr(diagnostics(), "The IO action ‘main’ is not defined in module ‘Main’"));
}

static void test_constructor_arity_error(void **state) {
  (void)state;
  assert_null(run("f (Just) = True\n"
                  "main = f Nothing\n"));
  assert_non_null(strstr(diagnostics(),
                         "The constructor ‘Just’ should have 1 argument, but has been given none"));
}

static void test_prof_auto(void **state) {
  (void)state;
  FeOptions o = {0};
  o.prof_auto = true;
  assert_non_null(run_opts("f x = go x\n"
                           "  where go y = y\n"
                           "g = \\x -> x\n"
                           "main = f True\n",
                           &o));
  EXPECT_BIND("g", "g = \\x_1 -> {-# SCC \"g\" #-} x_1");
  EXPECT_BIND("f", "f = \\x_1 -> {-# SCC \"f\" #-} let { go_2 = \\y_3 -> {-# SCC \"f.go\" #-} y_3 "
                   "} in go_2 x_1");
  EXPECT_BIND("main", "main = {-# SCC \"main\" #-} f True");
  /* -fprof-auto-top: top-level bindings only */
  lz_reset();
  FeOptions t = {0};
  t.prof_auto_top = true;
  assert_non_null(run_opts("f x = go x\n"
                           "  where go y = y\n"
                           "main = f True\n",
                           &t));
  EXPECT_BIND("f", "f = \\x_1 -> {-# SCC \"f\" #-} let { go_2 = \\y_3 -> y_3 } in go_2 x_1");
}

static void test_classes_and_instances(void **state) {
  (void)state;
  assert_non_null(run("class C a where\n"
                      "  m1 :: a -> Bool\n"
                      "  m2, m3 :: a -> a\n"
                      "  m2 x = x\n"
                      "instance C Bool where\n"
                      "  m1 True = False\n"
                      "  m1 False = True\n"
                      "main = m1 True\n"));
  assert_int_equal(kp->classes.len, 1);
  KClass *c = kp->classes.data[0];
  assert_int_equal(c->methods.len, 3);
  assert_string_equal(c->methods.data[1]->occ, "m2");
  assert_int_equal(c->defaults.len, 1);
  assert_ptr_equal(c->defaults.data[0]->name, c->methods.data[1]);
  assert_int_equal(kp->instances.len, 1);
  KInstance *in = kp->instances.data[0];
  assert_int_equal(in->methods.len, 1);
  assert_ptr_equal(in->methods.data[0]->name, c->methods.data[0]);
  assert_string_equal(normalise(k_bind_to_string(in->methods.data[0])),
                      "m1 = \\ds_1 -> case ds_1 of { True -> False; False -> True }");
}

/* Rows that each test a different column, every clause guarded: a decision tree
 * would be exponential; the join-point fallback keeps it linear. */
static void test_blowup_falls_back_to_joins(void **state) {
  (void)state;
  enum { N = 16 };
  char *src = lz_strdup("gt x = True\n");
  for (int r = 0; r < N; r++) {
    char *line = lz_strdup("p");
    for (int c = 0; c < N; c++)
      line = lz_fmt("%s %s", line, c == r ? "True" : "_");
    src = lz_fmt("%s%s | gt True = Nil\n", src, line);
  }
  src = lz_fmt("%smain = main\n", src);
  assert_non_null(run(src));
  KBind *p = find_bind(kp, "p");
  assert_non_null(p);
  assert_true(count_nodes(p->rhs) < 3000);
  assert_non_null(strstr(bind_str("p"), "fail_")); /* join points */
}

static void test_redundant_clause_still_translated(void **state) {
  (void)state;
  /* unreachable, but its patterns and right-hand side must reach the type checker */
  assert_non_null(run("f _ = True\n"
                      "f (Just x) = x\n"
                      "main = f Nothing\n"));
  EXPECT_BIND("f", "f = \\ds_1 -> let { unused_2 = case ds_1 of { Just x_3 -> x_3; _ -> patError "
                   "\"redundant clause\" } } in True");
}

static void test_top_level_bang_rejected(void **state) {
  (void)state;
  assert_null(run("!x = True\n"
                  "main = x\n"));
  assert_non_null(strstr(diagnostics(), "Top-level strict bindings aren't allowed: !x = True"));
}

static void test_deep_nesting_is_reported(void **state) {
  (void)state;
  /* deep but within the parser's limits: either desugared or reported, never a crash */
  char *src = lz_strdup("f x = x\nmain = ");
  for (int i = 0; i < 1500; i++)
    src = lz_fmt("%sf (", src);
  src = lz_fmt("%sTrue", src);
  for (int i = 0; i < 1500; i++)
    src = lz_fmt("%s)", src);
  src = lz_fmt("%s\n", src);
  run(src);
  assert_true(kp != NULL || lz_error_count() > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_constructor_tree, setup, teardown),
      cmocka_unit_test_setup_teardown(test_nested_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wildcard_rows_shared, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shared_rhs_with_vars, setup, teardown),
      cmocka_unit_test_setup_teardown(test_guards_fall_through, setup, teardown),
      cmocka_unit_test_setup_teardown(test_guards_in_case_and_where, setup, teardown),
      cmocka_unit_test_setup_teardown(test_case_scrutinee_binder, setup, teardown),
      cmocka_unit_test_setup_teardown(test_numeric_literal_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_char_and_string_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_lazy_pattern, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bang_patterns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_newtype_pattern_is_a_case, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pattern_bindings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_top_level_pattern_binding, setup, teardown),
      cmocka_unit_test_setup_teardown(test_failure_messages, setup, teardown),
      cmocka_unit_test_setup_teardown(test_do, setup, teardown),
      cmocka_unit_test_setup_teardown(test_comprehension, setup, teardown),
      cmocka_unit_test_setup_teardown(test_sequences_and_sections, setup, teardown),
      cmocka_unit_test_setup_teardown(test_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_record_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_main, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constructor_arity_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_prof_auto, setup, teardown),
      cmocka_unit_test_setup_teardown(test_classes_and_instances, setup, teardown),
      cmocka_unit_test_setup_teardown(test_blowup_falls_back_to_joins, setup, teardown),
      cmocka_unit_test_setup_teardown(test_redundant_clause_still_translated, setup, teardown),
      cmocka_unit_test_setup_teardown(test_top_level_bang_rejected, setup, teardown),
      cmocka_unit_test_setup_teardown(test_deep_nesting_is_reported, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

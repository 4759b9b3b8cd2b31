/* test_typecheck.c — unit tests of the type checker (frontend/typecheck.c, tc_*.c).
 *
 * Each test writes a small program into a fresh directory under /tmp and runs the
 * whole front end on it (parser, renamer, desugarer, type checker), with diagnostics
 * captured in memory. The programs use NoImplicitPrelude and import a miniature
 * Lz.Base written by this file (MINI_BASE below), so the tests pin down the type
 * checker's behaviour independently of the real standard library. Good programs must
 * produce Core that passes core_lint_program; the tests then look at the Core types of
 * top-level bindings (let-polymorphism, dictionary passing, superclasses, defaulting,
 * the monomorphism restriction) or at the elaborated Core. Bad programs must be
 * rejected with the first error on the line GHC reports, worded like GHC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "passes.h"

/* ---- a miniature Lz.Base ------------------------------------------------------------ */

static const char *MINI_BASE =
    "{-# LANGUAGE NoImplicitPrelude, MagicHash #-}\n"
    "module Lz.Base where\n"
    "data Int#\n"
    "data Double#\n"
    "data Char#\n"
    "data Addr#\n"
    "data World#\n"
    "data Integer\n"
    "data Int = I# Int#\n"
    "data Double = D# Double#\n"
    "data Char = C# Char#\n"
    "data Bool = False | True\n"
    "data Ratio a = !a :% !a\n"
    "newtype IO a = IO (World# -> IORes a)\n"
    "data IORes a = IORes World# a\n"
    "data Maybe a = Nothing | Just a\n"
    "foreign import prim \"intAdd#\" (+#) :: Int# -> Int# -> Int#\n"
    "not :: Bool -> Bool\n"
    "not True = False\n"
    "not False = True\n"
    "otherwise :: Bool\n"
    "otherwise = True\n"
    "class Eq a where\n"
    "  (==) :: a -> a -> Bool\n"
    "  (/=) :: a -> a -> Bool\n"
    "  x /= y = not (x == y)\n"
    "class Eq a => Ord a where\n"
    "  (<) :: a -> a -> Bool\n"
    "class Num a where\n"
    "  (+) :: a -> a -> a\n"
    "  fromInteger :: Integer -> a\n"
    "class Num a => Fractional a where\n"
    "  fromRational :: Ratio Integer -> a\n"
    "class Show a where\n"
    "  show :: a -> [Char]\n"
    "class Functor f where\n"
    "  fmap :: (a -> b) -> f a -> f b\n"
    "class Monad m where\n"
    "  (>>=) :: m a -> (a -> m b) -> m b\n"
    "  (>>) :: m a -> m b -> m b\n"
    "  return :: a -> m a\n"
    "  m >> k = m >>= \\_ -> k\n"
    "fail :: [Char] -> m a\n"
    "fail s = fail s\n"
    "instance Num Int where\n"
    "  I# a + I# b = I# (a +# b)\n"
    "  fromInteger n = I# 0#\n"
    "instance Eq Int where\n"
    "  I# a == I# b = True\n"
    "instance Ord Int where\n"
    "  a < b = True\n"
    "instance Eq Bool where\n"
    "  a == b = True\n"
    "instance Num Integer where\n"
    "  a + b = a\n"
    "  fromInteger n = n\n"
    "instance Eq Integer where\n"
    "  a == b = True\n"
    "instance Num Double where\n"
    "  a + b = a\n"
    "  fromInteger n = D# 0.0##\n"
    "instance Fractional Double where\n"
    "  fromRational r = D# 0.0##\n"
    "instance Show Int where\n"
    "  show _ = \"int\"\n"
    "instance Show Integer where\n"
    "  show _ = \"integer\"\n"
    "instance Show Double where\n"
    "  show _ = \"double\"\n"
    "instance Show Char where\n"
    "  show _ = \"char\"\n"
    "instance Show Bool where\n"
    "  show True = \"True\"\n"
    "  show False = \"False\"\n"
    "instance Show a => Show [a] where\n"
    "  show _ = \"list\"\n"
    "instance Show a => Show (Maybe a) where\n"
    "  show Nothing = \"Nothing\"\n"
    "  show (Just x) = show x\n"
    "instance Functor Maybe where\n"
    "  fmap f Nothing = Nothing\n"
    "  fmap f (Just x) = Just (f x)\n"
    "instance Monad IO where\n"
    "  IO m >>= k = IO (\\w -> case m w of IORes w2 a -> case k a of IO m2 -> m2 w2)\n"
    "  return x = IO (\\w -> IORes w x)\n"
    "instance Monad Maybe where\n"
    "  Nothing >>= _ = Nothing\n"
    "  Just x >>= k = k x\n"
    "  return = Just\n"
    "print :: Show a => a -> IO ()\n"
    "print x = return ()\n"
    "unpackCString# :: Addr# -> [Char]\n"
    "unpackCString# a = []\n"
    "error :: [Char] -> a\n"
    "error s = error s\n"
    "patError :: [Char] -> a\n"
    "patError s = error s\n"
    "negate :: Num a => a -> a\n"
    "negate x = x\n"
    "enumFrom :: a -> [a]\n"
    "enumFrom x = [x]\n"
    "enumFromThen :: a -> a -> [a]\n"
    "enumFromThen x y = [x]\n"
    "enumFromTo :: a -> a -> [a]\n"
    "enumFromTo x y = [x]\n"
    "enumFromThenTo :: a -> a -> a -> [a]\n"
    "enumFromThenTo x y z = [x]\n";

static const char *HEADER =
    "{-# LANGUAGE NoImplicitPrelude #-}\nmodule Main where\nimport Lz.Base\n";
enum { HEADER_LINES = 3 };

/* ---- harness --------------------------------------------------------------------- */

static char tmpdir[256];
static char *diag_text;
static size_t diag_len;
static FILE *diag;
static CoreProgram *core;

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void put(const char *rel, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
  for (char *s = path + strlen(tmpdir) + 1; *s; s++)
    if (*s == '/') {
      *s = 0;
      mkdir(path, 0755);
      *s = '/';
    }
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static int setup(void **state) {
  (void)state;
  lz_reset();
  core_reset();
  strcpy(tmpdir, "/tmp/lz_tc_XXXXXX");
  if (!mkdtemp(tmpdir)) return -1;
  put("stdlib/Lz/Base.lz", MINI_BASE);
  diag = open_memstream(&diag_text, &diag_len);
  lz_set_diag_stream(diag);
  lz_set_error_limit(100);
  core = NULL;
  return 0;
}

static int teardown(void **state) {
  (void)state;
  lz_set_diag_stream(NULL);
  fclose(diag);
  free(diag_text);
  diag_text = NULL;
  nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  lz_reset();
  core_reset();
  return 0;
}

static const char *diags(void) {
  fflush(diag);
  return diag_text ? diag_text : "";
}

/* Compile HEADER + body as Main.lz (line 1 of body is line HEADER_LINES + 1). */
static CoreProgram *compile(const char *body) {
  put("Main.lz", lz_fmt("%s%s", HEADER, body));
  FeOptions o = {0};
  o.stdlib_dir = lz_fmt("%s/stdlib", tmpdir);
  core = fe_compile(lz_fmt("%s/Main.lz", tmpdir), &o);
  fflush(diag);
  return core;
}

/* Compile a program that must be accepted, and lint its Core. */
static void accept(const char *body) {
  compile(body);
  if (!core || lz_error_count() > 0) fail_msg("unexpected errors:\n%s", diags());
  int bad = core_lint_program(core, "typecheck test");
  if (bad) fail_msg("Core lint found %d problem(s)", bad);
}

static CoreBind *top_bind(const char *name) {
  for (int g = 0; g < core->groups.len; g++)
    for (int i = 0; i < core->groups.data[g].nbinds; i++) {
      CoreBind *b = &core->groups.data[g].binds[i];
      if (b->var->module && !strcmp(b->var->module, "Main") && !strcmp(b->var->name, name))
        return b;
    }
  fail_msg("no top-level binding %s", name);
  return NULL;
}

static const char *type_of(const char *name) {
  return core_type_to_string(top_bind(name)->var->type);
}

static char *rhs_of(const char *name) {
  char *s = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&s, &n);
  core_print_expr(f, top_bind(name)->rhs);
  fclose(f);
  char *r = lz_strdup(s);
  free(s);
  return r;
}

#define EXPECT_TYPE(name, ty) assert_string_equal(type_of(name), ty)

/* The first error is on line `line` of the body and contains `needle`. */
static void reject(const char *body, int line, const char *needle) {
  compile(body);
  if (core) fail_msg("program was accepted");
  const char *d = diags();
  const char *first = strstr(d, ": error:");
  if (!first) fail_msg("no error reported; diagnostics:\n%s", d);
  const char *ls = first;
  while (ls > d && ls[-1] != '\n')
    ls--;
  char head[600];
  snprintf(head, sizeof head, "%s/Main.lz:%d:", tmpdir, line + HEADER_LINES);
  if (strncmp(ls, head, strlen(head)) != 0)
    fail_msg("first error not at line %d (%s); diagnostics:\n%s", line, head, d);
  if (!strstr(first, needle)) fail_msg("first error lacks \"%s\"; diagnostics:\n%s", needle, d);
}

/* ---- accepted programs ----------------------------------------------------------------- */

static void test_let_polymorphism(void **state) {
  (void)state;
  accept("ident x = x\n"
         "twice f x = f (f x)\n"
         "compose f g x = f (g x)\n"
         "pairUp = let i y = y in (i True, i 'c')\n"
         "swap (a, b) = (b, a)\n"
         "main :: IO ()\n"
         "main = return ()\n");
  EXPECT_TYPE("ident", "forall a. a -> a");
  EXPECT_TYPE("twice", "forall a. (a -> a) -> a -> a");
  EXPECT_TYPE("compose", "forall a b c. (a -> b) -> (c -> a) -> c -> b");
  EXPECT_TYPE("pairUp", "(Bool, Char)");
  EXPECT_TYPE("swap", "forall a b. (a, b) -> (b, a)");
}

static void test_dictionary_passing(void **state) {
  (void)state;
  accept("add x y = x + y\n"
         "showTwice x = (show x, show [x])\n"
         "useAdd :: Int -> Int\n"
         "useAdd n = add n n\n"
         "main :: IO ()\n"
         "main = print (useAdd 2)\n");
  EXPECT_TYPE("add", "forall a. Num a -> a -> a -> a");
  EXPECT_TYPE("showTwice", "forall a. Show a -> a -> ([Char], [Char])");
  /* the dictionary of the instance at Int is passed explicitly */
  assert_non_null(strstr(rhs_of("useAdd"), "add @Int Lz.Base.$fNumInt"));
  /* Show [a] from the parameter Show a via the instance function */
  assert_non_null(strstr(rhs_of("showTwice"), "Lz.Base.$fShowList @a"));
}

static void test_superclass(void **state) {
  (void)state;
  accept("both x y = (x < y, x == y)\n"
         "viaSig :: Ord a => a -> Bool\n"
         "viaSig x = x == x\n"
         "main :: IO ()\n"
         "main = return ()\n");
  /* Eq a is implied by Ord a: one dictionary parameter */
  EXPECT_TYPE("both", "forall a. Ord a -> a -> a -> (Bool, Bool)");
  assert_non_null(strstr(rhs_of("viaSig"), "Lz.Base.$p1Ord @a"));
}

static void test_constructor_class(void **state) {
  (void)state;
  accept("inc m = fmap (\\x -> x + 1) m\n"
         "twiceM m = m >>= \\x -> m >>= \\y -> return (x, y)\n"
         "main :: IO ()\n"
         "main = print (inc (Just (1 :: Int)))\n");
  EXPECT_TYPE("inc", "forall a b. Functor a -> Num b -> a b -> a b");
  EXPECT_TYPE("twiceM", "forall a b. Monad a -> a b -> a (b, b)");
}

static void test_defaulting(void **state) {
  (void)state;
  accept("main :: IO ()\n"
         "main = print (1 + 2) >> print (fromRational undefined + 1.5)\n"
         "undefined = undefined\n");
  char *m = rhs_of("main");
  assert_non_null(strstr(m, "Lz.Base.print @Integer Lz.Base.$fShowInteger"));
  assert_non_null(strstr(m, "Lz.Base.print @Double"));
}

static void test_literals(void **state) {
  (void)state;
  accept("i :: Int\n"
         "i = 42\n"
         "j :: Integer\n"
         "j = 12345678901234567890\n"
         "d :: Double\n"
         "d = 2.5\n"
         "c = 'x'\n"
         "s = \"hi\"\n"
         "poly :: Num a => a\n"
         "poly = 7\n"
         "main :: IO ()\n"
         "main = return ()\n");
  assert_string_equal(rhs_of("i"), "I# 42#");
  assert_non_null(strstr(rhs_of("j"), "12345678901234567890"));
  assert_non_null(strstr(rhs_of("d"), "D# 2.5##"));
  assert_string_equal(rhs_of("c"), "C# 'x'#");
  assert_non_null(strstr(rhs_of("s"), "unpackCString# \"hi\"#"));
  assert_non_null(strstr(rhs_of("poly"), "Lz.Base.fromInteger @a"));
}

static void test_monomorphism_restriction(void **state) {
  (void)state;
  accept("n = 3\n"
         "useN :: Int\n"
         "useN = n + 1\n"
         "f = \\x -> x + 1\n"
         "g = f (2 :: Double)\n"
         "main :: IO ()\n"
         "main = return ()\n");
  EXPECT_TYPE("n", "Int");
  EXPECT_TYPE("f", "Double -> Double");
}

static void test_mutual_recursion(void **state) {
  (void)state;
  accept("evens [] = []\n"
         "evens (x : xs) = x : odds xs\n"
         "odds [] = []\n"
         "odds (_ : xs) = evens xs\n"
         "count x [] = x\n"
         "count x (_ : ys) = count (x + 1) ys\n"
         "main :: IO ()\n"
         "main = print (count 0 (evens [True]))\n");
  EXPECT_TYPE("evens", "forall a. [a] -> [a]");
  EXPECT_TYPE("odds", "forall a. [a] -> [a]");
  EXPECT_TYPE("count", "forall a b. Num a -> a -> [b] -> a");
}

static void test_classes_and_instances(void **state) {
  (void)state;
  accept("class Shape a where\n"
         "  area :: a -> Double\n"
         "  name :: a -> [Char]\n"
         "  name _ = \"shape\"\n"
         "data Sq = Sq Double\n"
         "instance Shape Sq where\n"
         "  area (Sq s) = s\n"
         "newtype Box a = Box a\n"
         "instance Show a => Show (Box a) where\n"
         "  show (Box x) = show x\n"
         "data P = P !Int Int\n"
         "mk = P 1\n"
         "main :: IO ()\n"
         "main = print (Box (area (Sq 2))) >> print (name (Sq 1))\n");
  EXPECT_TYPE("mk", "Int -> P");
  /* strict field: its argument is evaluated before construction */
  assert_non_null(strstr(rhs_of("mk"), "case"));
}

/* ---- rejected programs ----------------------------------------------------------------- */

static void test_mismatch(void **state) {
  (void)state;
  reject("f :: Int -> Bool\n"
         "f x = x\n"
         "main :: IO ()\n"
         "main = return ()\n",
         2, "Couldn't match expected type ‘Bool’ with actual type ‘Int’");
}

static void test_mismatch_argument(void **state) {
  (void)state;
  reject("g :: Int -> Int\n"
         "g x = x\n"
         "main :: IO ()\n"
         "main = print (g\n"
         "  True)\n",
         5, "Couldn't match expected type ‘Int’ with actual type ‘Bool’");
}

static void test_occurs_check(void **state) {
  (void)state;
  reject("main :: IO ()\n"
         "main = return ()\n"
         "f x = x x\n",
         3, "Occurs check: cannot construct the infinite type");
}

static void test_rigid(void **state) {
  (void)state;
  reject("f :: a -> a\n"
         "f x = True\n"
         "main :: IO ()\n"
         "main = return ()\n",
         2, "‘a’ is a rigid type variable");
}

static void test_no_instance(void **state) {
  (void)state;
  reject("main :: IO ()\n"
         "main = print (\\x -> x)\n",
         2, "No instance for (Show (p0 -> p0)) arising from a use of ‘print’");
}

static void test_missing_constraint(void **state) {
  (void)state;
  reject("f :: a -> a\n"
         "f x = x + x\n"
         "main :: IO ()\n"
         "main = return ()\n",
         2, "(Num a) arising from a use of ‘+’");
}

static void test_ambiguous(void **state) {
  (void)state;
  reject("class Foo a where\n"
         "  foo :: a -> Bool\n"
         "  bar :: Int -> a\n"
         "main :: IO ()\n"
         "main = print (foo (bar 1))\n",
         5, "Ambiguous type variable");
}

static void test_kind_error(void **state) {
  (void)state;
  reject("f :: Maybe -> Int\n"
         "f _ = 1\n"
         "main :: IO ()\n"
         "main = return ()\n",
         1, "Expecting one more argument to ‘Maybe’");
}

static void test_main_not_io(void **state) {
  (void)state;
  reject("main :: Int\n"
         "main = 3\n",
         2, "Couldn't match expected type ‘IO t0’ with actual type ‘Int’");
}

static void test_duplicate_instance(void **state) {
  (void)state;
  reject("data T = T\n"
         "instance Show T where\n"
         "  show _ = \"a\"\n"
         "instance Show T where\n"
         "  show _ = \"b\"\n"
         "main :: IO ()\n"
         "main = return ()\n",
         2, "Duplicate instance declarations"); /* GHC: at the first of the two */
}

static void test_synonyms(void **state) {
  (void)state;
  reject("type A = B\n"
         "type B = A\n"
         "main :: IO ()\n"
         "main = return ()\n",
         1, "Cycle in type synonym declarations");
  teardown(state);
  setup(state);
  reject("type P a = (a, a)\n"
         "f :: P -> Int\n"
         "f _ = 1\n"
         "main :: IO ()\n"
         "main = return ()\n",
         2, "should have 1 argument");
}

static void test_independent_errors(void **state) {
  (void)state;
  reject("a :: Int\n"
         "a = True\n"
         "b :: Bool\n"
         "b = 'c'\n"
         "main :: IO ()\n"
         "main = return ()\n",
         2, "Couldn't match");
  /* the second binding's error is reported too */
  assert_non_null(strstr(diags(), "Main.lz:7:"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_let_polymorphism, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dictionary_passing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_superclass, setup, teardown),
      cmocka_unit_test_setup_teardown(test_constructor_class, setup, teardown),
      cmocka_unit_test_setup_teardown(test_defaulting, setup, teardown),
      cmocka_unit_test_setup_teardown(test_literals, setup, teardown),
      cmocka_unit_test_setup_teardown(test_monomorphism_restriction, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mutual_recursion, setup, teardown),
      cmocka_unit_test_setup_teardown(test_classes_and_instances, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mismatch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mismatch_argument, setup, teardown),
      cmocka_unit_test_setup_teardown(test_occurs_check, setup, teardown),
      cmocka_unit_test_setup_teardown(test_rigid, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_instance, setup, teardown),
      cmocka_unit_test_setup_teardown(test_missing_constraint, setup, teardown),
      cmocka_unit_test_setup_teardown(test_ambiguous, setup, teardown),
      cmocka_unit_test_setup_teardown(test_kind_error, setup, teardown),
      cmocka_unit_test_setup_teardown(test_main_not_io, setup, teardown),
      cmocka_unit_test_setup_teardown(test_duplicate_instance, setup, teardown),
      cmocka_unit_test_setup_teardown(test_synonyms, setup, teardown),
      cmocka_unit_test_setup_teardown(test_independent_errors, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

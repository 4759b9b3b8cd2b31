/* test_stdlib_extra.c — unit tests of the tier 2/3 library modules (Data.Array, Data.Ix,
 * Data.Complex, Data.Either, Text.Printf, Control.Parallel(.Strategies), Control.DeepSeq,
 * Data.Char's generalCategory) and of the primops they added to core-ir/primops.def.
 *
 * The idea: the behaviour of these modules is checked against GHC by stdlib/check (the
 * library compiled by GHC) and by the golden corpus (compiled by lzc); what can only be
 * checked here is the contract with the compiler. So each test either looks at the primop
 * table (names, arities, flags the optimiser relies on: an EFFECT primop is never dropped)
 * or runs the whole front end (parser to Core, with the Core linter) on a small program
 * that uses a module, and checks that it is accepted with no diagnostic, or rejected for
 * the reason GHC rejects it (a missing instance, an ambiguous type). Diagnostics are
 * captured in memory so that the messages can be asserted on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../frontend/frontend.h"

#ifndef LZ_STDLIB_DIR
#define LZ_STDLIB_DIR "stdlib"
#endif

/* ---- harness ------------------------------------------------------------------------------ */

static char diag_buf[1 << 16];

/* Run the front end on `src` (module Main) with the real standard library. Returns the
 * number of errors; the diagnostics are left in diag_buf. */
static int compile(const char *src) {
  lz_reset();
  core_reset();
  memset(diag_buf, 0, sizeof diag_buf);
  FILE *f = fmemopen(diag_buf, sizeof diag_buf - 1, "w");
  assert_non_null(f);
  lz_set_diag_stream(f);
  FeOptions fo = {0};
  fo.stdlib_dir = LZ_STDLIB_DIR;
  fo.lint = true;
  CoreProgram *core = fe_compile_text("Main.lz", src, strlen(src), &fo);
  int errors = lz_error_count();
  fclose(f);
  lz_set_diag_stream(NULL);
  if (errors == 0) assert_non_null(core);
  return errors;
}

static void accepts(const char *src) {
  int errors = compile(src);
  if (errors) fprintf(stderr, "unexpected errors:\n%s\n", diag_buf);
  assert_int_equal(errors, 0);
}

static void rejects(const char *src, const char *needle) {
  assert_true(compile(src) > 0);
  if (!strstr(diag_buf, needle)) fprintf(stderr, "missing ‘%s’ in:\n%s\n", needle, diag_buf);
  assert_non_null(strstr(diag_buf, needle));
}

/* ---- the primop table ------------------------------------------------------------------------ */

static void expect_primop(const char *name, int arity, int flags) {
  int p = core_primop_lookup(name);
  assert_true(p >= 0);
  assert_int_equal(core_primops[p].arity, arity);
  assert_int_equal(core_primops[p].flags, flags);
}

static void test_array_primops(void **state) {
  (void)state;
  expect_primop("newArray#", 3, PRIM_EFFECT | PRIM_CANFAIL);
  expect_primop("readArray#", 3, PRIM_EFFECT | PRIM_CANFAIL);
  expect_primop("writeArray#", 4, PRIM_EFFECT | PRIM_CANFAIL);
  expect_primop("unsafeFreezeArray#", 2, PRIM_EFFECT);
  expect_primop("thawArray#", 4, PRIM_EFFECT | PRIM_CANFAIL);
  /* a read at an unchecked index must never be speculated */
  expect_primop("indexArray#", 2, PRIM_CANFAIL);
  expect_primop("sizeofArray#", 1, PRIM_PURE);
  expect_primop("sizeofMutableArray#", 1, PRIM_PURE);
}

static void test_spark_and_coerce_primops(void **state) {
  (void)state;
  /* EFFECT so that `case spark# b realWorld# of _ -> x` is never dropped */
  expect_primop("spark#", 2, PRIM_EFFECT);
  expect_primop("unsafeCoerce#", 1, PRIM_PURE);
  assert_int_equal(core_primop_lookup("spark"), -1);
}

/* ---- modules through the front end --------------------------------------------------------- */

static void test_data_array(void **state) {
  (void)state;
  accepts(
      "import Data.Array\n"
      "fibs :: Int -> Array Int Integer\n"
      "fibs n = a where a = listArray (0, n) [f i | i <- [0 .. n]]\n"
      "                 f i = if i < 2 then toInteger i else a ! (i - 1) + a ! (i - 2)\n"
      "main :: IO ()\n"
      "main = do\n"
      "  let g = accumArray (+) 0 ((0, 0), (1, 2)) [((i `mod` 2, i `mod` 3), i) | i <- [1 .. 9]]\n"
      "  print (fibs 50 ! 50, bounds g, elems (fmap (* 2) g), g // [((0, 0), 7)] == g)\n"
      "  print (ixmap (0, 2) (\\i -> (1, i)) g, accum (+) g [((1, 1), 1)] < g, range ('a', "
      "'c'))\n");
  /* Array is abstract: its constructor is not exported */
  rejects("import Data.Array\nmain :: IO ()\nmain = case listArray (0, 0) \"a\" of Array _ _ _ _ "
          "-> return ()\n",
          "Not in scope: data constructor ‘Array’");
  /* no Ix instance for Double: ambiguous after defaulting fails, as in GHC */
  rejects("import Data.Array\nmain :: IO ()\nmain = print (listArray (0.5, 1.5) \"ab\" ! 1.0)\n",
          "(Ix a0)");
}

static void test_data_complex(void **state) {
  (void)state;
  accepts(
      "import Data.Complex\n"
      "main :: IO ()\n"
      "main = do\n"
      "  let z = (1 :+ 2) * (3 :+ (-1)) :: Complex Double\n"
      "  print (z, magnitude z, phase z, polar z, conjugate z, mkPolar 1 pi :: Complex Double)\n"
      "  print (sqrt z, exp z, z ** 0.5, asinh z, realPart (cis 1 :: Complex Double), z / 2)\n");
  /* the numeric instances need RealFloat, as in GHC */
  rejects("import Data.Complex\nmain :: IO ()\nmain = print ((1 :+ 2) * (3 :+ 4) :: Complex Int)\n",
          "No instance for (RealFloat Int)");
}

static void test_text_printf(void **state) {
  (void)state;
  accepts(
      "import Text.Printf\n"
      "import System.IO\n"
      "main :: IO ()\n"
      "main = do\n"
      "  printf \"%d %s %c %.2f %5x\\n\" (1 :: Int) \"two\" '3' (4.5 :: Double) (255 :: Integer)\n"
      "  let s = printf \"%03d|%-4s|\" (7 :: Int) \"ab\" :: String\n"
      "  putStrLn s\n"
      "  hPrintf stderr \"%s\\n\" s\n"
      "  mapM_ (\\x -> printf \"%d\\n\" x) [1, 2 :: Int]\n"
      "  printf \"done\\n\"\n");
  /* Bool is not a PrintfArg */
  rejects("import Text.Printf\nmain :: IO ()\nmain = printf \"%s\\n\" True\n",
          "No instance for (PrintfArg Bool)");
}

static void test_either_and_char(void **state) {
  (void)state;
  accepts("import Data.Either\nimport Data.Char\n"
          "main :: IO ()\n"
          "main = do\n"
          "  let es = [Left 'a', Right (1 :: Int), Left 'b']\n"
          "  print (lefts es, rights es, partitionEithers es, isLeft (head es), fromRight 0 (head "
          "es))\n"
          "  print (generalCategory 'a', [minBound .. maxBound :: GeneralCategory], fromLeft 'z' "
          "(Right ()))\n");
}

static void test_parallel(void **state) {
  (void)state;
  accepts(
      "import Control.Parallel\nimport Control.Parallel.Strategies\nimport Control.DeepSeq\n"
      "data T = T Int [Int]\n"
      "instance NFData T where\n"
      "  rnf (T a b) = rnf a `seq` rnf b\n"
      "main :: IO ()\n"
      "main = do\n"
      "  let xs = parMap rdeepseq (\\n -> [n, n * 2]) [1 .. 10 :: Int]\n"
      "  print (xs, map (* 2) [1 .. 5 :: Int] `using` parListChunk 2 rseq)\n"
      "  print (runEval (do a <- rpar (1 :: Int); b <- rseq 2; return (a + b)))\n"
      "  print ((1 :: Int, 'x') `using` parTuple2 rseq r0, force (T 1 [2]) `seq` ())\n"
      "  print (let a = sum [1 .. 100 :: Int] in a `par` (a `pseq` a), [1, 2 :: Int] `deepseq` 3)\n"
      "  r <- [3, 4 :: Int] `usingIO` evalList rpar\n"
      "  print (r, withStrategy (parBuffer 2 rseq) [1, 2 :: Int], (+ 1) <$!!> Just (1 :: Int))\n");
  /* a user type without an NFData instance */
  rejects("import Control.DeepSeq\ndata U = U\nmain :: IO ()\nmain = print (U `deepseq` ())\n",
          "No instance for (NFData U)");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_array_primops), cmocka_unit_test(test_spark_and_coerce_primops),
      cmocka_unit_test(test_data_array),    cmocka_unit_test(test_data_complex),
      cmocka_unit_test(test_text_printf),   cmocka_unit_test(test_either_and_char),
      cmocka_unit_test(test_parallel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

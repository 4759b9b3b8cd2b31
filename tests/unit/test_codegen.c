/* test_codegen.c — unit tests of codegen/: STG to LLVM, the module's shape, and small
 * programs compiled end to end and run.
 *
 * The approach: each test writes a small Lz program, takes it through the real front end
 * (with the stdlib) and Core -> STG, generates the LLVM module and checks it: LLVM's
 * verifier accepts it before and after the -O2 pipeline, `lz_main_closure` is the only
 * exported definition, and every call between generated functions is a tail call directly
 * followed by `ret` (the guarantee the execution model rests on, which the optimiser must
 * not break). Then the module is emitted as an object, linked with the runtime and run;
 * its stdout and exit status must match what GHC prints for the same program. The programs
 * target the code paths one at a time: stack arguments (arity > 3), over-saturated and
 * partial applications, constructors beyond the seven pointer tags, Double#, Integer,
 * let-no-escape join points, deep recursion (stack growth), thunk update and `error`.
 */
#include <llvm-c/Core.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../codegen/codegen.h"
#include "../../frontend/frontend.h"

#ifndef LZ_STDLIB_DIR
#define LZ_STDLIB_DIR "stdlib"
#endif
#ifndef LZ_RTS_LIB
#define LZ_RTS_LIB "liblzrts.a"
#endif

static char tmpdir[] = "/tmp/lz-test-codegen-XXXXXX";

/* ---- harness ------------------------------------------------------------------------------ */

static StgProgram *to_stg(const char *src) {
  lz_reset();
  core_reset();
  FeOptions fo = {0};
  fo.stdlib_dir = LZ_STDLIB_DIR;
  fo.lint = true;
  CoreProgram *core = fe_compile_text("Main.lz", src, strlen(src), &fo);
  assert_non_null(core);
  assert_int_equal(lz_error_count(), 0);
  StgProgram *stg = stg_from_core(core);
  assert_non_null(stg);
  assert_int_equal(stg_lint_program(stg, "test"), 0);
  return stg;
}

static CgModule *generate(const char *src, int opt) {
  StgProgram *stg = to_stg(src);
  CgOptions co = {.opt_level = opt, .module_name = "test"};
  CgModule *m = cg_generate(stg, &co);
  assert_non_null(m);
  char *msg = NULL;
  bool ok = cg_verify(m, &msg);
  if (!ok) fprintf(stderr, "verifier: %s\n", msg);
  assert_true(ok);
  return m;
}

/* Every call to a code function is a tail call followed by `ret`. */
static int count_bad_calls(CgModule *m, int *ncalls) {
  LLVMModuleRef mod = cg_llvm_module(m);
  LLVMValueRef main_clo = LLVMGetNamedGlobal(mod, "lz_main_closure");
  assert_non_null(main_clo);
  int bad = 0;
  *ncalls = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(mod); fn; fn = LLVMGetNextFunction(fn)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
        if (LLVMGetInstructionOpcode(in) != LLVMCall) continue;
        /* calls returning void are transfers between code functions (after -O2 some have
         * lost unused parameters or become fastcc) */
        LLVMTypeRef ft = LLVMGetCalledFunctionType(in);
        if (LLVMGetTypeKind(LLVMGetReturnType(ft)) != LLVMVoidTypeKind) continue;
        (*ncalls)++;
        LLVMValueRef next = LLVMGetNextInstruction(in);
        if (!LLVMIsTailCall(in) || !next || LLVMGetInstructionOpcode(next) != LLVMRet) {
          if (bad++ < 3) {
            char *s = LLVMPrintValueToString(in);
            fprintf(stderr, "not a tail call in %s: %s\n", LLVMGetValueName(fn), s);
            LLVMDisposeMessage(s);
          }
        }
      }
    }
  }
  return bad;
}

/* Exported definitions other than lz_main_closure. */
static int count_exports(CgModule *m) {
  LLVMModuleRef mod = cg_llvm_module(m);
  int n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g))
    if (!LLVMIsDeclaration(g) && LLVMGetLinkage(g) == LLVMExternalLinkage &&
        strcmp(LLVMGetValueName(g), "lz_main_closure") != 0)
      n++;
  for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage) n++;
  return n;
}

typedef struct Run {
  int status;
  char out[8192];
  char err[1024];
} Run;

static void slurp(const char *path, char *buf, size_t cap) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
  buf[n] = 0;
  if (f) fclose(f);
}

/* Compile at `opt`, link, run with `args` (may be ""), capture stdout/stderr/status. */
static Run *compile_and_run(const char *src, int opt, const char *args) {
  CgModule *m = generate(src, opt);
  char *err = NULL;
  assert_true(cg_optimize(m, opt, &err));
  char *msg = NULL;
  assert_true(cg_verify(m, &msg));
  int calls = 0;
  int bad = count_bad_calls(m, &calls);
  assert_true(calls > 0);
  assert_int_equal(bad, 0);
  assert_int_equal(count_exports(m), 0);
  char *obj = lz_fmt("%s/prog.o", tmpdir), *exe = lz_fmt("%s/prog", tmpdir);
  bool ok = cg_emit_object(m, obj, &err);
  if (!ok) fprintf(stderr, "emit: %s\n", err);
  assert_true(ok);
  cg_dispose(m);
  const char *rts = cg_find_runtime(NULL, LZ_RTS_LIB);
  assert_non_null(rts);
  ok = cg_link(obj, exe, rts, &err);
  if (!ok) fprintf(stderr, "link: %s\n", err);
  assert_true(ok);
  Run *r = LZ_NEW(Run);
  char *cmd = lz_fmt("cd %s && ./prog %s >out.txt 2>err.txt </dev/null", tmpdir, args);
  int st = system(cmd);
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  slurp(lz_fmt("%s/out.txt", tmpdir), r->out, sizeof r->out);
  slurp(lz_fmt("%s/err.txt", tmpdir), r->err, sizeof r->err);
  return r;
}

static void expect_run(const char *src, const char *want_out, int want_status) {
  for (int opt = 0; opt <= 2; opt += 2) {
    Run *r = compile_and_run(src, opt, "");
    if (strcmp(r->out, want_out) != 0 || r->status != want_status)
      fprintf(stderr, "-O%d: status %d (want %d)\nstdout:\n%s\nwanted:\n%s\nstderr:\n%s\n", opt,
              r->status, want_status, r->out, want_out, r->err);
    assert_string_equal(r->out, want_out);
    assert_int_equal(r->status, want_status);
  }
}

/* ---- module shape --------------------------------------------------------------------------- */

static void test_module_verifies_and_exports_main(void **state) {
  (void)state;
  CgModule *m = generate("main :: IO ()\nmain = putStrLn \"hi\"\n", 0);
  assert_int_equal(count_exports(m), 0);
  char *text = cg_module_to_string(m);
  assert_non_null(strstr(text, "@lz_main_closure = global"));
  assert_non_null(strstr(text, "tail call void"));
  /* the string literal is a private constant */
  assert_non_null(strstr(text, "c\"hi\\00\""));
  cg_dispose(m);
}

static void test_only_reachable_code(void **state) {
  (void)state;
  CgModule *m = generate("main :: IO ()\nmain = return ()\n", 0);
  char *text = cg_module_to_string(m);
  /* nothing of the Show/Integer machinery is needed by `return ()` */
  assert_null(strstr(text, "showsPrec"));
  assert_null(strstr(text, "integerAdd"));
  cg_dispose(m);
}

static void test_tail_calls_survive_O2(void **state) {
  (void)state;
  CgModule *m = generate("main :: IO ()\nmain = print (sum (map (* 2) [1 .. 10 :: Int]))\n", 2);
  char *err = NULL;
  assert_true(cg_optimize(m, 2, &err));
  char *msg = NULL;
  assert_true(cg_verify(m, &msg));
  int calls = 0;
  assert_int_equal(count_bad_calls(m, &calls), 0);
  assert_true(calls > 0);
  cg_dispose(m);
}

static void test_inline_primops(void **state) {
  (void)state;
  CgModule *m = generate("main :: IO ()\nmain = print (length [1 .. 10 :: Int] + 3)\n", 0);
  char *text = cg_module_to_string(m);
  /* Int# arithmetic is inline, not a call of the runtime's lz_prim_intAdd */
  assert_null(strstr(text, "@lz_prim_intAdd"));
  assert_non_null(strstr(text, "add i64"));
  cg_dispose(m);
}

/* The threaded way's plain claim (-N1, or a capability running alone) loads the info word
 * again and compares it before its stores: the capability may have begun running alone at
 * the thunk's heap check, after another one claimed and updated the thunk (Note [Running
 * alone], docs/notes/threaded-rts.md). Without that check: a duplicate evaluation. */
static void test_plain_claim_rechecks_the_info_word(void **state) {
  (void)state;
  StgProgram *stg = to_stg("main :: IO ()\nmain = let xs = [1 .. 10 :: Int] in print (sum xs + "
                           "length xs)\n");
  CgOptions co = {.opt_level = 0, .module_name = "test", .threaded = true};
  CgModule *m = cg_generate(stg, &co);
  assert_non_null(m);
  char *text = cg_module_to_string(m);
  int blocks = 0;
  for (char *p = strstr(text, "\nplainbh"); p; p = strstr(p + 1, "\nplainbh")) {
    char *end = strstr(p + 1, "\n\n"); /* a block ends at a blank line */
    assert_non_null(end);
    char *load = strstr(p, "load atomic i64"), *cmp = strstr(p, "icmp eq"),
         *store = strstr(p, "store ");
    assert_true(load && load < end && cmp && cmp < end); /* the check, in this block */
    assert_true(!store || store > end);                  /* and no store before it */
    blocks++;
  }
  assert_true(blocks > 0);
  cg_dispose(m);
}

/* ---- programs ----------------------------------------------------------------------------------
 */

static void test_run_hello(void **state) {
  (void)state;
  expect_run("main :: IO ()\nmain = putStrLn \"hello, world\"\n", "hello, world\n", 0);
}

static void test_run_stack_arguments(void **state) {
  (void)state;
  expect_run("f :: Int -> Int -> Int -> Int -> Int -> Int\n"
             "f a b c d e = a + 2 * b + 3 * c + 4 * d + 5 * e\n"
             "g :: Int -> Int -> Int -> Int -> Int -> Int -> Int -> Int\n"
             "g a b c d e h i = a - b + c - d + e - h + i\n"
             "main :: IO ()\n"
             "main = do\n"
             "  print (f 1 2 3 4 5)\n"
             "  print (map (f 1 2 3 4) [10, 20])\n"
             "  print (zipWith3 (g 1 2 3 4) [5] [6] [7])\n",
             "55\n[80,130]\n[4]\n", 0);
}

static void test_run_partial_and_oversaturated(void **state) {
  (void)state;
  expect_run("add3 :: Int -> Int -> Int -> Int\n"
             "add3 a b c = a + b + c\n"
             "pick :: Bool -> Int -> Int -> Int\n"
             "pick b = if b then (+) else (*)\n"
             "main :: IO ()\n"
             "main = do\n"
             "  let p = add3 1\n"
             "  print (map (p 2) [3, 4])\n"
             "  print (pick True 3 4, pick False 3 4)\n"
             "  print (foldr (.) id [(+ 1), (* 2)] 5)\n",
             "[6,7]\n(7,12)\n11\n", 0);
}

static void test_run_many_constructors(void **state) {
  (void)state;
  expect_run(
      "data Nine = A | B | C | D | E | F | G | H | I deriving (Show, Eq, Ord, Enum, Bounded)\n"
      "data Box = Box Int Nine | Pair Nine Nine | Tri Int Int Int | B4 | B5 | B6 | B7 | B8\n"
      "  deriving Show\n"
      "score :: Nine -> Int\n"
      "score x = case x of { A -> 1; G -> 7; H -> 8; I -> 9; _ -> 0 }\n"
      "main :: IO ()\n"
      "main = do\n"
      "  print (map score [minBound .. maxBound])\n"
      "  print [Box 1 I, Pair H G, Tri 1 2 3, B8]\n"
      "  print (maximum [C, I, H], fromEnum H, [G ..])\n",
      "[1,0,0,0,0,0,7,8,9]\n[Box 1 I,Pair H G,Tri 1 2 3,B8]\n(I,7,[G,H,I])\n", 0);
}

static void test_run_doubles_and_integers(void **state) {
  (void)state;
  expect_run(
      "main :: IO ()\n"
      "main = do\n"
      "  print (sqrt 2 :: Double, 1 / 3 :: Double, fromIntegral (3 :: Int) * 0.5 :: Double)\n"
      "  print (truncate (1e10 :: Double) :: Int, floor (-2.5 :: Double) :: Int)\n"
      "  print (product [1 .. 25 :: Integer])\n"
      "  print (2 ^ 70 `div` 3 :: Integer, (-7) `mod` (2 :: Integer))\n",
      "(1.4142135623730951,0.3333333333333333,1.5)\n(10000000000,-3)\n"
      "15511210043330985984000000\n(393530540239137101141,1)\n",
      0);
}

static void test_run_integer_fast_paths(void **state) {
  (void)state;
  /* small/big boundaries of the inline Integer paths, and floor vs truncate */
  expect_run("main :: IO ()\n"
             "main = do\n"
             "  let m = 9223372036854775807 :: Integer\n"
             "      n = -9223372036854775808 :: Integer\n"
             "  print (m + 1, n - 1, m * 2, negate n, n `quot` (-1))\n"
             "  print [(-7) `div` 2, (-7) `mod` 2, 7 `div` (-2), 7 `mod` (-2), (-7) `quot` 2, (-7) "
             "`rem` 2 :: Integer]\n"
             "  print (compare m n, m == m, (m + 1) - 1 == m, fromInteger (m + 2) :: Int)\n"
             "  print (sum [1 .. 100000 :: Integer], product [1 .. 20 :: Integer] `div` 3)\n",
             "(9223372036854775808,-9223372036854775809,18446744073709551614,9223372036854775808,"
             "9223372036854775808)\n[-4,1,-4,-1,-3,-1]\n(GT,True,True,-9223372036854775807)\n"
             "(5000050000,810967336058880000)\n",
             0);
}

static void test_run_join_points_and_loops(void **state) {
  (void)state;
  expect_run(
      "collatz :: Int -> Int\n"
      "collatz n = go n 0 where\n"
      "  go 1 acc = acc\n"
      "  go m acc = let next = if even m then m `div` 2 else 3 * m + 1 in go next (acc + 1)\n"
      "classify :: Int -> String\n"
      "classify n = let r | n < 0 = \"neg\" | n == 0 = \"zero\" | otherwise = \"pos\" in r ++ "
      "\"!\"\n"
      "main :: IO ()\n"
      "main = do\n"
      "  print (maximum (map collatz [1 .. 1000]))\n"
      "  mapM_ (putStrLn . classify) [-1, 0, 1]\n",
      "178\nneg!\nzero!\npos!\n", 0);
}

static void test_run_deep_recursion(void **state) {
  (void)state;
  /* a 10^6 deep non-tail recursion needs the Lz stack to grow many times */
  expect_run("main :: IO ()\nmain = do\n  print (foldr (+) 0 [1 .. 1000000 :: Int])\n"
             "  print (length (show (product [1 .. 3000 :: Integer])))\n",
             "500000500000\n9131\n", 0);
}

static void test_run_sharing_and_laziness(void **state) {
  (void)state;
  expect_run(
      "fibs :: [Integer]\nfibs = 0 : 1 : zipWith (+) fibs (tail fibs)\n"
      "main :: IO ()\nmain = do\n"
      "  print (fibs !! 200)\n"
      "  let xs = map (* 2) [1 ..] :: [Int]\n"
      "  print (take 5 xs, takeWhile (< 20) xs)\n"
      "  print (fst (1 :: Int, undefined :: Int))\n",
      "280571172992510140037611932413038677189525\n([2,4,6,8,10],[2,4,6,8,10,12,14,16,18])\n1\n",
      0);
}

static void test_run_error_exit(void **state) {
  (void)state;
  for (int opt = 0; opt <= 2; opt += 2) {
    Run *r = compile_and_run("main :: IO ()\nmain = do\n  putStrLn \"before\"\n"
                             "  print (head ([] :: [Int]))\n",
                             opt, "");
    assert_string_equal(r->out, "before\n");
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "prog: Prelude.head: empty list"));
  }
}

/* ---- main
 * ------------------------------------------------------------------------------------------ */

static int group_setup(void **state) {
  (void)state;
  return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  char *cmd = lz_fmt("rm -rf %s", tmpdir);
  return system(cmd) == 0 ? 0 : -1;
}

static int codegen_tests(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_module_verifies_and_exports_main),
      cmocka_unit_test(test_only_reachable_code),
      cmocka_unit_test(test_tail_calls_survive_O2),
      cmocka_unit_test(test_inline_primops),
      cmocka_unit_test(test_plain_claim_rechecks_the_info_word),
      cmocka_unit_test(test_run_hello),
      cmocka_unit_test(test_run_stack_arguments),
      cmocka_unit_test(test_run_partial_and_oversaturated),
      cmocka_unit_test(test_run_many_constructors),
      cmocka_unit_test(test_run_doubles_and_integers),
      cmocka_unit_test(test_run_integer_fast_paths),
      cmocka_unit_test(test_run_join_points_and_loops),
      cmocka_unit_test(test_run_deep_recursion),
      cmocka_unit_test(test_run_sharing_and_laziness),
      cmocka_unit_test(test_run_error_exit),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

/* The front end and code generator recurse over the program: give them a big stack. */
static int status;
static void *thread_main(void *arg) {
  (void)arg;
  status = codegen_tests();
  return NULL;
}

int main(void) {
  pthread_attr_t attr;
  pthread_t t;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, 256 << 20) == 0 &&
      pthread_create(&t, &attr, thread_main, NULL) == 0) {
    pthread_join(t, NULL);
    return status;
  }
  return codegen_tests();
}

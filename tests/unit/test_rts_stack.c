/* test_rts_stack.c — Lz stacks: growth by copying, deep recursion, overflow, and the
 * heap-exhaustion exit.
 *
 * The first test pushes a million frames through the stack API (the check compiled code
 * makes) and reads them all back after many copies. The second runs a non-tail-recursive
 * "compiled" function (sumTo n = n + sumTo (n-1)) a million levels deep: all of it on the
 * Lz stack, none on the C stack (the hand-written code uses musttail when compiled by
 * clang; with gcc, which cannot guarantee tail calls, the depth is reduced so the C
 * stack of the test itself does not overflow). The last tests run in child processes:
 * past -K the program prints GHC's two-line message and exits 2; allocating past -M
 * prints "Heap exhausted;" and exits 251.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "test_rts_util.h"

#if defined(__clang__)
#define DEEP 1000000
#else
#define DEEP 20000
#endif

static LzCap *cap;

static void test_push_many(void **state) {
  (void)state;
  LzWord *sp = lz_thread_sp(cap);
  LzWord *bottom_frame = sp;
  const LzWord n = 1000000;
  for (LzWord i = 0; i < n; i++) {
    if (sp - 3 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 3);
    sp -= 3;
    sp[0] = (LzWord)&lz_update_frame_info; /* any frame-looking word */
    sp[1] = i;
    sp[2] = ~i;
  }
  LzThread *t = cap->tso;
  assert_true(t->stack_words >= 3 * n);
  assert_true(sp >= cap->sp_lim);
  for (LzWord i = n; i-- > 0;) {
    assert_int_equal(sp[1], i);
    assert_int_equal(sp[2], ~i);
    sp += 3;
  }
  assert_ptr_equal(sp[0], &lz_stop_frame_info); /* the bottom frame moved with the copies */
  assert_ptr_not_equal(sp, bottom_frame);
  assert_ptr_equal(sp, t->stack + t->stack_words - 1);
  t->sp = sp; /* what a stop frame would record: the old stack is gone */
  /* asking for room that is there changes nothing */
  assert_ptr_equal(lz_stack_grow(cap, sp, 1), sp);
}

/* sumTo n = if n == 0 then 0 else n + sumTo (n - 1), with a return frame per level */
LZ_FN(plus_cont) {
  r1 += sp[1];
  sp += 2;
  LZ_RETURN();
}
static const LzInfo plus_info = {plus_cont, LZ_FRAME_RET, 0, 0, 1, 0, "plus"};

LZ_FN(sumto_entry) {
  if (sp - 2 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 2);
  if (r2 == 0) {
    r1 = 0;
    LZ_RETURN();
  }
  sp -= 2;
  sp[0] = (LzWord)&plus_info;
  sp[1] = r2;
  r2 -= 1;
  LZ_JUMP(sumto_entry);
}
static const LzInfo sumto_info = {sumto_entry, LZ_FUN, 1, 0, 0, 0, "sumTo"};
static LzWord sumto_closure[1] = {(LzWord)&sumto_info};

static void test_deep_recursion(void **state) {
  (void)state;
  LzWord n = DEEP;
  LzWord r = lz_run(cap, lz_apply_1, (LzWord)sumto_closure | 1, n, 0, 0);
  assert_int_equal(r, n * (n + 1) / 2);
  assert_ptr_equal(lz_thread_sp(cap)[0], &lz_stop_frame_info);
}

static void overflow_child(void *arg) {
  (void)arg;
  lz_flags.max_stack_bytes = 64 << 10; /* -K64k */
  LzCap *c = lz_rts_init();
  lz_run(c, lz_apply_1, (LzWord)sumto_closure | 1, DEEP, 0, 0);
  _exit(0);
}

static void test_overflow(void **state) {
  (void)state;
  ChildResult r = run_child(overflow_child, NULL);
  assert_int_equal(r.status, 2);
  const char *want1 = "prog: Stack space overflow: current size ";
  assert_memory_equal(r.err, want1, strlen(want1));
  assert_non_null(strstr(r.err, " bytes.\nprog: Use `+RTS -Ksize -RTS' to increase it.\n"));
}

static void heap_child(void *arg) {
  (void)arg;
  LzCap *c = lz_rts_init();
  GC_set_max_heap_size(64u << 20);
  lz_flags.max_heap_bytes = 64u << 20;
  LzWord list = 0;
  for (;;) { /* a list that stays alive: cons cells of 3 words */
    LzWord *cell = test_alloc(c, NULL, 3);
    cell[1] = 0;
    cell[2] = list;
    list = (LzWord)cell;
  }
}

static void test_heap_exhausted(void **state) {
  (void)state;
  ChildResult r = run_child(heap_child, NULL);
  assert_int_equal(r.status, 251);
  assert_non_null(strstr(r.err, "prog: Heap exhausted;\n"));
  assert_non_null(strstr(r.err, "Current maximum heap size is 67108864 bytes (64 MB)."));
}

int main(void) {
  cap = lz_rts_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_push_many),
      cmocka_unit_test(test_deep_recursion),
      cmocka_unit_test(test_overflow),
      cmocka_unit_test(test_heap_exhausted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_replay_dup.c — the duplicate-work detector (rts/replay_dup.c) fed synthetic
 * sequences of slices, thunk entries, spark runs, updates and reads, as the replay's
 * hooks would (Note [Duplicate work] in docs/notes/lzprof.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "replay_dup.h"

/* what the runtime would provide */
const char *lz_srcloc(uint32_t idx) { return idx == 7 ? "t.lz:3:5-9" : NULL; }
void lz_step_fmt_thunk(char *out, size_t n, uint64_t id) {
  snprintf(out, n, "T%llu", (unsigned long long)id);
}
void lz_step_fmt_spark(char *out, size_t n, uint64_t id) {
  snprintf(out, n, "S%llu", (unsigned long long)id);
}

static const LzInfo shared_info = {0, LZ_THUNK, 0, 0, 2, 7, "Main.shared"};
static const LzInfo other_info = {0, LZ_THUNK, 0, 0, 2, 0, "Main.other"};

static char *report(void) {
  static char buf[8192];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  uint64_t alloc[2] = {0, 0};
  assert_int_equal(lz_dup_core_write(f, "t", alloc), 0);
  fclose(f);
  return buf;
}

/* Two threads on two capabilities enter one thunk; the second update finds it updated:
 * one duplicate, named by the entry's thunk id and site, timed on the recorded clock. */
static void test_duplicate(void **state) {
  (void)state;
  lz_dup_core_reset(2, 1000);
  lz_dup_core_slice(0, 1, 100, 0, 200, 1000, true); /* main thread, cap 0 */
  lz_dup_core_slice(1, 2, 100, 0, 300, 2000, true); /* spark thread, cap 1 */
  lz_dup_core_enter(0, 1, 0x1000, 42, &shared_info, 0);
  lz_dup_core_enter(1, 2, 0x1000, 42, &shared_info, 0);
  assert_false(lz_dup_core_update(0, 1, 0x1000, false, false, 1000)); /* first: the value */
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(d, 0);
  assert_false(lz_dup_core_update(1, 2, 0x1000, true, false, 1000)); /* half-way: 100 ns */
  lz_dup_core_counts(&d, &s);
  assert_int_equal(d, 1);
  assert_int_equal(s, 0);
  char *r = report();
  assert_non_null(strstr(r, "dup\tT42\t-\t1\t2\t100\t200\t100\tMain.shared t.lz:3:5-9\n"));
  assert_non_null(strstr(r, "end\t1\t0\n"));
  assert_non_null(strstr(r, "capabilities\t2\nrun_ns\t1000\n"));
}

/* An update of a thunk nobody updated before is no duplicate, and nested evaluations by
 * one thread are matched to their own entries. */
static void test_no_duplicate(void **state) {
  (void)state;
  lz_dup_core_reset(1, 1000);
  lz_dup_core_slice(0, 1, 0, 0, 1000, 1000, true);
  lz_dup_core_enter(0, 1, 0x1000, 1, &shared_info, 0);
  lz_dup_core_enter(0, 1, 0x2000, 2, &other_info, 10);
  lz_dup_core_update(0, 1, 0x2000, false, false, 20);
  lz_dup_core_update(0, 1, 0x1000, false, false, 30);
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(d + s, 0);
  assert_non_null(strstr(report(), "end\t0\t0\n"));
}

/* A spark run by a spark thread and updated there: thrown away unless another thread
 * reads its value, enters one of its thunks, or waits for it. */
static void spark_setup(void) {
  lz_dup_core_reset(2, 1000);
  lz_dup_core_slice(0, 1, 0, 0, 1000, 1000, true);
  lz_dup_core_slice(1, 5, 100, 0, 500, 400, true);
  lz_dup_core_spark(1, 5, 0x3000, 9, 77, &shared_info, 0);
  lz_dup_core_enter(1, 5, 0x3000, 77, &shared_info, 0);
  lz_dup_core_enter(1, 5, 0x4000, 78, &other_info, 100);            /* a thunk inside its work */
  assert_true(lz_dup_core_update(1, 5, 0x4000, false, false, 200)); /* watched */
  assert_false(lz_dup_core_hit(5, 0x4000)); /* its own thread: keep watching */
}

static void test_spark_thrown_away(void **state) {
  (void)state;
  spark_setup();
  assert_true(lz_dup_core_update(1, 5, 0x3000, false, false, 400));
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(s, 1);
  assert_non_null(
      strstr(report(), "spark\tT77\tS9\t1\t5\t100\t500\t400\tMain.shared t.lz:3:5-9\n"));
}

static void test_spark_value_read(void **state) {
  (void)state;
  spark_setup();
  lz_dup_core_update(1, 5, 0x3000, false, false, 400);
  assert_true(lz_dup_core_hit(1, 0x3000)); /* the main thread reads the value */
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(s, 0);
}

static void test_spark_inner_thunk_read(void **state) {
  (void)state;
  spark_setup();
  lz_dup_core_update(1, 5, 0x3000, false, false, 400);
  assert_true(lz_dup_core_hit(0, 0x4000)); /* thread unknown (the runtime's lz_whnf) */
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(s, 0);
}

static void test_spark_waited_for(void **state) {
  (void)state;
  spark_setup();
  lz_dup_core_update(1, 5, 0x3000, false, true, 400); /* a blackhole with waiters */
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(s, 0);
}

static void test_spark_entered_by_other(void **state) {
  (void)state;
  spark_setup();
  lz_dup_core_enter(0, 1, 0x3000, 77, &shared_info, 500); /* lazy: main enters it too */
  lz_dup_core_update(1, 5, 0x3000, false, false, 400);
  assert_false(lz_dup_core_update(0, 1, 0x3000, true, false, 900)); /* and loses */
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(d, 1);
  assert_int_equal(s, 0); /* its work is the value: not thrown away */
}

/* After a collection an address may hold a new thunk: an old watch must not make a
 * spark look used. */
static void test_reused_address(void **state) {
  (void)state;
  spark_setup();
  lz_dup_core_update(1, 5, 0x3000, false, false, 400);
  lz_dup_core_enter(0, 1, 0x4000, 99, &other_info, 600); /* a new thunk at 0x4000 */
  lz_dup_core_update(0, 1, 0x4000, false, false, 700);
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(d, 0);
  assert_int_equal(s, 1);
}

static bool updated_1000(uintptr_t obj) { return obj == 0x1000; }

/* The main thread updates a thunk and the program exits while the spark thread still
 * evaluates it: a duplicate cut off at exit, timed to the end of the spark thread's last
 * slice. A thread the claim gate turned away (unenter) evaluated nothing. */
static void test_cut_off_at_exit(void **state) {
  (void)state;
  lz_dup_core_reset(2, 1000);
  lz_dup_core_slice(0, 1, 100, 0, 200, 1000, true);
  lz_dup_core_slice(1, 2, 100, 0, 300, 2000, false); /* cut off by the exit: ends at 1000 */
  lz_dup_core_slice(1, 3, 100, 0, 300, 2000, true);
  lz_dup_core_enter(0, 1, 0x1000, 42, &shared_info, 0);
  lz_dup_core_enter(1, 2, 0x1000, 42, &shared_info, 0);
  lz_dup_core_enter(1, 3, 0x1000, 42, &shared_info, 0); /* turned away by the gate */
  lz_dup_core_unenter(3, 0x1000);
  lz_dup_core_enter(1, 2, 0x2000, 43, &other_info, 0); /* its own, not updated: no waste */
  assert_false(lz_dup_core_update(0, 1, 0x1000, false, false, 1000));
  lz_dup_core_cut_off(updated_1000);
  size_t d, s;
  lz_dup_core_counts(&d, &s);
  assert_int_equal(d, 1);
  static char buf[8192];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  uint64_t alloc[2] = {1000, 1000};
  assert_int_equal(lz_dup_core_write(f, "t", alloc), 0);
  fclose(f);
  assert_non_null(strstr(buf, "cutoff\tT42\t-\t1\t2\t100\t1000\t900\tMain.shared t.lz:3:5-9\n"));
  assert_non_null(strstr(buf, "end\t1\t0\n"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_duplicate),
      cmocka_unit_test(test_no_duplicate),
      cmocka_unit_test(test_spark_thrown_away),
      cmocka_unit_test(test_spark_value_read),
      cmocka_unit_test(test_spark_inner_thunk_read),
      cmocka_unit_test(test_spark_waited_for),
      cmocka_unit_test(test_spark_entered_by_other),
      cmocka_unit_test(test_reused_address),
      cmocka_unit_test(test_cut_off_at_exit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

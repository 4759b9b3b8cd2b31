/* test_rts_double.c — the runtime's Double primops: showDouble# against GHC, and
 * decodeFloat/encodeFloat/double2Int edge cases.
 *
 * rts_showdouble_table.txt holds "<bits in hex> <show x>" lines printed by GHC
 * (rts_showdouble_gen.hs); every entry must come out byte-identical. The decode cases
 * are the ones primops.def spells out (subnormals, Infinity, NaN, zero).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rts_priv.h"

static LzCap *cap;

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

static void test_show_table(void **state) {
  (void)state;
  FILE *f = fopen(LZ_TESTS_DIR "/unit/rts_showdouble_table.txt", "r");
  assert_non_null(f);
  char line[256];
  int n = 0, bad = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long long bits;
    char want[128];
    if (sscanf(line, "%llx %127s", &bits, want) != 2) continue;
    char got[64];
    lz_show_double(from_bits(bits), got);
    if (strcmp(got, want) != 0 && bad++ < 10)
      fprintf(stderr, "show %016llx: got %s, GHC %s\n", bits, got, want);
    n++;
  }
  fclose(f);
  assert_true(n > 10000);
  assert_int_equal(bad, 0);
}

static void test_show_basic(void **state) {
  (void)state;
  const struct {
    double x;
    const char *s;
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {0.1, "0.1"},
      {-2.5, "-2.5"},
      {1e7, "1.0e7"},
      {1234567.0, "1234567.0"},
      {12345678.0, "1.2345678e7"},
      {0.01, "1.0e-2"},
      {5e-324, "5.0e-324"},
      {1.0 / 3, "0.3333333333333333"},
      {INFINITY, "Infinity"},
      {-INFINITY, "-Infinity"},
      {NAN, "NaN"},
      {100.0, "100.0"},
      {1e22, "1.0e22"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[64];
    lz_show_double(cases[i].x, buf);
    assert_string_equal(buf, cases[i].s);
  }
  assert_string_equal((const char *)lz_prim_showDouble(cap, 2.0), "2.0");
}

static void test_decode(void **state) {
  (void)state;
  assert_int_equal((int64_t)lz_prim_doubleDecodeMantissa(cap, 5e-324), INT64_C(1) << 52);
  assert_int_equal((int64_t)lz_prim_doubleDecodeExponent(cap, 5e-324), -1126);
  assert_int_equal((int64_t)lz_prim_doubleDecodeMantissa(cap, INFINITY), INT64_C(1) << 52);
  assert_int_equal((int64_t)lz_prim_doubleDecodeExponent(cap, INFINITY), 972);
  double nan_neg = from_bits(UINT64_C(0xfff8000000000000));
  assert_int_equal((int64_t)lz_prim_doubleDecodeMantissa(cap, nan_neg),
                   -((INT64_C(1) << 52) + (INT64_C(1) << 51)));
  assert_int_equal((int64_t)lz_prim_doubleDecodeExponent(cap, nan_neg), 972);
  assert_int_equal((int64_t)lz_prim_doubleDecodeMantissa(cap, -0.0), 0);
  assert_int_equal((int64_t)lz_prim_doubleDecodeExponent(cap, 0.0), 0);
  assert_int_equal((int64_t)lz_prim_doubleDecodeMantissa(cap, 1.0), INT64_C(1) << 52);
  assert_int_equal((int64_t)lz_prim_doubleDecodeExponent(cap, 1.0), -52);
  assert_int_equal((int64_t)lz_prim_doubleDecodeMantissa(cap, -0.75), -(INT64_C(3) << 51));
  /* encode . decode = id */
  double xs[] = {1.5, -3.25e-300, 5e-324, 1.7976931348623157e308, 0.1};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    LzWord m = lz_prim_doubleDecodeMantissa(cap, xs[i]);
    LzWord e = lz_prim_doubleDecodeExponent(cap, xs[i]);
    assert_true(lz_prim_doubleEncodeInt(cap, m, e) == xs[i]);
  }
  assert_true(lz_prim_doubleEncodeInt(cap, 3, (LzWord)-1) == 1.5);
}

static void test_conversions(void **state) {
  (void)state;
  assert_int_equal((int64_t)lz_prim_double2Int(cap, -2.9), -2);
  assert_int_equal((int64_t)lz_prim_double2Int(cap, 2.9), 2);
  assert_int_equal((int64_t)lz_prim_double2Int(cap, NAN), INT64_MIN);
  assert_int_equal((int64_t)lz_prim_double2Int(cap, 1e19), INT64_MIN);
  assert_int_equal((int64_t)lz_prim_double2Int(cap, -9223372036854775808.0), INT64_MIN);
  assert_true(lz_prim_int2Double(cap, (LzWord)-3) == -3.0);
  assert_int_equal(lz_prim_doubleIsNegativeZero(cap, -0.0), 1);
  assert_int_equal(lz_prim_doubleIsNegativeZero(cap, 0.0), 0);
  assert_int_equal(lz_prim_doubleIsNaN(cap, NAN), 1);
  assert_int_equal(lz_prim_doubleIsInfinite(cap, -INFINITY), 1);
  assert_int_equal(lz_prim_doubleNe(cap, NAN, NAN), 1);
  assert_int_equal(lz_prim_doubleEq(cap, NAN, NAN), 0);
}

static void test_int_prims(void **state) {
  (void)state;
  assert_int_equal((int64_t)lz_prim_intAdd(cap, (LzWord)INT64_MAX, 1), INT64_MIN);
  assert_int_equal((int64_t)lz_prim_intQuot(cap, (LzWord)-7, 2), -3);
  assert_int_equal((int64_t)lz_prim_intRem(cap, (LzWord)-7, 2), -1);
  assert_int_equal((int64_t)lz_prim_intQuot(cap, (LzWord)INT64_MIN, (LzWord)-1), INT64_MIN);
  assert_int_equal((int64_t)lz_prim_intShra(cap, (LzWord)-8, 1), -4);
  assert_int_equal(lz_prim_intShrl(cap, (LzWord)-1, 60), 15);
  assert_int_equal(lz_prim_intClz(cap, 0), 64);
  assert_int_equal(lz_prim_intCtz(cap, 8), 3);
  assert_int_equal(lz_prim_intPopCount(cap, (LzWord)-1), 64);
}

int main(void) {
  cap = lz_rts_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_show_basic), cmocka_unit_test(test_show_table),
      cmocka_unit_test(test_decode),     cmocka_unit_test(test_conversions),
      cmocka_unit_test(test_int_prims),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

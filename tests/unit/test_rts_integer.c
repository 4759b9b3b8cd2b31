/* test_rts_integer.c — the runtime's Integer primops against GHC.
 *
 * rts_integer_table.txt (made by rts_integer_gen.hs with GHC) lists, for pairs of small,
 * boundary (±2^63, 2^64) and big values, the results of every arithmetic, division
 * (quot/rem/div/mod with all sign combinations), gcd, comparison, bit, shift and
 * conversion primop; each must match. Separate cases check the canonical small form, the
 * Int/Double conversions and the text conversions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rts_priv.h"

static LzCap *cap;

static LzWord big(const char *dec) { return lz_prim_integerFromDecAddr(cap, (LzWord)dec); }

static const char *show(LzWord x) { return (const char *)lz_prim_integerShow(cap, x); }

static bool is_small(LzWord x) { return LZ_INFO(x) == &lz_integer_small_info; }

static char *hex_double(double d, char *buf) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  sprintf(buf, "%016llx", (unsigned long long)b);
  return buf;
}

typedef LzWord (*Bin)(LzCap *, LzWord, LzWord);

static const struct {
  const char *name;
  Bin fn;
} binops[] = {
    {"add", lz_prim_integerAdd},   {"sub", lz_prim_integerSub}, {"mul", lz_prim_integerMul},
    {"quot", lz_prim_integerQuot}, {"rem", lz_prim_integerRem}, {"div", lz_prim_integerDiv},
    {"mod", lz_prim_integerMod},   {"gcd", lz_prim_integerGcd}, {"and", lz_prim_integerAnd},
    {"or", lz_prim_integerOr},     {"xor", lz_prim_integerXor},
};

/* The result of one table line as text, or NULL for an unknown op. */
static const char *run(const char *op, const char *a, const char *b, char *buf) {
  LzWord x = big(a);
  for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
    if (!strcmp(op, binops[i].name)) return show(binops[i].fn(cap, x, big(b)));
  long n = strtol(b, NULL, 10);
  if (!strcmp(op, "compare")) {
    sprintf(buf, "%ld", (long)(intptr_t)lz_prim_integerCompare(cap, x, big(b)));
    return buf;
  }
  if (!strcmp(op, "shl")) return show(lz_prim_integerShiftL(cap, x, (LzWord)n));
  if (!strcmp(op, "shr")) return show(lz_prim_integerShiftR(cap, x, (LzWord)n));
  if (!strcmp(op, "negate")) return show(lz_prim_integerNegate(cap, x));
  if (!strcmp(op, "abs")) return show(lz_prim_integerAbs(cap, x));
  if (!strcmp(op, "toInt")) {
    sprintf(buf, "%lld", (long long)(int64_t)lz_prim_integerToInt(cap, x));
    return buf;
  }
  if (!strcmp(op, "log2")) {
    sprintf(buf, "%ld", (long)lz_prim_integerLog2(cap, x));
    return buf;
  }
  if (!strcmp(op, "toDouble")) return hex_double(lz_prim_integerToDouble(cap, x), buf);
  if (!strcmp(op, "encode")) return hex_double(lz_prim_integerEncodeDouble(cap, x, (LzWord)n), buf);
  return NULL;
}

static void test_table(void **state) {
  (void)state;
  FILE *f = fopen(LZ_TESTS_DIR "/unit/rts_integer_table.txt", "r");
  assert_non_null(f);
  static char line[8192], op[32], a[2048], b[2048], want[4096], buf[64];
  int n = 0, bad = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "%31s %2047s %2047s %4095s", op, a, b, want) != 4) continue;
    const char *got = run(op, a, b, buf);
    assert_non_null(got);
    if (strcmp(got, want) != 0 && bad++ < 10)
      fprintf(stderr, "%s %s %s: got %s, GHC %s\n", op, a, b, got, want);
    n++;
  }
  fclose(f);
  assert_true(n > 5000);
  assert_int_equal(bad, 0);
}

static void test_canonical(void **state) {
  (void)state;
  LzWord max = lz_prim_integerFromInt(cap, (LzWord)INT64_MAX);
  LzWord one = lz_prim_integerFromInt(cap, 1);
  assert_int_equal(LZ_TAG(max), 1);
  assert_true(is_small(max));
  LzWord over = lz_prim_integerAdd(cap, max, one);
  assert_false(is_small(over));
  assert_string_equal(show(over), "9223372036854775808");
  LzWord back = lz_prim_integerSub(cap, over, one); /* normalised to small again */
  assert_true(is_small(back));
  assert_int_equal(lz_prim_integerEq(cap, back, max), 1);
  assert_true(is_small(big("-9223372036854775808")));
  assert_false(is_small(big("-9223372036854775809")));
  assert_true(is_small(lz_prim_integerNegate(cap, big("-9223372036854775807"))));
  assert_false(is_small(lz_prim_integerNegate(cap, big("-9223372036854775808"))));
  /* quot of minBound by -1 leaves the small range */
  assert_string_equal(show(lz_prim_integerQuot(cap, big("-9223372036854775808"), big("-1"))),
                      "9223372036854775808");
  assert_string_equal(
      show(lz_prim_integerGcd(cap, big("-9223372036854775808"), big("-9223372036854775808"))),
      "9223372036854775808");
}

static void test_conversions(void **state) {
  (void)state;
  assert_int_equal((int64_t)lz_prim_integerToInt(cap, big("18446744073709551617")), 1);
  assert_int_equal((int64_t)lz_prim_integerToInt(cap, big("-18446744073709551617")), -1);
  assert_true(lz_prim_integerToDouble(cap, big("1267650600228229401496703205376")) == 0x1p100);
  assert_string_equal(show(big("-0")), "0");
  assert_string_equal(show(big("000123")), "123");
  /* a static Integer as the code generator may emit it */
  static LzWord stat[2] = {(LzWord)&lz_integer_small_info, 42};
  LzWord s = (LzWord)stat | 1;
  assert_string_equal(show(lz_prim_integerMul(cap, s, s)), "1764");
  /* an Integer reached through an indirection */
  static LzWord ind[2] = {(LzWord)&lz_ind_info, 0};
  ind[1] = s;
  assert_string_equal(show(lz_prim_integerAdd(cap, (LzWord)ind, s)), "84");
}

static void test_many_small(void **state) {
  (void)state;
  /* sum of 1..100000 with the fast path, then a factorial that goes big */
  LzWord acc = lz_prim_integerFromInt(cap, 0);
  for (int i = 1; i <= 100000; i++)
    acc = lz_prim_integerAdd(cap, acc, lz_prim_integerFromInt(cap, (LzWord)i));
  assert_string_equal(show(acc), "5000050000");
  LzWord f = lz_prim_integerFromInt(cap, 1);
  for (int i = 1; i <= 30; i++)
    f = lz_prim_integerMul(cap, f, lz_prim_integerFromInt(cap, (LzWord)i));
  assert_string_equal(show(f), "265252859812191058636308480000000");
  assert_int_equal(lz_prim_integerLog2(cap, f), 107);
}

int main(void) {
  cap = lz_rts_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_canonical),
      cmocka_unit_test(test_conversions),
      cmocka_unit_test(test_many_small),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

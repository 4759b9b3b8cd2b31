/* integer.c — Integer: arbitrary precision with a small-integer fast path.
 *
 * An Integer is a lifted heap object in one of two canonical forms: small
 * {&lz_integer_small_info, int64} whenever the value fits in 64 bits, big
 * {&lz_integer_big_info, mpz_t} otherwise (its limbs in GC'd atomic memory, see heap.c).
 * Operations on two small values use overflow-checked machine arithmetic and fall back
 * to GMP only when the result does not fit; GMP results are normalised back to the
 * small form. A small operand is seen by GMP through mpz_roinit_n over a stack limb, so
 * mixed operations allocate nothing but their result. Division semantics: quot/rem
 * truncate, div/mod floor, as Haskell's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rts_priv.h"

static inline bool is_small(LzWord p) { return LZ_INFO(p) == &lz_integer_small_info; }

static inline int64_t small_val(LzWord p) { return (int64_t)LZ_UNTAG(p)[1]; }

static inline mpz_srcptr big_val(LzWord p) { return (mpz_srcptr)(void *)&LZ_UNTAG(p)[1]; }

static LzWord mk_small(LzCap *cap, int64_t v) {
  LzWord *o = lz_alloc_words(cap, 2);
  o[0] = (LzWord)&lz_integer_small_info;
  o[1] = (LzWord)v;
  return (LzWord)o | 1;
}

/* Takes ownership of z (its limbs end up in the object, or z is dropped). */
static LzWord mk_mpz(LzCap *cap, mpz_t z) {
  if (mpz_fits_slong_p(z)) return mk_small(cap, (int64_t)mpz_get_si(z));
  LzWord *o = lz_alloc_words(cap, 1 + sizeof(mpz_t) / (sizeof(LzWord)));
  o[0] = (LzWord)&lz_integer_big_info;
  memcpy(&o[1], z, sizeof(mpz_t));
  return (LzWord)o | 1;
}

/* A read-only mpz view of any Integer; `limb` is storage for a small one. */
typedef struct {
  mpz_t z;
  mp_limb_t limb;
} View;

static mpz_srcptr view(LzWord p, View *v) {
  p = lz_whnf(p);
  if (!is_small(p)) return big_val(p);
  int64_t x = small_val(p);
  v->limb = x < 0 ? (mp_limb_t)0 - (mp_limb_t)x : (mp_limb_t)x;
  return mpz_roinit_n(v->z, &v->limb, x < 0 ? -1 : x > 0 ? 1 : 0);
}

/* Both small? Then *a and *b are their values. */
static inline bool both_small(LzWord *x, LzWord *y, int64_t *a, int64_t *b) {
  *x = lz_whnf(*x);
  *y = lz_whnf(*y);
  if (!is_small(*x) || !is_small(*y)) return false;
  *a = small_val(*x);
  *b = small_val(*y);
  return true;
}

typedef void (*BinOp)(mpz_ptr, mpz_srcptr, mpz_srcptr);

static LzWord big_binop(LzCap *cap, LzWord x, LzWord y, BinOp op) {
  View vx, vy;
  mpz_t r;
  mpz_init(r);
  op(r, view(x, &vx), view(y, &vy));
  return mk_mpz(cap, r);
}

/* ---- conversions ------------------------------------------------------------------ */

LzWord lz_prim_integerFromInt(LzCap *cap, LzWord i) { return mk_small(cap, (int64_t)i); }

LzWord lz_prim_integerToInt(LzCap *cap, LzWord x) {
  (void)cap;
  x = lz_whnf(x);
  if (is_small(x)) return (LzWord)small_val(x);
  mpz_srcptr z = big_val(x);
  LzWord low = (LzWord)mpz_getlimbn(z, 0);
  return mpz_sgn(z) < 0 ? (LzWord)0 - low : low;
}

LzWord lz_prim_integerFromDecAddr(LzCap *cap, LzWord addr) {
  mpz_t z;
  if (mpz_init_set_str(z, (const char *)addr, 10) != 0)
    lz_internal_error("integerFromDecAddr#: bad literal \"%s\"", (const char *)addr);
  return mk_mpz(cap, z);
}

LzWord lz_prim_integerShow(LzCap *cap, LzWord x) {
  (void)cap;
  x = lz_whnf(x);
  if (is_small(x)) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)small_val(x));
    return (LzWord)lz_gc_strdup(buf);
  }
  mpz_srcptr z = big_val(x);
  char *s = GC_MALLOC_ATOMIC(mpz_sizeinbase(z, 10) + 2);
  if (!s) lz_heap_exhausted();
  mpz_get_str(s, 10, z);
  return (LzWord)s;
}

double lz_prim_integerToDouble(LzCap *cap, LzWord x) {
  (void)cap;
  x = lz_whnf(x);
  if (is_small(x)) return (double)small_val(x);
  return mpz_get_d(big_val(x)); /* truncates, as GHC 9.0's integerToDouble# */
}

double lz_prim_integerEncodeDouble(LzCap *cap, LzWord m, LzWord e) {
  (void)cap;
  m = lz_whnf(m);
  if (is_small(m)) /* ghc-bignum: (IS i) 0# -> int2Double# i, else intEncodeDouble# */
    return e == 0 ? (double)small_val(m) : lz_int_encode_double(small_val(m), (int64_t)e);
  long ex;
  double d = mpz_get_d_2exp(&ex, big_val(m)); /* truncated mantissa in [0.5, 1) */
  long total = ex + (long)(intptr_t)e;
  if (total > 100000) total = 100000;
  if (total < -100000) total = -100000;
  return ldexp(d, (int)total);
}

/* ---- arithmetic ---------------------------------------------------------------------- */

LzWord lz_prim_integerAdd(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b, r;
  if (both_small(&x, &y, &a, &b) && !__builtin_add_overflow(a, b, &r)) return mk_small(cap, r);
  return big_binop(cap, x, y, mpz_add);
}

LzWord lz_prim_integerSub(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b, r;
  if (both_small(&x, &y, &a, &b) && !__builtin_sub_overflow(a, b, &r)) return mk_small(cap, r);
  return big_binop(cap, x, y, mpz_sub);
}

LzWord lz_prim_integerMul(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b, r;
  if (both_small(&x, &y, &a, &b) && !__builtin_mul_overflow(a, b, &r)) return mk_small(cap, r);
  return big_binop(cap, x, y, mpz_mul);
}

LzWord lz_prim_integerNegate(LzCap *cap, LzWord x) {
  x = lz_whnf(x);
  if (is_small(x) && small_val(x) != INT64_MIN) return mk_small(cap, -small_val(x));
  View v;
  mpz_t r;
  mpz_init(r);
  mpz_neg(r, view(x, &v));
  return mk_mpz(cap, r);
}

LzWord lz_prim_integerAbs(LzCap *cap, LzWord x) {
  x = lz_whnf(x);
  if (is_small(x) && small_val(x) >= 0) return x;
  if (is_small(x) && small_val(x) != INT64_MIN) return mk_small(cap, -small_val(x));
  View v;
  mpz_t r;
  mpz_init(r);
  mpz_abs(r, view(x, &v));
  return mk_mpz(cap, r);
}

/* The divisor is nonzero (checked in Lz); a zero divisor still dies cleanly here. */
static void check_divisor(LzWord y) {
  View v;
  if (mpz_sgn(view(y, &v)) == 0) lz_die(1, "divide by zero");
}

LzWord lz_prim_integerQuot(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  check_divisor(y);
  if (both_small(&x, &y, &a, &b) && !(a == INT64_MIN && b == -1)) return mk_small(cap, a / b);
  return big_binop(cap, x, y, mpz_tdiv_q);
}

LzWord lz_prim_integerRem(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  check_divisor(y);
  if (both_small(&x, &y, &a, &b)) return mk_small(cap, b == -1 ? 0 : a % b);
  return big_binop(cap, x, y, mpz_tdiv_r);
}

LzWord lz_prim_integerDiv(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  check_divisor(y);
  if (both_small(&x, &y, &a, &b) && !(a == INT64_MIN && b == -1)) {
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) q--;
    return mk_small(cap, q);
  }
  return big_binop(cap, x, y, mpz_fdiv_q);
}

LzWord lz_prim_integerMod(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  check_divisor(y);
  if (both_small(&x, &y, &a, &b)) {
    if (b == -1) return mk_small(cap, 0);
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return mk_small(cap, r);
  }
  return big_binop(cap, x, y, mpz_fdiv_r);
}

LzWord lz_prim_integerGcd(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  if (both_small(&x, &y, &a, &b)) {
    uint64_t u = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t v = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    while (v) {
      uint64_t t = u % v;
      u = v;
      v = t;
    }
    if (u <= (uint64_t)INT64_MAX) return mk_small(cap, (int64_t)u);
  }
  return big_binop(cap, x, y, mpz_gcd);
}

/* ---- comparison ------------------------------------------------------------------------ */

LzWord lz_prim_integerCompare(LzCap *cap, LzWord x, LzWord y) {
  (void)cap;
  int64_t a, b;
  if (both_small(&x, &y, &a, &b)) return (LzWord)(intptr_t)((a > b) - (a < b));
  View vx, vy;
  int c = mpz_cmp(view(x, &vx), view(y, &vy));
  return (LzWord)(intptr_t)((c > 0) - (c < 0));
}

LzWord lz_prim_integerEq(LzCap *cap, LzWord x, LzWord y) {
  return lz_prim_integerCompare(cap, x, y) == 0;
}

/* ---- bits ------------------------------------------------------------------------------ */

LzWord lz_prim_integerAnd(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  if (both_small(&x, &y, &a, &b)) return mk_small(cap, a & b);
  return big_binop(cap, x, y, mpz_and);
}

LzWord lz_prim_integerOr(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  if (both_small(&x, &y, &a, &b)) return mk_small(cap, a | b);
  return big_binop(cap, x, y, mpz_ior);
}

LzWord lz_prim_integerXor(LzCap *cap, LzWord x, LzWord y) {
  int64_t a, b;
  if (both_small(&x, &y, &a, &b)) return mk_small(cap, a ^ b);
  return big_binop(cap, x, y, mpz_xor);
}

LzWord lz_prim_integerShiftL(LzCap *cap, LzWord x, LzWord n) {
  x = lz_whnf(x);
  LzWord k = n;
  if (is_small(x) && k < 63) {
    int64_t a = small_val(x);
    int64_t lim = INT64_MAX >> k; /* |a| <= lim  ⇒  a << k fits */
    if (a <= lim && a >= -lim) return mk_small(cap, (int64_t)((uint64_t)a << k));
  }
  if (is_small(x) && small_val(x) == 0) return x;
  View v;
  mpz_t r;
  mpz_init(r);
  mpz_mul_2exp(r, view(x, &v), (mp_bitcnt_t)k);
  return mk_mpz(cap, r);
}

LzWord lz_prim_integerShiftR(LzCap *cap, LzWord x, LzWord n) {
  x = lz_whnf(x);
  LzWord k = n;
  if (is_small(x)) {
    int64_t a = small_val(x);
    if (k >= 63) return mk_small(cap, a < 0 ? -1 : 0);
    return mk_small(cap, a >> k); /* arithmetic shift: floor division by 2^k */
  }
  View v;
  mpz_t r;
  mpz_init(r);
  mpz_fdiv_q_2exp(r, view(x, &v), (mp_bitcnt_t)k);
  return mk_mpz(cap, r);
}

LzWord lz_prim_integerLog2(LzCap *cap, LzWord x) {
  (void)cap;
  x = lz_whnf(x);
  if (is_small(x)) {
    int64_t a = small_val(x);
    return a <= 0 ? 0 : (LzWord)(63 - __builtin_clzll((unsigned long long)a));
  }
  mpz_srcptr z = big_val(x);
  if (mpz_sgn(z) <= 0) return 0;
  return (LzWord)(mpz_sizeinbase(z, 2) - 1);
}

/* prim_num.c — C versions of the Int#, Char# and Double# primops.
 *
 * The code generator normally emits these inline (see the table in
 * docs/notes/backend.md); the C versions exist so that any primop can be a call, and
 * they define the exact semantics: Int# wraps (arithmetic done on uint64_t, so no C
 * undefined behaviour), shift counts are taken modulo 64, quot/rem guard the cases the
 * Lz precondition excludes, double2Int# gives what x86-64's cvttsd2si gives, and the
 * decode/encode primops follow GHC's decodeFloat/encodeFloat as primops.def specifies.
 */
#include <math.h>
#include <string.h>

#include "rts_priv.h"

typedef int64_t I;
#define U(x) ((uint64_t)(x))
#define W(x) ((LzWord)(x))

/* ---- Int# ----------------------------------------------------------------------------- */

LzWord lz_prim_intAdd(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return W(U(a) + U(b));
}
LzWord lz_prim_intSub(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return W(U(a) - U(b));
}
LzWord lz_prim_intMul(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return W(U(a) * U(b));
}
LzWord lz_prim_intNegate(LzCap *c, LzWord a) {
  (void)c;
  return W(0 - U(a));
}

LzWord lz_prim_intQuot(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  if (b == 0) lz_die(1, "divide by zero");
  if ((I)b == -1) return W(0 - U(a));
  return W((I)a / (I)b);
}

LzWord lz_prim_intRem(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  if (b == 0) lz_die(1, "divide by zero");
  if ((I)b == -1) return 0;
  return W((I)a % (I)b);
}

LzWord lz_prim_intEq(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return (I)a == (I)b;
}
LzWord lz_prim_intNe(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return (I)a != (I)b;
}
LzWord lz_prim_intLt(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return (I)a < (I)b;
}
LzWord lz_prim_intLe(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return (I)a <= (I)b;
}
LzWord lz_prim_intGt(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return (I)a > (I)b;
}
LzWord lz_prim_intGe(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return (I)a >= (I)b;
}
LzWord lz_prim_intAnd(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return a & b;
}
LzWord lz_prim_intOr(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return a | b;
}
LzWord lz_prim_intXor(LzCap *c, LzWord a, LzWord b) {
  (void)c;
  return a ^ b;
}
LzWord lz_prim_intNot(LzCap *c, LzWord a) {
  (void)c;
  return ~a;
}
LzWord lz_prim_intShl(LzCap *c, LzWord a, LzWord n) {
  (void)c;
  return W(U(a) << (n & 63));
}
LzWord lz_prim_intShrl(LzCap *c, LzWord a, LzWord n) {
  (void)c;
  return W(U(a) >> (n & 63));
}

LzWord lz_prim_intShra(LzCap *c, LzWord a, LzWord n) {
  (void)c;
  return W((I)a >> (n & 63)); /* arithmetic on every compiler we support */
}

LzWord lz_prim_intPopCount(LzCap *c, LzWord a) {
  (void)c;
  return W(__builtin_popcountll(U(a)));
}
LzWord lz_prim_intClz(LzCap *c, LzWord a) {
  (void)c;
  return a ? W(__builtin_clzll(U(a))) : 64;
}
LzWord lz_prim_intCtz(LzCap *c, LzWord a) {
  (void)c;
  return a ? W(__builtin_ctzll(U(a))) : 64;
}
double lz_prim_int2Double(LzCap *c, LzWord a) {
  (void)c;
  return (double)(I)a;
}

/* ---- Char# ---------------------------------------------------------------------------- */

LzWord lz_prim_chr(LzCap *c, LzWord a) {
  (void)c;
  return a;
}
LzWord lz_prim_ord(LzCap *c, LzWord a) {
  (void)c;
  return a;
}

/* ---- Double# -------------------------------------------------------------------------- */

double lz_prim_doubleAdd(LzCap *c, double a, double b) {
  (void)c;
  return a + b;
}
double lz_prim_doubleSub(LzCap *c, double a, double b) {
  (void)c;
  return a - b;
}
double lz_prim_doubleMul(LzCap *c, double a, double b) {
  (void)c;
  return a * b;
}
double lz_prim_doubleDiv(LzCap *c, double a, double b) {
  (void)c;
  return a / b;
}
double lz_prim_doubleNegate(LzCap *c, double a) {
  (void)c;
  return -a;
}
double lz_prim_doubleFabs(LzCap *c, double a) {
  (void)c;
  return fabs(a);
}
LzWord lz_prim_doubleEq(LzCap *c, double a, double b) {
  (void)c;
  return a == b;
}
LzWord lz_prim_doubleNe(LzCap *c, double a, double b) {
  (void)c;
  return a != b;
}
LzWord lz_prim_doubleLt(LzCap *c, double a, double b) {
  (void)c;
  return a < b;
}
LzWord lz_prim_doubleLe(LzCap *c, double a, double b) {
  (void)c;
  return a <= b;
}
LzWord lz_prim_doubleGt(LzCap *c, double a, double b) {
  (void)c;
  return a > b;
}
LzWord lz_prim_doubleGe(LzCap *c, double a, double b) {
  (void)c;
  return a >= b;
}

LzWord lz_prim_double2Int(LzCap *c, double a) {
  (void)c;
  if (!(a >= -9223372036854775808.0 && a < 9223372036854775808.0))
    return W(INT64_MIN); /* cvttsd2si's "integer indefinite" for NaN and out of range */
  return W((I)a);
}

#define LIBM1(name, fn)                                                                            \
  double lz_prim_##name(LzCap *c, double a) {                                                      \
    (void)c;                                                                                       \
    return fn(a);                                                                                  \
  }
LIBM1(doubleExp, exp)
LIBM1(doubleLog, log)
LIBM1(doubleSqrt, sqrt)
LIBM1(doubleSin, sin)
LIBM1(doubleCos, cos)
LIBM1(doubleTan, tan)
LIBM1(doubleAsin, asin)
LIBM1(doubleAcos, acos)
LIBM1(doubleAtan, atan)
LIBM1(doubleSinh, sinh)
LIBM1(doubleCosh, cosh)
LIBM1(doubleTanh, tanh)
LIBM1(doubleAsinh, asinh)
LIBM1(doubleAcosh, acosh)
LIBM1(doubleAtanh, atanh)
double lz_prim_doublePow(LzCap *c, double a, double b) {
  (void)c;
  return pow(a, b);
}

LzWord lz_prim_doubleIsNaN(LzCap *c, double a) {
  (void)c;
  return isnan(a) != 0;
}
LzWord lz_prim_doubleIsInfinite(LzCap *c, double a) {
  (void)c;
  return isinf(a) != 0;
}
LzWord lz_prim_doubleIsNegativeZero(LzCap *c, double a) {
  (void)c;
  return a == 0 && signbit(a);
}

/* decodeFloat: see primops.def. Mantissa and exponent computed together. */
static void decode(double x, int64_t *m, int64_t *e) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bool neg = bits >> 63;
  int biased = (int)((bits >> 52) & 0x7FF);
  uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
  uint64_t mant;
  int ex;
  if (biased == 0 && frac == 0) {
    *m = 0, *e = 0;
    return;
  }
  if (biased == 0) { /* subnormal: normalise to 53 bits */
    mant = frac;
    ex = -1074;
    while (!(mant & (UINT64_C(1) << 52))) {
      mant <<= 1;
      ex--;
    }
  } else { /* normal, and Infinity/NaN from the raw bits */
    mant = frac | (UINT64_C(1) << 52);
    ex = biased - 1075;
  }
  *m = neg ? -(int64_t)mant : (int64_t)mant;
  *e = ex;
}

LzWord lz_prim_doubleDecodeMantissa(LzCap *c, double a) {
  (void)c;
  int64_t m, e;
  decode(a, &m, &e);
  return W(m);
}

LzWord lz_prim_doubleDecodeExponent(LzCap *c, double a) {
  (void)c;
  int64_t m, e;
  decode(a, &m, &e);
  return W(e);
}

/* GHC's __int_encodeDouble, quirk included: the magnitude is taken with a wrapping
 * abs, so encodeFloat (-2^63) e comes out positive, as in GHC 9.0. */
double lz_int_encode_double(int64_t j, int64_t e) {
  if (e > 100000) e = 100000;
  if (e < -100000) e = -100000;
  double r = (double)(I)(j < 0 ? 0 - U(j) : U(j));
  if (r != 0.0) r = ldexp(r, (int)e);
  return j < 0 ? -r : r;
}

double lz_prim_doubleEncodeInt(LzCap *c, LzWord m, LzWord e) {
  (void)c;
  return lz_int_encode_double((I)m, (I)e);
}

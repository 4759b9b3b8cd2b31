/* showdouble.c — showDouble#: GHC's `show` text for a Double, byte for byte.
 *
 * Rather than a generic shortest-round-trip printer (Ryu, "%.17g then shorten"), which
 * differs from GHC on the boundary cases, this is a transcription of GHC's own
 * algorithm: GHC.Float.floatToDigits (Burger & Dybvig's free-format digit generation,
 * with GHC's exclusive interval bounds, its tie rule and its k estimate 8651/28738) run on
 * exact GMP integers, followed by formatRealFloat FFGeneric Nothing: the digits printed
 * positionally when the decimal exponent e satisfies 0 <= e <= 7 ("0.1", "1234567.0"),
 * otherwise in GHC's exponent form ("1.0e-2", "1.2345678e7"); "NaN", "Infinity",
 * "-Infinity", "-0.0". tests/unit/test_rts_double.c checks it against a table made by
 * GHC.
 */
#include <math.h>
#include <string.h>

#include "rts_priv.h"

/* Digits (values 0..9) of x > 0 (finite) and the exponent k: x = 0.d1d2... * 10^k. */
static int float_to_digits(double x, unsigned char *out, int *kout) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int biased = (int)((bits >> 52) & 0x7FF);
  uint64_t frac = bits & ((UINT64_C(1) << 52) - 1);
  const int p = 53, min_exp = -1074;
  uint64_t f = biased ? frac | (UINT64_C(1) << 52) : frac;
  int e = (biased ? biased : 1) - 1075;
  /* decodeFloat's exponent e0 (mantissa normalised to 53 bits), for the estimate */
  int e0 = e;
  for (uint64_t g = f; !(g & (UINT64_C(1) << 52)); g <<= 1)
    e0--;

  mpz_t r, s, mup, mdn, t;
  mpz_inits(r, s, mup, mdn, t, NULL);
  bool f_is_min = f == (UINT64_C(1) << (p - 1));
  mpz_set_ui(r, f);
  if (e >= 0) {
    mpz_set_ui(mdn, 1);
    mpz_mul_2exp(mdn, mdn, (mp_bitcnt_t)e); /* be = 2^e */
    if (f_is_min) {
      mpz_mul_2exp(r, r, (mp_bitcnt_t)e + 2); /* f*be*b*2 */
      mpz_set_ui(s, 4);                       /* 2*b */
      mpz_mul_2exp(mup, mdn, 1);              /* be*b */
    } else {
      mpz_mul_2exp(r, r, (mp_bitcnt_t)e + 1); /* f*be*2 */
      mpz_set_ui(s, 2);
      mpz_set(mup, mdn);
    }
  } else if (e > min_exp && f_is_min) {
    mpz_mul_2exp(r, r, 2); /* f*b*2 */
    mpz_set_ui(s, 1);
    mpz_mul_2exp(s, s, (mp_bitcnt_t)(-e + 2)); /* b^(-e+1) * 2 */
    mpz_set_ui(mup, 2);
    mpz_set_ui(mdn, 1);
  } else {
    mpz_mul_2exp(r, r, 1); /* f*2 */
    mpz_set_ui(s, 1);
    mpz_mul_2exp(s, s, (mp_bitcnt_t)(-e + 1)); /* b^(-e) * 2 */
    mpz_set_ui(mup, 1);
    mpz_set_ui(mdn, 1);
  }
  int lx = p - 1 + e0;
  int k1 = (lx * 8651) / 28738; /* C division truncates, like quot */
  int k = lx >= 0 ? k1 + 1 : k1;
  for (;;) { /* fixup */
    mpz_add(t, r, mup);
    mpz_t pw;
    mpz_init(pw);
    mpz_ui_pow_ui(pw, 10, (unsigned long)(k >= 0 ? k : -k));
    bool ok;
    if (k >= 0) {
      mpz_mul(pw, pw, s);
      ok = mpz_cmp(t, pw) <= 0;
    } else {
      mpz_mul(pw, pw, t);
      ok = mpz_cmp(pw, s) <= 0;
    }
    mpz_clear(pw);
    if (ok) break;
    k++;
  }
  mpz_t bk;
  mpz_init(bk);
  mpz_ui_pow_ui(bk, 10, (unsigned long)(k >= 0 ? k : -k));
  if (k >= 0) {
    mpz_mul(s, s, bk);
  } else {
    mpz_mul(r, r, bk);
    mpz_mul(mup, mup, bk);
    mpz_mul(mdn, mdn, bk);
  }
  mpz_clear(bk);
  int n = 0;
  mpz_t dn;
  mpz_init(dn);
  for (;;) {
    mpz_mul_ui(r, r, 10);
    mpz_tdiv_qr(dn, r, r, s); /* (dn, rn') = (rn*10) quotRem sN */
    mpz_mul_ui(mup, mup, 10);
    mpz_mul_ui(mdn, mdn, 10);
    unsigned d = (unsigned)mpz_get_ui(dn);
    bool lo = mpz_cmp(r, mdn) < 0;
    mpz_add(t, r, mup);
    bool hi = mpz_cmp(t, s) > 0;
    if (lo && !hi) {
      out[n++] = (unsigned char)d;
      break;
    }
    if (!lo && hi) {
      out[n++] = (unsigned char)(d + 1);
      break;
    }
    if (lo && hi) {
      mpz_mul_2exp(t, r, 1);
      out[n++] = (unsigned char)(mpz_cmp(t, s) < 0 ? d : d + 1);
      break;
    }
    out[n++] = (unsigned char)d;
    if (n >= 40) break; /* cannot happen for binary64 (at most 17 digits) */
  }
  mpz_clears(r, s, mup, mdn, t, dn, NULL);
  *kout = k;
  return n;
}

size_t lz_show_double(double x, char *buf) {
  char *o = buf;
  if (isnan(x)) return (size_t)sprintf(buf, "NaN");
  if (isinf(x)) return (size_t)sprintf(buf, x < 0 ? "-Infinity" : "Infinity");
  if (x < 0 || (x == 0 && signbit(x))) {
    *o++ = '-';
    x = -x;
  }
  unsigned char ds[48];
  int n, e;
  if (x == 0) {
    ds[0] = 0;
    n = 1;
    e = 0;
  } else {
    n = float_to_digits(x, ds, &e);
  }
  if (e < 0 || e > 7) { /* FFExponent */
    *o++ = (char)('0' + ds[0]);
    *o++ = '.';
    if (n == 1) {
      *o++ = '0';
    } else {
      for (int i = 1; i < n; i++)
        *o++ = (char)('0' + ds[i]);
    }
    o += sprintf(o, "e%d", e - 1);
  } else if (e == 0) { /* FFFixed, e <= 0: "0." ++ digits */
    *o++ = '0';
    *o++ = '.';
    for (int i = 0; i < n; i++)
      *o++ = (char)('0' + ds[i]);
  } else { /* e digits before the point (padded with 0s), the rest (or "0") after */
    for (int i = 0; i < e; i++)
      *o++ = (char)('0' + (i < n ? ds[i] : 0));
    *o++ = '.';
    if (n <= e) {
      *o++ = '0';
    } else {
      for (int i = e; i < n; i++)
        *o++ = (char)('0' + ds[i]);
    }
  }
  *o = 0;
  return (size_t)(o - buf);
}

LzWord lz_prim_showDouble(LzCap *cap, double x) {
  (void)cap;
  char buf[64];
  lz_show_double(x, buf);
  return (LzWord)lz_gc_strdup(buf);
}

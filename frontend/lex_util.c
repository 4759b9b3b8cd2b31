/* lex_util.c — the lexer's helpers that need no lexer state: UTF-8 decoding and
 * encoding, Haskell's `show` of a character (for messages), and the conversion of
 * numeric literals to the forms of FeLit (decimal digits of any size, mantissa and
 * exponent). Split from lexer.re to keep that file about the scanning itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token.h"

/* ---- characters -------------------------------------------------------------------- */

/* Decode one UTF-8 character at p (p < lim); returns its length, or 0 if invalid. */
int fe_lex_utf8_decode(const unsigned char *p, const unsigned char *lim, uint32_t *cp) {
  unsigned c = p[0];
  int n;
  uint32_t v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    n = 2, v = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3, v = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4, v = c & 0x07;
  } else {
    return 0;
  }
  if (lim - p < n) return 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    v = (v << 6) | (p[i] & 0x3F);
  }
  if ((n == 2 && v < 0x80) || (n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10FFFF)
    return 0;
  *cp = v;
  return n;
}

const char *const fe_lex_ascii_names[32] = {"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL",
                                            "BS",  "HT",  "LF",  "VT",  "FF",  "CR",  "SO",  "SI",
                                            "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB",
                                            "CAN", "EM",  "SUB", "ESC", "FS",  "GS",  "RS",  "US"};

/* A character as Haskell's `show` writes it, e.g. 'q', '\n', '\SOH', '\8203'. */
const char *fe_lex_show_char(uint32_t c) {
  switch (c) {
  case '\n': return "'\\n'";
  case '\t': return "'\\t'";
  case '\r': return "'\\r'";
  case '\\': return "'\\\\'";
  case '\'': return "'\\''";
  case 7: return "'\\a'";
  case 8: return "'\\b'";
  case 12: return "'\\f'";
  case 11: return "'\\v'";
  case 127: return "'\\DEL'";
  }
  if (c < 32) return lz_fmt("'\\%s'", fe_lex_ascii_names[c]);
  if (c < 127) return lz_fmt("'%c'", (char)c);
  return lz_fmt("'\\%u'", (unsigned)c);
}

void fe_lex_encode_utf8(FeCharBuf *out, uint32_t c) {
  if (c < 0x80) {
    LZ_PUSH(*out, (char)c);
  } else if (c < 0x800) {
    LZ_PUSH(*out, (char)(0xC0 | (c >> 6)));
    LZ_PUSH(*out, (char)(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    LZ_PUSH(*out, (char)(0xE0 | (c >> 12)));
    LZ_PUSH(*out, (char)(0x80 | ((c >> 6) & 0x3F)));
    LZ_PUSH(*out, (char)(0x80 | (c & 0x3F)));
  } else {
    LZ_PUSH(*out, (char)(0xF0 | (c >> 18)));
    LZ_PUSH(*out, (char)(0x80 | ((c >> 12) & 0x3F)));
    LZ_PUSH(*out, (char)(0x80 | ((c >> 6) & 0x3F)));
    LZ_PUSH(*out, (char)(0x80 | (c & 0x3F)));
  }
}

/* ---- numbers -------------------------------------------------------------------------- */

/* Decimal digits (no leading zeros, "0" for zero) of the number written in `base`. */
const char *fe_lex_to_decimal(const unsigned char *s, int n, int base) {
  while (n > 1 && *s == '0')
    s++, n--;
  if (base == 10) return lz_strndup((const char *)s, (size_t)n);
  /* little-endian limbs of 10^9, fed a few digits at a time */
  int cap = n + 2;
  uint32_t *limb = lz_alloc(sizeof(uint32_t) * (size_t)cap);
  int nl = 0;
  int i = 0;
  while (i < n) {
    uint64_t mul = 1, add = 0;
    for (int k = 0; k < 6 && i < n; k++, i++) {
      int d = s[i] <= '9' ? s[i] - '0' : (s[i] | 0x20) - 'a' + 10;
      mul *= (uint64_t)base;
      add = add * (uint64_t)base + (uint64_t)d;
    }
    uint64_t carry = add;
    for (int j = 0; j < nl; j++) {
      uint64_t v = (uint64_t)limb[j] * mul + carry;
      limb[j] = (uint32_t)(v % 1000000000u);
      carry = v / 1000000000u;
    }
    while (carry) {
      limb[nl++] = (uint32_t)(carry % 1000000000u);
      carry /= 1000000000u;
    }
  }
  if (nl == 0) return "0";
  char *out = lz_alloc((size_t)nl * 9 + 1);
  int len = sprintf(out, "%u", (unsigned)limb[nl - 1]);
  for (int j = nl - 2; j >= 0; j--)
    len += sprintf(out + len, "%09u", (unsigned)limb[j]);
  return out;
}

void fe_lex_set_int_value(FeLit *lit) {
  const char *d = lit->digits;
  size_t n = strlen(d);
  lit->fits = n < 19 || (n == 19 && strcmp(d, "9223372036854775807") <= 0);
  if (lit->fits) lit->i = strtoll(d, NULL, 10);
}

void fe_lex_make_float(FeLit *lit, const unsigned char *s, const unsigned char *e) {
  FeCharBuf mant = {0};
  const unsigned char *p = s;
  int frac = 0;
  for (; p < e && *p >= '0' && *p <= '9'; p++)
    LZ_PUSH(mant, (char)*p);
  if (p < e && *p == '.')
    for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
      LZ_PUSH(mant, (char)*p);
      frac++;
    }
  long ex = 0;
  if (p < e && (*p == 'e' || *p == 'E')) {
    p++;
    int sign = 1;
    if (*p == '+' || *p == '-') sign = *p++ == '-' ? -1 : 1;
    for (; p < e && *p >= '0' && *p <= '9'; p++)
      if (ex < 100000000) ex = ex * 10 + (*p - '0');
    ex *= sign;
  }
  LZ_PUSH(mant, 0);
  const char *m = mant.data;
  while (m[0] == '0' && m[1])
    m++;
  lit->mantissa = m;
  lit->exp10 = (int)(ex - frac);
  char *txt = lz_strndup((const char *)s, (size_t)(e - s));
  lit->d = strtod(txt, NULL);
}

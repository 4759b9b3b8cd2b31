/* values.c — reading evaluated Lz values from C, and the small non-numeric primops.
 *
 * Primops receive lifted arguments already evaluated, but an evaluated structure may
 * still be reached through indirections (updated thunks), and a string argument is a
 * list whose cells were evaluated by Lz code. lz_whnf follows indirections; lists and
 * characters are read by pointer tag only ([] tag 1, (:) tag 2 with head and tail in
 * words 1 and 2, C# tag 1 with the code point in word 1), so the runtime needs no info
 * table of the list type. Also here: UTF-8 encoding of such strings, MutVar#,
 * dataToTag#, indexCharOffAddr#.
 */
#include <string.h>

#include "rts_priv.h"
#if LZ_REPLAY
#include "replay_dup.h"
#endif

LzWord lz_whnf(LzWord p) {
  for (int guard = 0; LZ_TAG(p) == 0; guard++) {
    if (p == 0 || guard > 1000000) lz_internal_error("bad pointer where a value was expected");
    const LzInfo *info = LZ_INFO(p);
    switch (info->type) {
    case LZ_IND:
#if LZ_REPLAY
      if (info != &lz_ind_info) lz_dup_ind_read(NULL, LZ_UNTAG(p)); /* --dup-report */
#endif
      p = LZ_UNTAG(p)[1];
      break;
    case LZ_CON: return p | LZ_CON_TAG(info->tag);
    case LZ_FUN:
    case LZ_PAP:
    case LZ_PRIM: return p | 1;
    default:
      lz_internal_error("unevaluated %s where a value was expected",
                        info->name ? info->name : "closure");
    }
  }
  return p;
}

LzWord lz_string_cell(LzWord p) {
  p = lz_whnf(p);
  if (LZ_TAG(p) != 1 && LZ_TAG(p) != 2) lz_internal_error("a string is not a list");
  return p;
}

uint32_t lz_char_value(LzWord c) {
  c = lz_whnf(c);
  return (uint32_t)LZ_UNTAG(c)[1];
}

size_t lz_utf8_encode(uint32_t c, unsigned char *o, bool modified) {
  if (c == 0 && modified) {
    o[0] = 0xC0, o[1] = 0x80;
    return 2;
  }
  if (c < 0x80) {
    o[0] = (unsigned char)c;
    return 1;
  }
  if (c < 0x800) {
    o[0] = (unsigned char)(0xC0 | (c >> 6));
    o[1] = (unsigned char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c < 0x10000) {
    o[0] = (unsigned char)(0xE0 | (c >> 12));
    o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
    o[2] = (unsigned char)(0x80 | (c & 0x3F));
    return 3;
  }
  if (c > 0x10FFFF) c = 0xFFFD;
  o[0] = (unsigned char)(0xF0 | (c >> 18));
  o[1] = (unsigned char)(0x80 | ((c >> 12) & 0x3F));
  o[2] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
  o[3] = (unsigned char)(0x80 | (c & 0x3F));
  return 4;
}

char *lz_string_utf8(LzWord list, long n, bool modified, size_t *len) {
  size_t cap = 64, used = 0;
  char *buf = GC_MALLOC_ATOMIC(cap);
  if (!buf) lz_heap_exhausted();
  LzWord rest = list; /* only the cells wanted are looked at: the tail may be a thunk */
  for (long i = 0; n < 0 || i < n; i++) {
    LzWord cell = lz_string_cell(rest);
    if (LZ_TAG(cell) != 2) break;
    LzWord *c = LZ_UNTAG(cell);
    if (used + 5 > cap) {
      cap *= 2;
      char *nb = GC_REALLOC(buf, cap);
      if (!nb) lz_heap_exhausted();
      buf = nb;
    }
    used += lz_utf8_encode(lz_char_value(c[1]), (unsigned char *)buf + used, modified);
    rest = c[2];
  }
  buf[used] = 0;
  if (len) *len = used;
  return buf;
}

/* ---- MutVar# ------------------------------------------------------------------------- */

LzWord lz_prim_newMutVar(LzCap *cap, LzWord v) {
  LzWord *m = lz_alloc_words(cap, 2);
  m[0] = (LzWord)&lz_mutvar_info;
  m[1] = v;
  return (LzWord)m;
}

LzWord lz_prim_readMutVar(LzCap *cap, LzWord m) {
  (void)cap;
  return ((LzWord *)m)[1];
}

LzWord lz_prim_writeMutVar(LzCap *cap, LzWord m, LzWord v) {
  (void)cap;
  ((LzWord *)m)[1] = v;
  return 0;
}

LzWord lz_prim_sameMutVar(LzCap *cap, LzWord a, LzWord b) {
  (void)cap;
  return a == b;
}

/* ---- misc ----------------------------------------------------------------------------- */

LzWord lz_prim_dataToTag(LzCap *cap, LzWord p) {
  (void)cap;
  p = lz_whnf(p);
  LzWord t = LZ_TAG(p);
  return t < 7 ? t - 1 : LZ_INFO(p)->tag;
}

LzWord lz_prim_indexCharOffAddr(LzCap *cap, LzWord a, LzWord i) {
  (void)cap;
  return ((const unsigned char *)a)[(intptr_t)i];
}

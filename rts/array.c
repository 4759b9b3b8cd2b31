/* array.c — boxed arrays (Array#, MutableArray#), spark#, unsafeCoerce#.
 *
 * An array is a GC'd object of 1 + n words: the element count n, then n slots, as
 * core-ir/primops.def specifies (an unlifted I-rep pointer, never entered, so it needs
 * no info pointer). Elements are evaluated boxes stored by Lz; bounds are checked in Lz.
 * Freezing is the identity (Lz never writes a frozen array); thawing copies. spark# is
 * `par a b = b` in the sequential runtime: it does nothing.
 */
#include <string.h>

#include "rts_priv.h"

static LzWord *new_array(LzCap *cap, LzWord n) {
  LzWord *a = lz_alloc_words(cap, (size_t)n + 1);
  a[0] = n;
  return a;
}

LzWord lz_prim_newArray(LzCap *cap, LzWord n, LzWord v) {
  if ((intptr_t)n < 0 || n > ((LzWord)1 << 56))
    lz_die(1, "newArray#: bad size %ld", (long)(intptr_t)n);
  LzWord *a = new_array(cap, n);
  for (LzWord i = 0; i < n; i++)
    a[1 + i] = v;
  return (LzWord)a;
}

LzWord lz_prim_readArray(LzCap *cap, LzWord a, LzWord i) {
  (void)cap;
  return ((LzWord *)a)[1 + i];
}

LzWord lz_prim_writeArray(LzCap *cap, LzWord a, LzWord i, LzWord v) {
  (void)cap;
  ((LzWord *)a)[1 + i] = v;
  return 0;
}

LzWord lz_prim_unsafeFreezeArray(LzCap *cap, LzWord a) {
  (void)cap;
  return a;
}

LzWord lz_prim_thawArray(LzCap *cap, LzWord a, LzWord off, LzWord n) {
  LzWord *m = new_array(cap, n);
  memcpy(&m[1], &((LzWord *)a)[1 + off], (size_t)n * sizeof(LzWord));
  return (LzWord)m;
}

LzWord lz_prim_indexArray(LzCap *cap, LzWord a, LzWord i) {
  (void)cap;
  return ((LzWord *)a)[1 + i];
}

LzWord lz_prim_sizeofArray(LzCap *cap, LzWord a) {
  (void)cap;
  return ((LzWord *)a)[0];
}

LzWord lz_prim_sizeofMutableArray(LzCap *cap, LzWord a) {
  (void)cap;
  return ((LzWord *)a)[0];
}

#if !LZ_THREADED /* the threaded way's spark# is in sched.c */
LzWord lz_prim_spark(LzCap *cap, LzWord box) {
  (void)cap, (void)box;
  return 0;
}
#endif

LzWord lz_prim_unsafeCoerce(LzCap *cap, LzWord x) {
  (void)cap;
  return x;
}

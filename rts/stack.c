/* stack.c — lightweight threads' Lz stacks: creation and growth by copying.
 *
 * A thread's stack is one GC-allocated array of words growing downwards; its bottom
 * word holds the stop frame. Because no frame or register ever points into a stack,
 * growing is a copy of the live part [sp, top) into the top of a bigger array (twice the
 * size, or what is needed), after which the old array is freed. The limit is -K; past it
 * the program ends with GHC's "Stack space overflow" message and exit status 2.
 * cap->sp_lim sits LZ_STACK_RED words above the bottom, so runtime code may push a few
 * words under a check that compiled code has already made.
 */
#include <string.h>

#include "rts_priv.h"
#if LZ_REPLAY
#include "replay.h"
#endif

static _Atomic uint32_t next_thread_id = 1; /* threads are made on every capability */

static LzWord *new_stack(size_t words) {
  LzWord *s = GC_MALLOC_IGNORE_OFF_PAGE(words * sizeof(LzWord));
  if (!s) lz_heap_exhausted();
  return s;
}

/* t's stack is `words` words at `stack`, holding just the stop frame. */
static void give_stack(LzThread *t, LzWord *stack, size_t words) {
  t->stack = stack;
  t->stack_words = words;
  t->sp = stack + words - 1;
  t->sp[0] = (LzWord)&lz_stop_frame_info;
}

LzThread *lz_thread_new(LzCap *cap, size_t words) {
  (void)cap;
  if (words < 2 * LZ_STACK_RED) words = 2 * LZ_STACK_RED;
  LzThread *t = GC_MALLOC(sizeof(LzThread));
  if (!t) lz_heap_exhausted();
  give_stack(t, new_stack(words), words);
  t->id = next_thread_id++;
  return t;
}

void lz_thread_clear_stack(LzThread *t) {
  /* Boehm scans the whole stack object, the dead frames below sp too. A stack that grew
   * is dropped for a fresh one (zeroed by Boehm) rather than cleared word by word. */
  if (t->stack_words > LZ_SPARK_STACK_WORDS) {
    give_stack(t, new_stack(LZ_SPARK_STACK_WORDS), LZ_SPARK_STACK_WORDS);
  } else {
    memset(t->stack, 0, t->stack_words * sizeof(LzWord));
    give_stack(t, t->stack, t->stack_words);
  }
}

void lz_cap_attach(LzCap *cap, LzThread *t) {
  cap->tso = t;
  cap->sp_lim = t->stack + LZ_STACK_RED;
}

LzWord *lz_stack_grow(LzCap *cap, LzWord *sp, LzWord need) {
  LzThread *t = cap->tso;
  LzWord *top = t->stack + t->stack_words;
  size_t used = (size_t)(top - sp);
  size_t want = used + (size_t)need + 2 * LZ_STACK_RED;
  size_t max_words = lz_flags.max_stack_bytes / sizeof(LzWord);
  if (sp - need >= cap->sp_lim) return sp; /* enough room already */
#if LZ_THREADED
    /* Note [Lazy blackholing]: a thread recursing through thunks it has not blackholed (a
     * loop with no heap check, so no stop) blackholes them as its stack grows, as GHC's
     * threadPaused at a stack overflow; then it finds its own blackhole: <<loop>>. The
     * stack doubles, so the walks cost O(1) a word. Not while recording or replaying: the
     * replay diverged more often with it (queens -N2, 7 of 8 against 8 of 8), not understood
     * yet, so such a loop there still grows the stack until -K. */
#if LZ_REPLAY
  if (cap->lazy_bh && lz_replay_mode == LZ_RPL_OFF)
#else
  if (cap->lazy_bh)
#endif
    lz_lazy_blackhole_stack(cap, t, sp);
#endif
  if (want > max_words) lz_stack_overflow(t->stack_words * sizeof(LzWord));
  size_t words = t->stack_words * 2;
  if (words < want) words = want;
  if (words > max_words) words = max_words;
  LzWord *s = new_stack(words);
  LzWord *nsp = s + words - used;
  memcpy(nsp, sp, used * sizeof(LzWord));
  GC_FREE(t->stack);
  t->stack = s;
  t->stack_words = words;
  cap->sp_lim = s + LZ_STACK_RED;
  return nsp;
}

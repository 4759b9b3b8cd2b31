/* sparkpool.c — bounded Chase–Lev spark deques and GHC's spark bookkeeping.
 *
 * The deque is the algorithm of Chase and Lev with the C11 atomics and orderings of
 * Lê, Pop, Cohen and Zappa Nardelli (PPoPP 2013, figure 1), without resizing: a fixed
 * power-of-two ring of slots indexed by two ever-growing counters, `top` (thieves take
 * there with a CAS) and `bottom` (only the owner writes it). The owner's pop decrements
 * bottom *before* reading top, with a sequentially consistent fence between, and a thief
 * reads top before bottom with such a fence too; the two fences are what makes the
 * owner and the thieves agree on who gets the last spark (only then does the owner need
 * a CAS). Everything above the deque — ids, fates, findSpark, pruning — is GHC's
 * bookkeeping from rts/Sparks.c, redone for our closures. Note [Spark pools] in
 * docs/notes/sparks.md.
 */
#include "sparkpool.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rts_priv.h" /* gc.h, configured as every runtime file sees it */

#include <gc/gc_mark.h>

LzSparkHook lz_spark_hook;

#define RELAXED memory_order_relaxed
#define ACQUIRE memory_order_acquire
#define RELEASE memory_order_release
#define SEQ_CST memory_order_seq_cst

/* Lê et al.'s atomic_thread_fence(seq_cst). On x86-64 a locked no-op on the stack is the
 * same full barrier for ordinary memory (a locked instruction orders all earlier loads and
 * stores before all later ones) and is much cheaper than the mfence compilers emit (17 ns
 * against about 3 on this machine's EPYC; Linux's smp_mb() made the same choice).
 * ThreadSanitizer models neither, so its builds keep the C11 fence. */
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !defined(LZ_SPARK_MFENCE)
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LZ_SPARK_MFENCE 1
#endif
#endif
#endif
static inline void full_fence(void) {
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !defined(LZ_SPARK_MFENCE)
  __asm__ __volatile__("lock; orq $0, (%%rsp)" ::: "memory", "cc");
#else
  atomic_thread_fence(SEQ_CST);
#endif
}

static inline void trace(uint32_t cap, LzSparkEvent ev, LzSparkId id, uint32_t victim) {
  LzSparkHook h = lz_spark_hook;
  if (h) h(cap, ev, id, victim);
}

/* ---- marking: Note [Spark pools and Boehm] ------------------------------------------ */

/* Every live pool; changed and read only under Boehm's allocation lock (the mark below
 * runs with it held and the world stopped). */
static LzSparkPool *all_pools;
static GC_push_other_roots_proc next_push;

bool lz_spark_pools_drop_evaluated;

/* Stands in for a spark whose thunk was evaluated: tagged (so lz_spark_fizzled is true
 * without reading it) and not a heap pointer (so it keeps nothing alive). */
static const LzWord evaluated_stand_in;
#define EVALUATED_SLOT ((LzWord)&evaluated_stand_in | 1)

/* Note [Evaluated sparks at a collection] (docs/notes/sparks.md): with the world stopped,
 * a slot of [t, b) whose thunk has been updated gets EVALUATED_SLOT, so its value is not
 * kept alive by the pool; taking it later fizzles, as the thunk would have. Index b
 * (a push or pop in flight) is left alone. Claimed thunks (BLACKHOLE) are kept: the
 * claiming thread's update frame keeps them anyway. */
static void drop_evaluated(LzSparkPool *p, int64_t t, int64_t b) {
  for (int64_t k = t; k < b; k++) {
    _Atomic(LzWord) *slot = &p->slots[k & p->mask].closure;
    LzWord c = atomic_load_explicit(slot, RELAXED);
    if (!c || LZ_TAG(c)) continue;
    uint16_t type = ((const LzInfo *)*(const LzWord *)c)->type;
    if (type == LZ_IND || type == LZ_CON || type == LZ_FUN || type == LZ_PAP || type == LZ_PRIM)
      atomic_store_explicit(slot, EVALUATED_SLOT, RELAXED);
  }
}

/* Boehm's push-other-roots hook, called while the world is stopped: the slots of indices
 * top..bottom *inclusive* of every pool. Index bottom covers the two windows in which a
 * spark is in a slot outside [top, bottom): the owner's pop between lowering bottom and
 * reading the slot, and its push between writing the slot and raising bottom. Any other
 * slot was taken (the taker holds the closure in a register or on its stack, which Boehm
 * scans) or is empty, so a spark's thunk dies as soon as its taker drops it, and a
 * stolen slot, which its thief cannot clear, keeps nothing alive. */
static void GC_CALLBACK mark_pools(void) {
  if (next_push) next_push();
  for (LzSparkPool *p = all_pools; p; p = p->next_pool) {
    int64_t t = atomic_load_explicit(&p->top, RELAXED);
    int64_t b = atomic_load_explicit(&p->bottom, RELAXED);
    int64_t n = b + 1 - t, cap = p->mask + 1;
    if (n <= 0) continue;
    if (lz_spark_pools_drop_evaluated) drop_evaluated(p, b - t < cap ? t : b - cap, b);
    if (n >= cap) {
      GC_push_all((void *)p->slots, (void *)(p->slots + cap));
      continue;
    }
    int64_t i = t & p->mask, j = (b + 1) & p->mask; /* [i, j) with wrap-around */
    if (i < j) {
      GC_push_all((void *)(p->slots + i), (void *)(p->slots + j));
    } else {
      GC_push_all((void *)(p->slots + i), (void *)(p->slots + cap));
      if (j > 0) GC_push_all((void *)p->slots, (void *)(p->slots + j));
    }
  }
}

static void *GC_CALLBACK register_pool(void *arg) {
  LzSparkPool *p = arg;
  static bool hooked;
  if (!hooked) {
    next_push = GC_get_push_other_roots();
    GC_set_push_other_roots(mark_pools);
    hooked = true;
  }
  p->next_pool = all_pools;
  all_pools = p;
  return NULL;
}

static void *GC_CALLBACK unregister_pool(void *arg) {
  for (LzSparkPool **pp = &all_pools; *pp; pp = &(*pp)->next_pool)
    if (*pp == arg) {
      *pp = ((LzSparkPool *)arg)->next_pool;
      break;
    }
  return NULL;
}

/* ---- creation ----------------------------------------------------------------------- */

size_t lz_spark_pool_capacity(size_t requested) {
  /* GHC's roundUp2: shift a 1 left once per significant bit of `requested`. */
  if (requested == 0) requested = 1;
  if (requested >= LZ_SPARK_POOL_MAX) return LZ_SPARK_POOL_MAX;
  size_t r = 1;
  do
    r <<= 1;
  while ((requested >>= 1) != 0);
  return r;
}

LzSparkPool *lz_spark_pool_new(uint32_t cap_no, size_t requested) {
  if (cap_no >= LZ_SPARK_MAX_CAPS) return NULL;
  size_t capacity = lz_spark_pool_capacity(requested);
  LzSparkPool *p = aligned_alloc(LZ_SPARK_LINE, sizeof *p); /* sizeof: a multiple of 64 */
  if (!p) return NULL;
  memset(p, 0, sizeof *p);
  /* Never freed by Boehm and not scanned: mark_pools marks the live part, so a thunk
   * referenced only by the pool stays alive and a taken one does not. See Note [Spark
   * pools and Boehm]. */
  p->slots = GC_MALLOC_ATOMIC_UNCOLLECTABLE(capacity * sizeof(LzSparkSlot));
  /* The prune's buffer is made now, not at the first prune: that comes just after a
   * collection, when every heap block may still hold a survivor, and Boehm met the
   * request for a whole block by growing the heap by a third (coins7 -N2: 32 -> 43 MB,
   * all of it touched afresh at every cycle; Note [Spark pools and Boehm]). */
  p->scratch = GC_MALLOC_UNCOLLECTABLE(capacity * sizeof(LzSpark));
  if (!p->slots || !p->scratch) {
    if (p->slots) GC_FREE(p->slots);
    if (p->scratch) GC_FREE(p->scratch);
    free(p);
    return NULL;
  }
  for (size_t i = 0; i < capacity; i++) {
    atomic_init(&p->slots[i].closure, 0);
    atomic_init(&p->slots[i].id, 0);
  }
  atomic_init(&p->top, 0);
  atomic_init(&p->bottom, 0);
  p->mask = (int64_t)capacity - 1;
  p->cap_no = cap_no;
  GC_call_with_alloc_lock(register_pool, p);
  return p;
}

void lz_spark_pool_free(LzSparkPool *p) {
  if (!p) return;
  GC_call_with_alloc_lock(unregister_pool, p);
  GC_FREE(p->slots);
  if (p->scratch) GC_FREE(p->scratch);
  free(p);
}

/* ---- the deque ---------------------------------------------------------------------- */

/* Lê et al.'s push, with one change: their `fence(release); store(bottom, relaxed)` is
 * written as `store(bottom, release)`. Both make the slot writes visible to a thief whose
 * acquire load of bottom reads the new value; the release store is also understood by
 * ThreadSanitizer, which does not model fences. The top read is skipped while the
 * owner's cached lower bound of top shows room (GHC's topBound): top only grows, and the
 * cache came from an acquire load, so a slot we overwrite was read by its thief before
 * the CAS that our acquire load saw. */
bool lz_spark_pool_push(LzSparkPool *p, LzWord closure, LzSparkId id) {
  int64_t b = atomic_load_explicit(&p->bottom, RELAXED);
  int64_t t = p->top_cache;
  if (b - t > p->mask) { /* looks full: b - t >= capacity */
    t = atomic_load_explicit(&p->top, ACQUIRE);
    p->top_cache = t;
    if (b - t > p->mask) return false;
  }
  LzSparkSlot *s = &p->slots[b & p->mask];
  atomic_store_explicit(&s->closure, closure, RELAXED);
  atomic_store_explicit(&s->id, id, RELAXED);
  atomic_store_explicit(&p->bottom, b + 1, RELEASE);
  return true;
}

/* Lê et al.'s take. The slot of a spark the owner took is cleared, so the pool does not
 * keep garbage alive for Boehm; no thief can successfully take that index any more (a
 * thief that read the cleared slot fails its CAS), so clearing is safe. */
LzSparkResult lz_spark_pool_pop(LzSparkPool *p, LzSpark *out) {
  int64_t b = atomic_load_explicit(&p->bottom, RELAXED) - 1;
  atomic_store_explicit(&p->bottom, b, RELAXED);
  full_fence();
  int64_t t = atomic_load_explicit(&p->top, RELAXED);
  if (t > b) { /* was empty */
    atomic_store_explicit(&p->bottom, b + 1, RELAXED);
    return LZ_SPARK_EMPTY;
  }
  LzSparkSlot *s = &p->slots[b & p->mask];
  LzWord c = atomic_load_explicit(&s->closure, RELAXED);
  LzSparkId id = atomic_load_explicit(&s->id, RELAXED);
  if (t == b) { /* the last spark: race the thieves for it */
    bool won = atomic_compare_exchange_strong_explicit(&p->top, &t, t + 1, SEQ_CST, RELAXED);
    atomic_store_explicit(&p->bottom, b + 1, RELAXED);
    if (!won) return LZ_SPARK_EMPTY;
  }
  atomic_store_explicit(&s->closure, 0, RELAXED);
  out->closure = c;
  out->id = id;
  return LZ_SPARK_OK;
}

/* Lê et al.'s steal. The slot is read before the CAS; if the CAS succeeds no push can
 * have overwritten it (that needs top > t), so what was read is the spark at t. */
LzSparkResult lz_spark_pool_steal(LzSparkPool *p, LzSpark *out) {
  int64_t t = atomic_load_explicit(&p->top, ACQUIRE);
  full_fence();
  int64_t b = atomic_load_explicit(&p->bottom, ACQUIRE);
  if (t >= b) return LZ_SPARK_EMPTY;
  LzSparkSlot *s = &p->slots[t & p->mask];
  LzWord c = atomic_load_explicit(&s->closure, RELAXED);
  LzSparkId id = atomic_load_explicit(&s->id, RELAXED);
  if (!atomic_compare_exchange_strong_explicit(&p->top, &t, t + 1, SEQ_CST, RELAXED))
    return LZ_SPARK_ABORT;
  out->closure = c;
  out->id = id;
  return LZ_SPARK_OK;
}

size_t lz_spark_pool_size(const LzSparkPool *p) {
  /* atomic_load on a const object: C11 allows it, but some headers declare the
   * parameter non-const; cast it away (the loads do not write). */
  LzSparkPool *q = (LzSparkPool *)p;
  int64_t b = atomic_load_explicit(&q->bottom, RELAXED);
  int64_t t = atomic_load_explicit(&q->top, RELAXED);
  return b > t ? (size_t)(b - t) : 0;
}

/* ---- GHC's bookkeeping ------------------------------------------------------------- */

bool lz_spark_fizzled(LzWord closure) {
  if (LZ_TAG(closure)) return true;
  const LzInfo *info = (const LzInfo *)__atomic_load_n((LzWord *)closure, __ATOMIC_ACQUIRE);
  return info->type != LZ_THUNK;
}

LzSparkFate lz_spark_new(LzSparkPool *p, LzWord closure, LzSparkId *idp) {
  LzSparkId id = LZ_SPARK_ID_MAKE(p->cap_no, ++p->seq);
  if (idp) *idp = id;
  if (lz_spark_fizzled(closure)) {
    p->counters.dud++;
    trace(p->cap_no, LZ_SPARK_EV_DUD, id, 0);
    return LZ_SPARK_DUD;
  }
  if (!lz_spark_pool_push(p, closure, id)) {
    p->counters.overflowed++;
    trace(p->cap_no, LZ_SPARK_EV_OVERFLOW, id, 0);
    return LZ_SPARK_OVERFLOWED;
  }
  p->counters.created++;
  trace(p->cap_no, LZ_SPARK_EV_CREATE, id, 0);
  return LZ_SPARK_CREATED;
}

/* GHC's tryStealSpark with the fizzle accounting of findSpark: steal from `victim` until
 * a spark that still needs evaluating turns up; fizzled ones are counted on `me`. */
static LzSparkResult take_live(LzSparkPool *me, LzSparkPool *victim, LzSpark *out) {
  for (;;) {
    LzSparkResult r = lz_spark_pool_steal(victim, out);
    if (r != LZ_SPARK_OK) return r;
    if (!lz_spark_fizzled(out->closure)) {
      me->counters.converted++;
      if (victim == me)
        trace(me->cap_no, LZ_SPARK_EV_RUN, out->id, 0);
      else
        trace(me->cap_no, LZ_SPARK_EV_STEAL, out->id, victim->cap_no);
      return LZ_SPARK_OK;
    }
    me->counters.fizzled++;
    trace(me->cap_no, LZ_SPARK_EV_FIZZLE, out->id, 0);
    /* `out` is the caller's: an idle capability sleeps with it in its frame, and Boehm
     * scans that (Note [Evaluated sparks at a collection], "The taker's copy") */
    out->closure = 0;
  }
}

bool lz_spark_find(LzSparkPool *const *pools, uint32_t n, uint32_t self, LzSpark *out,
                   uint32_t *from) {
  LzSparkPool *me = pools[self];
  for (;;) {
    bool retry = false;
    if (take_live(me, me, out) == LZ_SPARK_OK) {
      *from = self;
      return true;
    }
    if (lz_spark_pool_size(me) > 0) retry = true;
    for (uint32_t k = 1; k < n; k++) {
      uint32_t v = (self + k) % n;
      LzSparkPool *victim = pools[v];
      if (lz_spark_pool_size(victim) == 0) continue;
      LzSparkResult r = take_live(me, victim, out);
      if (r == LZ_SPARK_OK) {
        *from = v;
        return true;
      }
      if (r == LZ_SPARK_ABORT || lz_spark_pool_size(victim) > 0)
        retry = true; /* lost a race: come back after trying the others */
    }
    if (!retry) return false;
  }
}

/* Drain the pool with pops (thieves may still take some meanwhile), clear every slot
 * (the stolen sparks' slots still hold their closures), then push back the survivors
 * oldest first, so the order thieves see is unchanged. Clearing is safe: the pool is
 * empty, so a thief that read a cleared slot fails its CAS, and the refill's slot
 * writes come after the clearing in the owner's order. */
void lz_spark_pool_prune_after_gc(LzSparkPool *p) {
  uint64_t gc = GC_get_gc_no(); /* unsynchronised read: a stale count only delays a prune */
  if (gc == p->pruned_gc) return;
  p->pruned_gc = gc;
  if (lz_spark_pool_size(p) > 0) lz_spark_pool_prune(p, false, NULL);
}

void lz_spark_pool_prune(LzSparkPool *p, bool at_exit, bool (*fizzled)(LzWord closure)) {
  if (!fizzled) fizzled = lz_spark_fizzled;
  size_t capacity = (size_t)p->mask + 1;
  size_t n = 0;
  LzSpark s;
  while (n < capacity && lz_spark_pool_pop(p, &s) == LZ_SPARK_OK)
    p->scratch[n++] = s; /* newest first */
  /* Acquire top: every steal that succeeded so far (all CASes on top form one release
   * sequence) read its slot before the clearing below. */
  p->top_cache = atomic_load_explicit(&p->top, ACQUIRE);
  for (size_t i = 0; i < capacity; i++)
    atomic_store_explicit(&p->slots[i].closure, 0, RELAXED);
  for (size_t i = n; i-- > 0;) {
    s = p->scratch[i];
    p->scratch[i].closure = 0;
    if (fizzled(s.closure)) {
      p->counters.fizzled++;
      trace(p->cap_no, LZ_SPARK_EV_FIZZLE, s.id, 0);
    } else if (at_exit) {
      p->counters.gcd++;
      trace(p->cap_no, LZ_SPARK_EV_GC, s.id, 0);
    } else {
      (void)lz_spark_pool_push(p, s.closure, s.id); /* fits: the pool was emptied */
    }
  }
}

/* ---- statistics --------------------------------------------------------------------- */

void lz_spark_counters_sum(LzSparkPool *const *pools, uint32_t n, LzSparkCounters *out) {
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < n; i++) {
    const LzSparkCounters *c = &pools[i]->counters;
    out->created += c->created;
    out->dud += c->dud;
    out->overflowed += c->overflowed;
    out->converted += c->converted;
    out->gcd += c->gcd;
    out->fizzled += c->fizzled;
  }
}

int lz_spark_format_stats(char *buf, size_t size, const LzSparkCounters *c) {
  return snprintf(buf, size,
                  "  SPARKS: %" PRIu64 " (%" PRIu64 " converted, %" PRIu64 " overflowed, %" PRIu64
                  " dud, %" PRIu64 " GC'd, %" PRIu64 " fizzled)",
                  c->created + c->dud + c->overflowed, c->converted, c->overflowed, c->dud, c->gcd,
                  c->fizzled);
}

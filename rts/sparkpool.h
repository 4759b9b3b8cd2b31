/* sparkpool.h — per-capability spark pools: bounded Chase–Lev work-stealing deques.
 *
 * Each capability owns one pool. `par#` on that capability pushes a spark (a thunk and
 * its spark id) at the bottom; the owner may pop at the bottom (LIFO); any thread,
 * the owner included, steals at the top (FIFO) with one CAS. The deque is Chase and
 * Lev's with the C11 memory orderings proved correct by Lê, Pop, Cohen and Zappa
 * Nardelli ("Correct and Efficient Work-Stealing for Weak Memory Models", PPoPP 2013),
 * but bounded as GHC's is: a push into a full pool fails and the spark is counted as
 * overflowed. Above the deque sit GHC's spark bookkeeping: the fate counters (created,
 * dud, overflowed, converted, fizzled, GC'd), `newSpark` (lz_spark_new), `findSpark`
 * (lz_spark_find), the pruning pass (lz_spark_pool_prune) and the `+RTS -s` line.
 * Note [Spark pools] (docs/notes/sparks.md) explains the choices: spark-id layout,
 * capacity, orderings, what Boehm sees, and what counts as GC'd.
 *
 * Threads: every function whose first argument is `LzSparkPool *p` and that is not
 * marked "any thread" must be called by p's owner only.
 */
#ifndef LZ_SPARKPOOL_H
#define LZ_SPARKPOOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rts.h"

/* ---- spark ids ------------------------------------------------------------------------
 * Note [Spark ids]: a 64-bit id = capability number in the high 16 bits, and below it a
 * 48-bit per-capability sequence number counting the `par#` calls made on that
 * capability, from 1 (dud and overflowed sparks get an id too, so the n-th par# of a
 * capability always has sequence n). Id 0 means "no spark". No lock is needed to name a
 * spark, and the replay log refers to sparks by these ids. */
typedef uint64_t LzSparkId;
#define LZ_SPARK_ID_CAP_BITS 16
#define LZ_SPARK_ID_SEQ_BITS 48
#define LZ_SPARK_ID_SEQ_MASK ((UINT64_C(1) << LZ_SPARK_ID_SEQ_BITS) - 1)
#define LZ_SPARK_ID_MAKE(cap, seq)                                                                 \
  (((uint64_t)(cap) << LZ_SPARK_ID_SEQ_BITS) | ((uint64_t)(seq)&LZ_SPARK_ID_SEQ_MASK))
#define LZ_SPARK_ID_CAP(id) ((uint32_t)((uint64_t)(id) >> LZ_SPARK_ID_SEQ_BITS))
#define LZ_SPARK_ID_SEQ(id) ((uint64_t)(id)&LZ_SPARK_ID_SEQ_MASK)
#define LZ_SPARK_ID_NONE    ((LzSparkId)0)
#define LZ_SPARK_MAX_CAPS   (1u << LZ_SPARK_ID_CAP_BITS)

/* ---- the pool ----------------------------------------------------------------------- */

/* GHC's default for +RTS -e<n> (maximum outstanding local sparks). */
#define LZ_SPARK_POOL_DEFAULT 4096
#define LZ_SPARK_POOL_MAX     ((size_t)1 << 24)
#define LZ_SPARK_LINE         64 /* cache line: top, bottom and the owner's fields apart */

typedef struct LzSpark {
  LzWord closure; /* an untagged pointer to a THUNK (when it was pushed) */
  LzSparkId id;
} LzSpark;

/* A buffer slot. Both words are atomics because a thief may read a slot while the owner
 * rewrites it (the thief's CAS then fails and it discards what it read). */
typedef struct LzSparkSlot {
  _Atomic(LzWord) closure;
  _Atomic(LzSparkId) id;
} LzSparkSlot;

/* Spark fates, GHC's spark_stats. */
typedef struct LzSparkCounters {
  uint64_t created;    /* pushed into the pool                                           */
  uint64_t dud;        /* par# on something already evaluated: not pushed                */
  uint64_t overflowed; /* par# when the pool was full: dropped                           */
  uint64_t converted;  /* taken from a pool and handed to the scheduler to evaluate      */
  uint64_t gcd;        /* discarded unevaluated by the final prune (Note [GC'd sparks])  */
  uint64_t fizzled;    /* taken or pruned after its thunk was evaluated or claimed        */
} LzSparkCounters;

/* Fields are private to sparkpool.c (visible for the tests). Indices grow without
 * bound (int64: no wrap in practice); the slot of index i is slots[i & mask]. */
typedef struct LzSparkPool {
  _Alignas(LZ_SPARK_LINE) _Atomic(int64_t) top;    /* next to steal; thieves CAS it      */
  _Alignas(LZ_SPARK_LINE) _Atomic(int64_t) bottom; /* next free; written by the owner */
  LzSparkSlot *slots; /* capacity slots, not scanned by Boehm: only [top, bottom] is
                         marked (Note [Spark pools and Boehm])                       */
  int64_t mask;       /* capacity - 1 (capacity a power of two)                      */
  uint32_t cap_no;
  /* owner-private */
  _Alignas(LZ_SPARK_LINE) int64_t top_cache; /* a lower bound of top (GHC's topBound)  */
  uint64_t seq;             /* par# calls so far on this capability (Note [Spark ids])     */
  LzSparkCounters counters; /* written only by the owner (see lz_spark_find)          */
  LzSpark *scratch;         /* lz_spark_pool_prune's buffer, uncollectable, made with the pool */
  uint64_t pruned_gc;       /* Boehm's collection count at the last lz_spark_pool_prune_after_gc */
  struct LzSparkPool *next_pool; /* every live pool, for the mark (under Boehm's lock) */
} LzSparkPool;

/* The capacity of a pool for +RTS -e<requested>: the smallest power of two strictly
 * greater than `requested`, which is what GHC 9.0's newWSDeque/roundUp2 gives (so the
 * default -e4096 holds 8192 sparks, as GHC's does; measured, see the note). */
size_t lz_spark_pool_capacity(size_t requested);

/* A new empty pool for capability `cap_no` (< LZ_SPARK_MAX_CAPS); NULL if out of memory.
 * Boehm must be initialised (lz_gc_init). */
LzSparkPool *lz_spark_pool_new(uint32_t cap_no, size_t requested);
void lz_spark_pool_free(LzSparkPool *p); /* when no thread uses it any more */

/* ---- the deque (Chase–Lev) ---------------------------------------------------------- */

typedef enum LzSparkResult {
  LZ_SPARK_OK,    /* *out holds the spark                                             */
  LZ_SPARK_EMPTY, /* the pool was empty                                               */
  LZ_SPARK_ABORT, /* steal only: lost a race with another taker; the pool may still
                     hold sparks, retry (after trying other pools, as findSpark does)  */
} LzSparkResult;

/* Owner: push at the bottom; false when the pool is full (nothing pushed). */
bool lz_spark_pool_push(LzSparkPool *p, LzWord closure, LzSparkId id);
/* Owner: pop the newest spark (LIFO). Never ABORT. */
LzSparkResult lz_spark_pool_pop(LzSparkPool *p, LzSpark *out);
/* Any thread: steal the oldest spark (FIFO). */
LzSparkResult lz_spark_pool_steal(LzSparkPool *p, LzSpark *out);
/* Any thread: the number of sparks, a snapshot (exact when no one else is acting). */
size_t lz_spark_pool_size(const LzSparkPool *p);

/* ---- GHC's spark bookkeeping -------------------------------------------------------- */

/* Does a spark on `closure` no longer need evaluating? True for a tagged pointer and
 * for any object whose info type is not LZ_THUNK: a value, an IND (updated), or a
 * BLACKHOLE (claimed: some thread is already evaluating it). GHC's fizzledSpark. The
 * info word is read with an atomic acquire load; code that overwrites info words of
 * shared thunks (blackholing, update) must use atomic stores (ThreadSanitizer). */
bool lz_spark_fizzled(LzWord closure);

typedef enum LzSparkFate { LZ_SPARK_CREATED, LZ_SPARK_DUD, LZ_SPARK_OVERFLOWED } LzSparkFate;

/* Owner: what `par#` does (GHC's newSpark): assign the next spark id; if `closure` is
 * already evaluated count a dud, else push it, counting created or overflowed. The id
 * is stored in *id when id is not NULL. */
LzSparkFate lz_spark_new(LzSparkPool *p, LzWord closure, LzSparkId *id);

/* Owner of pools[self]: find a spark to run (GHC's findSpark): take from the own pool
 * first (from the top, oldest first, as GHC does), then steal from the others in turn
 * starting after `self`; sparks found already evaluated are counted as fizzled and
 * skipped; the spark returned is counted as converted. All counting is on pools[self].
 * Retries while a steal lost a race or a pool looked non-empty. Returns false when
 * every pool is empty; else *out is the spark and *from the index of the pool it came
 * from (self: a SPARK_RUN; another: a SPARK_STEAL from that capability). */
bool lz_spark_find(LzSparkPool *const *pools, uint32_t n, uint32_t self, LzSpark *out,
                   uint32_t *from);

/* Owner: prune the pool (GHC's pruneSparkQueue at GC): sparks whose thunk is evaluated
 * (lz_spark_fizzled, or `fizzled` when not NULL) are dropped and counted as fizzled;
 * with `at_exit` the remaining ones are dropped too and counted as GC'd (Note [GC'd
 * sparks]); otherwise they stay, in their order. Thieves may steal concurrently. */
void lz_spark_pool_prune(LzSparkPool *p, bool at_exit, bool (*fizzled)(LzWord closure));
/* Owner only: prune (not at exit) if a collection has happened since the last call. The
 * pool is a root, so evaluated sparks would keep their values alive (Note [GC'd sparks]). */
void lz_spark_pool_prune_after_gc(LzSparkPool *p);

/* ---- statistics --------------------------------------------------------------------- */

/* Sum of the counters of n pools (read them only when their owners are stopped). */
void lz_spark_counters_sum(LzSparkPool *const *pools, uint32_t n, LzSparkCounters *out);
/* GHC's `+RTS -s` line, without newline (GHC follows it by a blank line):
 *   "  SPARKS: 5 (3 converted, 0 overflowed, 0 dud, 0 GC'd, 2 fizzled)"
 * where the first number is created + dud + overflowed. Returns snprintf's result. */
int lz_spark_format_stats(char *buf, size_t size, const LzSparkCounters *c);

/* ---- tracing ------------------------------------------------------------------------
 * If set (before any capability starts; never changed while they run), called on the
 * acting capability's thread for every spark event, GHC's event-log spark events:
 * `cap` is the acting capability, `victim` the capability stolen from (STEAL only). */
typedef enum LzSparkEvent {
  LZ_SPARK_EV_CREATE,
  LZ_SPARK_EV_DUD,
  LZ_SPARK_EV_OVERFLOW,
  LZ_SPARK_EV_RUN,
  LZ_SPARK_EV_STEAL,
  LZ_SPARK_EV_FIZZLE,
  LZ_SPARK_EV_GC,
} LzSparkEvent;
typedef void (*LzSparkHook)(uint32_t cap, LzSparkEvent ev, LzSparkId id, uint32_t victim);
extern LzSparkHook lz_spark_hook;

/* At each collection, stop keeping the values of evaluated sparks alive (Note [Evaluated
 * sparks at a collection] in docs/notes/sparks.md). Set before the capabilities start;
 * off while recording or replaying. */
extern bool lz_spark_pools_drop_evaluated;

#endif

/* test_rts_sparkpool.c — the spark pools (rts/sparkpool.c) one thread at a time: deque
 * semantics, GHC's spark bookkeeping, and what Boehm sees.
 *
 * The owner pops newest first, thieves steal oldest first, a full pool refuses a push,
 * indices wrap around the ring, popped slots are cleared; par# counts duds, overflows
 * and creations as GHC does and numbers every call (Note [Spark ids]); findSpark runs
 * local sparks before stealing and skips fizzled ones; pruning keeps order and counts
 * fizzled and GC'd sparks; the -s line is GHC's to the byte; a thunk referenced only by
 * a pool survives collections, and one taken from it does not. The concurrent cases
 * are in test_rts_sparkpool_stress.c. Both also run under ThreadSanitizer (ctest
 * unit/rts-tsan). Fake closures: sparkpool_fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <string.h>

#include "sparkpool_fixture.h"

/* ---- hook recording ------------------------------------------------------------------ */

typedef struct {
  uint32_t cap;
  LzSparkEvent ev;
  LzSparkId id;
  uint32_t victim;
} Ev;
static Ev events[64];
static int n_events;
static void record_hook(uint32_t cap, LzSparkEvent ev, LzSparkId id, uint32_t victim) {
  if (n_events < 64) events[n_events++] = (Ev){cap, ev, id, victim};
}

/* ---- single-threaded semantics ------------------------------------------------------ */

static void test_capacity(void **state) {
  (void)state;
  /* GHC 9.0.2's roundUp2: smallest power of two strictly above the request */
  assert_int_equal(lz_spark_pool_capacity(LZ_SPARK_POOL_DEFAULT), 8192);
  assert_int_equal(lz_spark_pool_capacity(1000), 1024);
  assert_int_equal(lz_spark_pool_capacity(1024), 2048);
  assert_int_equal(lz_spark_pool_capacity(3), 4);
  assert_int_equal(lz_spark_pool_capacity(1), 2);
  assert_int_equal(lz_spark_pool_capacity(0), 2);
  assert_int_equal(lz_spark_pool_capacity((size_t)-1), LZ_SPARK_POOL_MAX);
  LzSparkPool *p = lz_spark_pool_new(0, 4096);
  assert_non_null(p);
  assert_int_equal(p->mask + 1, 8192);
  assert_true(((uintptr_t)p % LZ_SPARK_LINE) == 0);
  assert_int_not_equal((uintptr_t)&p->top / LZ_SPARK_LINE, (uintptr_t)&p->bottom / LZ_SPARK_LINE);
  lz_spark_pool_free(p);
  assert_null(lz_spark_pool_new(LZ_SPARK_MAX_CAPS, 16));
}

static void test_spark_ids(void **state) {
  (void)state;
  LzSparkId id = LZ_SPARK_ID_MAKE(3, 42);
  assert_int_equal(LZ_SPARK_ID_CAP(id), 3);
  assert_int_equal(LZ_SPARK_ID_SEQ(id), 42);
  assert_true(id == ((UINT64_C(3) << 48) | 42));
  id = LZ_SPARK_ID_MAKE(LZ_SPARK_MAX_CAPS - 1, LZ_SPARK_ID_SEQ_MASK);
  assert_int_equal(LZ_SPARK_ID_CAP(id), LZ_SPARK_MAX_CAPS - 1);
  assert_true(LZ_SPARK_ID_SEQ(id) == LZ_SPARK_ID_SEQ_MASK);
  assert_true(LZ_SPARK_ID_MAKE(0, 1) != LZ_SPARK_ID_NONE);
}

static void test_lifo_owner_fifo_thief(void **state) {
  (void)state;
  LzSparkPool *p = lz_spark_pool_new(0, 100);
  LzSpark s;
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_EMPTY);
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_EMPTY);
  for (LzWord i = 1; i <= 5; i++)
    assert_true(lz_spark_pool_push(p, i << 4, i));
  assert_int_equal(lz_spark_pool_size(p), 5);
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_OK);
  assert_true(s.closure == 5 << 4 && s.id == 5);
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_OK);
  assert_true(s.closure == 4 << 4 && s.id == 4);
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
  assert_true(s.closure == 1 << 4 && s.id == 1);
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
  assert_true(s.closure == 2 << 4 && s.id == 2);
  assert_int_equal(lz_spark_pool_size(p), 1);
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_OK); /* the last one: CAS path */
  assert_true(s.closure == 3 << 4 && s.id == 3);
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_EMPTY);
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_EMPTY);
  assert_int_equal(lz_spark_pool_size(p), 0);
  /* a popped slot is cleared (the pool must not keep garbage alive) */
  for (int64_t i = 0; i <= p->mask; i++)
    if (i > 1) /* indices 0, 1: stolen, still hold their closures until pruned */
      assert_int_equal(atomic_load(&p->slots[i].closure), 0);
  /* last element taken by a thief: the owner's pop then finds it empty */
  assert_true(lz_spark_pool_push(p, 7 << 4, 7));
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_EMPTY);
  assert_true(lz_spark_pool_push(p, 8 << 4, 8));
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_OK);
  assert_true(s.id == 8);
  lz_spark_pool_free(p);
}

static void test_overflow_and_wrap(void **state) {
  (void)state;
  LzSparkPool *p = lz_spark_pool_new(0, 7); /* capacity 8 */
  LzSpark s;
  for (LzWord i = 1; i <= 8; i++)
    assert_true(lz_spark_pool_push(p, i << 4, i));
  assert_false(lz_spark_pool_push(p, 9 << 4, 9)); /* full */
  assert_int_equal(lz_spark_pool_size(p), 8);
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
  assert_true(s.id == 1);
  assert_true(lz_spark_pool_push(p, 9 << 4, 9)); /* room again */
  assert_false(lz_spark_pool_push(p, 10 << 4, 10));
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_OK);
  assert_true(s.id == 9);
  assert_true(lz_spark_pool_push(p, 10 << 4, 10));
  /* around the ring many times: thieves see FIFO, the owner LIFO */
  LzWord next_in = 11, next_steal = 2;
  uint64_t seed = 88172645463325252u;
  for (int round = 0; round < 100000; round++) {
    while (lz_spark_pool_push(p, next_in << 4, next_in))
      next_in++;
    size_t k = 1 + rnd(&seed) % 8;
    for (size_t j = 0; j < k; j++) {
      assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
      if (next_steal == 9) /* popped above */
        next_steal++;
      assert_true(s.id == next_steal && s.closure == next_steal << 4);
      next_steal++;
      if (lz_spark_pool_size(p) == 0) break;
    }
  }
  assert_true(next_in > 100000);
  lz_spark_pool_free(p);
}

static void test_spark_new_fates(void **state) {
  (void)state;
  static Obj o[9];
  for (int i = 0; i < 6; i++)
    obj_set(&o[i], &thunk_info);
  obj_set(&o[6], &con_info);
  obj_set(&o[7], &bh_info);
  obj_set(&o[8], &con_info);
  LzSparkPool *p = lz_spark_pool_new(5, 3); /* capacity 4 */
  n_events = 0;
  lz_spark_hook = record_hook;
  LzSparkId id;
  assert_int_equal(lz_spark_new(p, (LzWord)&o[6], &id), LZ_SPARK_DUD); /* a value */
  assert_true(id == LZ_SPARK_ID_MAKE(5, 1));
  assert_int_equal(lz_spark_new(p, (LzWord)&o[8] | 1, &id), LZ_SPARK_DUD); /* tagged */
  assert_int_equal(lz_spark_new(p, (LzWord)&o[7], &id), LZ_SPARK_DUD);     /* claimed */
  for (int i = 0; i < 4; i++) {
    assert_int_equal(lz_spark_new(p, (LzWord)&o[i], &id), LZ_SPARK_CREATED);
    assert_true(id == LZ_SPARK_ID_MAKE(5, 4 + i));
  }
  assert_int_equal(lz_spark_new(p, (LzWord)&o[4], &id), LZ_SPARK_OVERFLOWED);
  assert_int_equal(lz_spark_new(p, (LzWord)&o[5], NULL), LZ_SPARK_OVERFLOWED);
  lz_spark_hook = NULL;
  assert_int_equal(p->counters.dud, 3);
  assert_int_equal(p->counters.created, 4);
  assert_int_equal(p->counters.overflowed, 2);
  assert_int_equal(p->counters.converted + p->counters.fizzled + p->counters.gcd, 0);
  assert_int_equal(n_events, 9);
  assert_int_equal(events[0].ev, LZ_SPARK_EV_DUD);
  assert_int_equal(events[3].ev, LZ_SPARK_EV_CREATE);
  assert_true(events[3].id == LZ_SPARK_ID_MAKE(5, 4) && events[3].cap == 5);
  assert_int_equal(events[7].ev, LZ_SPARK_EV_OVERFLOW);
  assert_true(events[8].id == LZ_SPARK_ID_MAKE(5, 9));
  LzSpark s;
  assert_int_equal(lz_spark_pool_pop(p, &s), LZ_SPARK_OK);
  assert_true(s.closure == (LzWord)&o[3] && s.id == LZ_SPARK_ID_MAKE(5, 7));
  lz_spark_pool_free(p);
}

static void test_find(void **state) {
  (void)state;
  static Obj o[5];
  for (int i = 0; i < 5; i++)
    obj_set(&o[i], &thunk_info);
  LzSparkPool *pools[3];
  for (uint32_t i = 0; i < 3; i++)
    pools[i] = lz_spark_pool_new(i, 16);
  LzSpark s;
  uint32_t from = 99;
  assert_false(lz_spark_find(pools, 3, 0, &s, &from));
  assert_int_equal(lz_spark_new(pools[0], (LzWord)&o[0], NULL), LZ_SPARK_CREATED);
  assert_int_equal(lz_spark_new(pools[0], (LzWord)&o[1], NULL), LZ_SPARK_CREATED);
  assert_int_equal(lz_spark_new(pools[2], (LzWord)&o[2], NULL), LZ_SPARK_CREATED);
  assert_int_equal(lz_spark_new(pools[2], (LzWord)&o[3], NULL), LZ_SPARK_CREATED);
  assert_int_equal(lz_spark_new(pools[1], (LzWord)&o[4], NULL), LZ_SPARK_CREATED);
  obj_set(&o[2], &con_info); /* evaluated after sparking: will fizzle */
  obj_set(&o[4], &bh_info);  /* claimed by a thread: fizzles too */
  n_events = 0;
  lz_spark_hook = record_hook;
  /* own pool first, oldest first */
  assert_true(lz_spark_find(pools, 3, 0, &s, &from));
  assert_true(s.closure == (LzWord)&o[0] && from == 0);
  assert_true(s.id == LZ_SPARK_ID_MAKE(0, 1));
  assert_true(lz_spark_find(pools, 3, 0, &s, &from));
  assert_true(s.closure == (LzWord)&o[1] && from == 0);
  /* then the others, starting after self: pool 1 (fizzles), then pool 2 (o[2] fizzles) */
  assert_true(lz_spark_find(pools, 3, 0, &s, &from));
  assert_true(s.closure == (LzWord)&o[3] && from == 2);
  assert_false(lz_spark_find(pools, 3, 0, &s, &from));
  lz_spark_hook = NULL;
  assert_int_equal(pools[0]->counters.converted, 3);
  assert_int_equal(pools[0]->counters.fizzled, 2);
  assert_int_equal(pools[1]->counters.converted + pools[1]->counters.fizzled, 0);
  assert_int_equal(pools[2]->counters.converted + pools[2]->counters.fizzled, 0);
  assert_int_equal(n_events, 5);
  assert_int_equal(events[0].ev, LZ_SPARK_EV_RUN);
  assert_int_equal(events[1].ev, LZ_SPARK_EV_RUN);
  assert_int_equal(events[2].ev, LZ_SPARK_EV_FIZZLE);
  assert_true(events[2].id == LZ_SPARK_ID_MAKE(1, 1));
  assert_int_equal(events[3].ev, LZ_SPARK_EV_FIZZLE);
  assert_int_equal(events[4].ev, LZ_SPARK_EV_STEAL);
  assert_int_equal(events[4].victim, 2);
  assert_int_equal(events[4].cap, 0);
  LzSparkCounters sum;
  lz_spark_counters_sum(pools, 3, &sum);
  assert_int_equal(sum.created, 5);
  assert_int_equal(sum.created, sum.converted + sum.fizzled);
  /* a capability alone: n == 1 */
  assert_false(lz_spark_find(pools, 1, 0, &s, &from));
  for (int i = 0; i < 3; i++)
    lz_spark_pool_free(pools[i]);
}

static bool odd_fizzled(LzWord c) { return (c >> 4) % 2 == 1; }

static void test_prune(void **state) {
  (void)state;
  static Obj o[6];
  for (int i = 0; i < 6; i++)
    obj_set(&o[i], &thunk_info);
  LzSparkPool *p = lz_spark_pool_new(1, 16);
  LzSpark s;
  for (int i = 0; i < 6; i++)
    lz_spark_new(p, (LzWord)&o[i], NULL);
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK); /* o[0]: stale slot */
  obj_set(&o[1], &con_info);
  obj_set(&o[4], &bh_info);
  lz_spark_pool_prune(p, false, NULL);
  assert_int_equal(p->counters.fizzled, 2);
  assert_int_equal(p->counters.gcd, 0);
  assert_int_equal(lz_spark_pool_size(p), 3);
  int live = 0; /* every slot outside [top, bottom) is cleared, the stolen one too */
  for (int64_t i = 0; i <= p->mask; i++)
    live += atomic_load(&p->slots[i].closure) != 0;
  assert_int_equal(live, 3);
  /* order kept: o[2], o[3], o[5] with their ids */
  LzSparkPool *pool1 = p;
  assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
  assert_true(s.closure == (LzWord)&o[2] && s.id == LZ_SPARK_ID_MAKE(1, 3));
  assert_true(lz_spark_pool_push(p, (LzWord)&o[2], s.id)); /* back, now newest */
  lz_spark_pool_prune(pool1, true, NULL);                  /* at exit: the rest is GC'd */
  assert_int_equal(p->counters.gcd, 3);
  assert_int_equal(p->counters.fizzled, 2);
  assert_int_equal(lz_spark_pool_size(p), 0);
  assert_int_equal(p->counters.created, 6);
  /* created = converted (1 stolen, by hand) + fizzled + GC'd + still in the pool */
  assert_int_equal(p->counters.created, 1 + p->counters.fizzled + p->counters.gcd);
  /* a custom predicate, on fake closures that are never dereferenced */
  for (LzWord i = 1; i <= 10; i++)
    lz_spark_pool_push(p, i << 4, i);
  lz_spark_pool_prune(p, false, odd_fizzled);
  assert_int_equal(lz_spark_pool_size(p), 5);
  for (LzWord i = 2; i <= 10; i += 2) {
    assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
    assert_true(s.id == i);
  }
  lz_spark_pool_free(p);
}

static void test_format(void **state) {
  (void)state;
  char buf[200];
  LzSparkCounters c = {.created = 5, .converted = 3, .fizzled = 2};
  lz_spark_format_stats(buf, sizeof buf, &c);
  assert_string_equal(buf, "  SPARKS: 5 (3 converted, 0 overflowed, 0 dud, 0 GC'd, 2 fizzled)");
  /* the total is created + dud + overflowed, as GHC's Stats.c computes it */
  c = (LzSparkCounters){.created = 8192,
                        .dud = 3,
                        .overflowed = 1808,
                        .converted = 2142,
                        .gcd = 858,
                        .fizzled = 12345678901ull};
  lz_spark_format_stats(buf, sizeof buf, &c);
  assert_string_equal(
      buf,
      "  SPARKS: 10003 (2142 converted, 1808 overflowed, 3 dud, 858 GC'd, 12345678901 fizzled)");
  LzSparkCounters z = {0};
  lz_spark_format_stats(buf, sizeof buf, &z);
  assert_string_equal(buf, "  SPARKS: 0 (0 converted, 0 overflowed, 0 dud, 0 GC'd, 0 fizzled)");
}

/* ---- Boehm: the pool's live part is marked; taken sparks, popped or stolen, are not ---- */

#define GC_OBJS 400
static GC_hidden_pointer links[GC_OBJS]; /* hidden: these do not keep the objects alive */

static __attribute__((noinline)) void gc_push_objects(LzSparkPool *p) {
  for (int i = 0; i < GC_OBJS; i++) {
    LzWord *obj = GC_MALLOC(4 * sizeof(LzWord));
    obj[0] = (LzWord)&thunk_info;
    links[i] = GC_HIDE_POINTER(obj);
    GC_general_register_disappearing_link((void **)&links[i], obj);
    assert_true(lz_spark_pool_push(p, (LzWord)obj, (LzSparkId)i + 1));
  }
}

static __attribute__((noinline)) void clobber_stack(void) {
  volatile char junk[16384];
  memset((char *)junk, 0, sizeof junk);
}

static int gc_alive(void) {
  clobber_stack();
  for (int k = 0; k < 3; k++)
    GC_gcollect();
  int n = 0;
  for (int i = 0; i < GC_OBJS; i++)
    n += links[i] != 0;
  return n;
}

static __attribute__((noinline)) void gc_take_all(LzSparkPool *p, bool steal) {
  LzSpark s;
  while ((steal ? lz_spark_pool_steal(p, &s) : lz_spark_pool_pop(p, &s)) == LZ_SPARK_OK)
    s.closure = 0;
}

static __attribute__((noinline)) void gc_steal_half(LzSparkPool *p) {
  LzSpark s;
  for (int i = 0; i < GC_OBJS / 2; i++)
    assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
  s.closure = 0;
}

static void test_boehm_roots(void **state) {
  (void)state;
  lz_gc_init();
  LzSparkPool *p = lz_spark_pool_new(0, GC_OBJS);
  gc_push_objects(p);
  assert_int_equal(gc_alive(), GC_OBJS); /* only the pool references them */
  gc_take_all(p, false);                 /* popped slots are cleared */
  assert_true(gc_alive() < GC_OBJS / 10);
  for (int i = 0; i < GC_OBJS; i++) {
    if (links[i]) GC_unregister_disappearing_link((void **)&links[i]);
    links[i] = 0;
  }
  gc_push_objects(p);
  gc_take_all(p, true); /* stolen slots still hold their closures, but are not marked */
  assert_true(gc_alive() < GC_OBJS / 10);
  for (int i = 0; i < GC_OBJS; i++) {
    if (links[i]) GC_unregister_disappearing_link((void **)&links[i]);
    links[i] = 0;
  }
  /* indices 401..800 of 512 slots (the pops above ended at top 1): the live part wraps
   * around the end of the slot array */
  assert_int_equal(atomic_load(&p->top), 401);
  gc_push_objects(p);
  assert_int_equal(gc_alive(), GC_OBJS);
  gc_steal_half(p); /* the oldest half */
  int alive = gc_alive();
  assert_true(alive >= GC_OBJS / 2 && alive < GC_OBJS / 2 + GC_OBJS / 10);
  for (int i = GC_OBJS / 2; i < GC_OBJS; i++)
    assert_true(links[i] != 0); /* the youngest half, still in the pool, all survive */
  gc_take_all(p, false);
  assert_true(gc_alive() < GC_OBJS / 10);
  for (int i = 0; i < GC_OBJS; i++)
    if (links[i]) GC_unregister_disappearing_link((void **)&links[i]);
  lz_spark_pool_free(p);
}

/* Note [Evaluated sparks at a collection]: with lz_spark_pools_drop_evaluated, a slot
 * whose thunk was updated (IND) or is a value stops keeping it alive and fizzles when
 * taken; thunks and blackholes are kept, and so is the order of the pool. */
static const LzInfo ind_info = {.type = LZ_IND, .name = "IND"};

static __attribute__((noinline)) void gc_push_mixed(LzSparkPool *p) {
  static const LzInfo *const infos[4] = {&thunk_info, &ind_info, &con_info, &bh_info};
  for (int i = 0; i < GC_OBJS; i++) {
    LzWord *obj = GC_MALLOC(4 * sizeof(LzWord));
    obj[0] = (LzWord)infos[i % 4];
    links[i] = GC_HIDE_POINTER(obj);
    GC_general_register_disappearing_link((void **)&links[i], obj);
    assert_true(lz_spark_pool_push(p, (LzWord)obj, (LzSparkId)i + 1));
  }
}

static void test_drop_evaluated(void **state) {
  (void)state;
  LzSparkPool *p = lz_spark_pool_new(0, GC_OBJS);
  LzSparkPool *mine = lz_spark_pool_new(1, 16); /* the taker's own pool: empty */
  gc_push_mixed(p);
  lz_spark_pools_drop_evaluated = true;
  gc_alive();
  lz_spark_pools_drop_evaluated = false;
  int evaluated_alive = 0; /* the thunks and blackholes stay; IND, CON go (but for a
                              stale word or two on the stack, as in test_boehm_roots) */
  for (int i = 0; i < GC_OBJS; i++)
    if (i % 4 == 0 || i % 4 == 3)
      assert_true(links[i] != 0);
    else
      evaluated_alive += links[i] != 0;
  assert_true(evaluated_alive < GC_OBJS / 20);
  assert_int_equal(lz_spark_pool_size(p), GC_OBJS); /* no slot was taken out */
  LzSpark s = {.closure = 1};
  for (int i = 0; i < GC_OBJS; i++) { /* oldest first, ids in order */
    assert_int_equal(lz_spark_pool_steal(p, &s), LZ_SPARK_OK);
    assert_int_equal(s.id, (LzSparkId)i + 1);
    assert_int_equal(lz_spark_fizzled(s.closure), i % 4 != 0);
  }
  for (int i = 0; i < GC_OBJS; i++) {
    if (links[i]) GC_unregister_disappearing_link((void **)&links[i]);
    links[i] = 0;
  }
  /* a taker that finds only fizzled sparks leaves none in the caller's copy, which an
     idle capability would sleep with ("The taker's copy" in that Note) */
  gc_push_mixed(p);
  for (int i = 0; i < GC_OBJS; i += 4)
    obj_set((Obj *)GC_REVEAL_POINTER(links[i]), &ind_info); /* the thunks are updated */
  LzSparkPool *pools[2] = {mine, p};
  uint32_t from = 9;
  s.closure = 1;
  assert_false(lz_spark_find(pools, 2, 0, &s, &from));
  assert_int_equal(s.closure, 0);
  assert_int_equal(lz_spark_pool_size(p), 0);
  for (int i = 0; i < GC_OBJS; i++)
    if (links[i]) GC_unregister_disappearing_link((void **)&links[i]);
  lz_spark_pool_free(mine);
  lz_spark_pool_free(p);
}

int main(int argc, char **argv) {
  if (argc > 1) /* a cmocka test filter, e.g. "test_prune" */
    cmocka_set_test_filter(argv[1]);
  lz_gc_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_capacity),
      cmocka_unit_test(test_spark_ids),
      cmocka_unit_test(test_lifo_owner_fifo_thief),
      cmocka_unit_test(test_overflow_and_wrap),
      cmocka_unit_test(test_spark_new_fates),
      cmocka_unit_test(test_find),
      cmocka_unit_test(test_prune),
      cmocka_unit_test(test_format),
      cmocka_unit_test(test_boehm_roots),
      cmocka_unit_test(test_drop_evaluated),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

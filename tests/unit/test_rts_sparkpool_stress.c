/* test_rts_sparkpool_stress.c — the spark pools under contention, and their timings.
 *
 * One owner pushes and pops in random bursts (so the pool is often nearly empty, where
 * owner and thieves race for the last spark, and sometimes full) against 1–3 thieves,
 * for millions of operations; every pushed spark must be taken exactly once, never torn
 * (closure and id always from the same push), and pushes = pops + steals. Then three
 * "capabilities" each create sparks on their own fake thunks with lz_spark_new and run
 * sparks found with lz_spark_find (claiming the thunk with a CAS, as blackholing will)
 * while the parents also demand some thunks themselves: no spark is delivered twice,
 * ids name the right thunk, and the fate counters add up. A mutant without pop's
 * seq_cst fence loses and duplicates sparks here; one with a relaxed bottom store is
 * reported by ThreadSanitizer (ctest unit/rts-tsan runs this binary built with
 * -fsanitize=thread). LZ_SPARK_STRESS_ITEMS scales the cases; LZ_SPARK_BENCH=1 prints
 * the counts and timings (push+pop cost, steal throughput with two threads).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "sparkpool_fixture.h"

/* ---- stress: one owner, 1..3 thieves, raw deque -------------------------------------- */

typedef struct {
  LzSparkPool *pool;
  size_t items;
  _Atomic(uint32_t) *taken;  /* per item: how many times it was taken */
  unsigned char *overflowed; /* per item, owner only */
  atomic_bool done;
  atomic_bool torn;
  atomic_int running; /* thieves that have started */
  pthread_barrier_t start;
  uint64_t owner_pops, pushes_ok;
} Stress;

typedef struct {
  Stress *st;
  uint64_t steals, aborts;
} Thief;

static void take(Stress *st, const LzSpark *s) {
  if (s->id == 0 || s->id > st->items || s->closure != (LzWord)s->id << 4) {
    atomic_store(&st->torn, true);
    return;
  }
  atomic_fetch_add_explicit(&st->taken[s->id - 1], 1, memory_order_relaxed);
}

static void *thief_main(void *arg) {
  Thief *th = arg;
  Stress *st = th->st;
  LzSpark s;
  unsigned idle = 0;
  pthread_barrier_wait(&st->start);
  atomic_fetch_add(&st->running, 1);
  for (;;) {
    bool done = atomic_load_explicit(&st->done, memory_order_acquire);
    LzSparkResult r = lz_spark_pool_steal(st->pool, &s);
    if (r == LZ_SPARK_OK) {
      take(st, &s);
      th->steals++;
      idle = 0;
    } else if (r == LZ_SPARK_ABORT) {
      th->aborts++;
    } else if (done) {
      break; /* done was set after the owner drained: empty for good */
    } else if (++idle % 64 == 0) {
      sched_yield(); /* as an idle capability would back off */
    }
  }
  return NULL;
}

static void stress_deque(size_t requested, int n_thieves, size_t items) {
  Stress st;
  memset(&st, 0, sizeof st);
  st.pool = lz_spark_pool_new(0, requested);
  st.items = items;
  st.taken = calloc(items, sizeof *st.taken);
  st.overflowed = calloc(items, 1);
  assert_non_null(st.taken);
  assert_non_null(st.overflowed);
  atomic_init(&st.done, false);
  atomic_init(&st.torn, false);
  atomic_init(&st.running, 0);
  pthread_barrier_init(&st.start, NULL, (unsigned)n_thieves + 1);
  Thief th[3];
  pthread_t tid[3];
  for (int i = 0; i < n_thieves; i++) {
    th[i] = (Thief){.st = &st};
    assert_int_equal(pthread_create(&tid[i], NULL, thief_main, &th[i]), 0);
  }
  pthread_barrier_wait(&st.start);
  while (atomic_load(&st.running) < n_thieves)
    sched_yield();
  /* the owner: bursts of pushes, then pops of part of them, so the pool is often
   * nearly empty (the owner and thieves race for the last spark) and sometimes full */
  uint64_t seed = 0x9E3779B97F4A7C15u ^ items ^ (uint64_t)n_thieves;
  LzSpark s;
  size_t i = 0;
  while (i < items) {
    bool big = requested < 64 && rnd(&seed) % 8 == 0; /* fill a small pool up */
    size_t burst = 1 + rnd(&seed) % (big ? 2 * requested + 2 : 8);
    for (size_t k = 0; k < burst && i < items; k++, i++) {
      bool ok = lz_spark_pool_push(st.pool, (LzWord)(i + 1) << 4, i + 1);
      for (int retry = 0; !ok && !big && retry < 3; retry++) {
        sched_yield(); /* a loaded machine: give the thieves a chance */
        ok = lz_spark_pool_push(st.pool, (LzWord)(i + 1) << 4, i + 1);
      }
      if (ok)
        st.pushes_ok++;
      else
        st.overflowed[i] = 1;
    }
    uint64_t r = rnd(&seed);
    if (r % 16 == 0) /* pause: let the thieves empty the pool */
      for (volatile int spin = 0; spin < 2000; spin++)
        ;
    if (r % 128 == 1) sched_yield();
    size_t pops = r % 2 ? (r >> 8) % (burst + 1) : 0;
    for (size_t k = 0; k < pops; k++)
      if (lz_spark_pool_pop(st.pool, &s) == LZ_SPARK_OK) {
        take(&st, &s);
        st.owner_pops++;
      }
  }
  while (lz_spark_pool_pop(st.pool, &s) == LZ_SPARK_OK) {
    take(&st, &s);
    st.owner_pops++;
  }
  atomic_store_explicit(&st.done, true, memory_order_release);
  uint64_t steals = 0, aborts = 0;
  for (int t = 0; t < n_thieves; t++) {
    pthread_join(tid[t], NULL);
    steals += th[t].steals;
    aborts += th[t].aborts;
  }
  assert_false(atomic_load(&st.torn));
  size_t lost = 0, dup = 0, ovf = 0, bad_ovf = 0;
  for (size_t k = 0; k < items; k++) {
    uint32_t n = atomic_load(&st.taken[k]);
    if (st.overflowed[k]) {
      ovf++;
      bad_ovf += n != 0;
    } else {
      lost += n == 0;
      dup += n > 1;
    }
  }
  if (lost || dup || bad_ovf || getenv("LZ_SPARK_BENCH"))
    print_message("deque cap %zu, %d thieves, %zu items: %" PRIu64 " pops, %" PRIu64
                  " steals, %" PRIu64 " aborted steals, %zu overflowed; lost %zu dup %zu\n",
                  (size_t)st.pool->mask + 1, n_thieves, items, st.owner_pops, steals, aborts, ovf,
                  lost, dup);
  assert_int_equal(lost, 0);
  assert_int_equal(dup, 0);
  assert_int_equal(bad_ovf, 0);
  assert_int_equal(st.pushes_ok + ovf, items);
  assert_int_equal(st.owner_pops + steals, st.pushes_ok);
  assert_int_equal(lz_spark_pool_size(st.pool), 0);
  if (requested < 64) assert_true(ovf > 0); /* the overflow path was exercised */
  pthread_barrier_destroy(&st.start);
  free(st.taken);
  free(st.overflowed);
  lz_spark_pool_free(st.pool);
}

static size_t stress_items(void) {
  return env_size("LZ_SPARK_STRESS_ITEMS", UNDER_TSAN ? 300000 : 2000000);
}

static void test_stress_1_thief(void **state) {
  (void)state;
  stress_deque(LZ_SPARK_POOL_DEFAULT, 1, stress_items());
  stress_deque(15, 1, stress_items() / 2); /* capacity 16: overflow and wrap */
}
static void test_stress_2_thieves(void **state) {
  (void)state;
  stress_deque(LZ_SPARK_POOL_DEFAULT, 2, stress_items());
  stress_deque(3, 2, stress_items() / 2); /* capacity 4 */
}
static void test_stress_3_thieves(void **state) {
  (void)state;
  stress_deque(LZ_SPARK_POOL_DEFAULT, 3, stress_items());
  stress_deque(31, 3, stress_items() / 2);
}

/* ---- stress: three capabilities creating and finding sparks --------------------------- */

#define CAPS 3
typedef struct {
  LzSparkPool *pools[CAPS];
  size_t per_cap;          /* par# calls per capability */
  Obj *objs[CAPS];         /* per capability: the objects it sparks */
  uint32_t *seq_obj[CAPS]; /* sequence number -> object index (written before the push) */
  _Atomic(uint32_t) *delivered[CAPS]; /* per object: times lz_spark_find returned it */
  atomic_uint finished;
  atomic_bool bad;
  pthread_barrier_t start;
  uint64_t by_spark[CAPS], by_parent[CAPS], duds_made[CAPS];
} Caps;

typedef struct {
  Caps *c;
  uint32_t self;
} CapArg;

static void run_spark(Caps *c, uint32_t self, const LzSpark *s) {
  uint32_t cap = LZ_SPARK_ID_CAP(s->id);
  uint64_t seq = LZ_SPARK_ID_SEQ(s->id);
  if (cap >= CAPS || seq == 0 || seq > c->per_cap) {
    atomic_store(&c->bad, true);
    return;
  }
  uint32_t k = c->seq_obj[cap][seq - 1]; /* plain read: ordered by the deque */
  if (s->closure != (LzWord)&c->objs[cap][k]) {
    atomic_store(&c->bad, true);
    return;
  }
  atomic_fetch_add_explicit(&c->delivered[cap][k], 1, memory_order_relaxed);
  if (obj_claim(&c->objs[cap][k])) c->by_spark[self]++;
}

static void *cap_main(void *arg) {
  CapArg *a = arg;
  Caps *c = a->c;
  uint32_t self = a->self;
  LzSparkPool *me = c->pools[self];
  Obj *objs = c->objs[self];
  uint64_t seed = 0x2545F4914F6CDD1Du * (self + 1);
  LzSpark s;
  uint32_t from;
  pthread_barrier_wait(&c->start);
  for (size_t i = 0; i < c->per_cap; i++) {
    /* par# on object i; one in 16 is already evaluated (a dud) */
    if (rnd(&seed) % 16 == 0) {
      obj_set(&objs[i], &con_info);
      c->duds_made[self]++;
    }
    c->seq_obj[self][i] = (uint32_t)i;
    LzSparkId id;
    lz_spark_new(me, (LzWord)&objs[i], &id);
    if (LZ_SPARK_ID_SEQ(id) != i + 1 || LZ_SPARK_ID_CAP(id) != self) atomic_store(&c->bad, true);
    /* the parent sometimes demands an earlier object itself (pseq) */
    if (i >= 8 && rnd(&seed) % 4 == 0 && obj_claim(&objs[i - 8])) c->by_parent[self]++;
    /* and sometimes runs sparks, like an idle capability would */
    if (rnd(&seed) % 3 == 0 && lz_spark_find(c->pools, CAPS, self, &s, &from))
      run_spark(c, self, &s);
  }
  atomic_fetch_add(&c->finished, 1);
  for (;;) {
    bool all = atomic_load(&c->finished) == CAPS;
    if (lz_spark_find(c->pools, CAPS, self, &s, &from))
      run_spark(c, self, &s);
    else if (all)
      break; /* nobody pushes any more and every pool was seen empty */
  }
  return NULL;
}

static void test_stress_caps(void **state) {
  (void)state;
  Caps c;
  memset(&c, 0, sizeof c);
  c.per_cap = stress_items() / 4;
  for (uint32_t i = 0; i < CAPS; i++) {
    c.pools[i] = lz_spark_pool_new(i, 255); /* small: overflows happen */
    c.objs[i] = aligned_alloc(16, c.per_cap * sizeof(Obj));
    c.seq_obj[i] = calloc(c.per_cap, sizeof(uint32_t));
    c.delivered[i] = calloc(c.per_cap, sizeof(_Atomic(uint32_t)));
    assert_non_null(c.objs[i]);
    for (size_t k = 0; k < c.per_cap; k++)
      obj_set(&c.objs[i][k], &thunk_info);
  }
  atomic_init(&c.finished, 0);
  atomic_init(&c.bad, false);
  pthread_barrier_init(&c.start, NULL, CAPS);
  pthread_t tid[CAPS];
  CapArg args[CAPS];
  for (uint32_t i = 0; i < CAPS; i++) {
    args[i] = (CapArg){&c, i};
    assert_int_equal(pthread_create(&tid[i], NULL, cap_main, &args[i]), 0);
  }
  for (uint32_t i = 0; i < CAPS; i++)
    pthread_join(tid[i], NULL);
  assert_false(atomic_load(&c.bad));
  LzSparkCounters sum;
  lz_spark_counters_sum(c.pools, CAPS, &sum);
  uint64_t delivered = 0, duds = 0, by_spark = 0;
  for (uint32_t i = 0; i < CAPS; i++) {
    duds += c.duds_made[i];
    by_spark += c.by_spark[i];
    assert_int_equal(lz_spark_pool_size(c.pools[i]), 0);
    for (size_t k = 0; k < c.per_cap; k++) {
      uint32_t n = atomic_load(&c.delivered[i][k]);
      assert_true(n <= 1); /* no spark delivered twice */
      delivered += n;
    }
  }
  if (getenv("LZ_SPARK_BENCH")) {
    char line[200];
    lz_spark_format_stats(line, sizeof line, &sum);
    print_message("%d caps x %zu par#: %s\n", CAPS, c.per_cap, line);
  }
  assert_int_equal(sum.created + sum.dud + sum.overflowed, CAPS * c.per_cap);
  assert_int_equal(sum.dud, duds);
  assert_int_equal(sum.created, sum.converted + sum.fizzled); /* pools are empty */
  assert_int_equal(sum.converted, delivered);
  assert_true(by_spark <= delivered);
  assert_int_equal(sum.gcd, 0);
  assert_true(sum.converted > 0);
  for (uint32_t i = 0; i < CAPS; i++) {
    free(c.objs[i]);
    free(c.seq_obj[i]);
    free(c.delivered[i]);
    lz_spark_pool_free(c.pools[i]);
  }
  pthread_barrier_destroy(&c.start);
}

/* ---- timings (LZ_SPARK_BENCH=1) -------------------------------------------------------- */

/* CPU time of the calling thread: on a loaded machine wall time measures the load. */
static double cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef struct {
  LzSparkPool *pool;
  atomic_bool stop;
  atomic_bool go;
  uint64_t steals, aborts, empties;
  double cpu;
} Bench;

static void *bench_thief(void *arg) {
  Bench *b = arg;
  LzSpark s;
  while (!atomic_load_explicit(&b->go, memory_order_acquire))
    ;
  double c0 = cpu_ns();
  while (!atomic_load_explicit(&b->stop, memory_order_relaxed)) {
    LzSparkResult r = lz_spark_pool_steal(b->pool, &s);
    if (r == LZ_SPARK_OK)
      b->steals++;
    else if (r == LZ_SPARK_ABORT)
      b->aborts++;
    else
      b->empties++;
  }
  while (lz_spark_pool_steal(b->pool, &s) == LZ_SPARK_OK)
    b->steals++;
  b->cpu = cpu_ns() - c0;
  return NULL;
}

/* Co-scheduled windows: owner and thief meet at a spin barrier (so both hold a CPU), the
 * owner pushes K sparks and the thief steals K; a window counts only if neither thread
 * lost its CPU meanwhile (CPU time within 5% of wall time). Reports the median. */
#define WIN_K      20000
#define WIN_TRIALS 300
typedef struct {
  LzSparkPool *pool;
  atomic_uint arrive;
  double wall[WIN_TRIALS], cpu[WIN_TRIALS];
} Win;

static void win_barrier(atomic_uint *arrive, unsigned trial) {
  atomic_fetch_add(arrive, 1);
  while (atomic_load(arrive) < 2 * (trial + 1))
    ;
}

static void *win_thief(void *arg) {
  Win *w = arg;
  LzSpark s;
  for (unsigned t = 0; t < WIN_TRIALS; t++) {
    win_barrier(&w->arrive, t);
    double w0 = now_ns(), c0 = cpu_ns();
    for (size_t got = 0; got < WIN_K;)
      got += lz_spark_pool_steal(w->pool, &s) == LZ_SPARK_OK;
    w->cpu[t] = cpu_ns() - c0;
    w->wall[t] = now_ns() - w0;
  }
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void bench_windows(LzSparkPool *p) {
  static Win w;
  memset(&w, 0, sizeof w);
  w.pool = p;
  atomic_init(&w.arrive, 0);
  pthread_t tid;
  pthread_create(&tid, NULL, win_thief, &w);
  double owner_wall[WIN_TRIALS], owner_cpu[WIN_TRIALS];
  for (unsigned t = 0; t < WIN_TRIALS; t++) {
    win_barrier(&w.arrive, t);
    double w0 = now_ns(), c0 = cpu_ns();
    for (size_t i = 0; i < WIN_K; i++)
      while (!lz_spark_pool_push(p, (i + 1) << 4, i))
        ;
    owner_cpu[t] = cpu_ns() - c0;
    owner_wall[t] = now_ns() - w0;
  }
  pthread_join(tid, NULL);
  double ns[WIN_TRIALS];
  int clean = 0;
  for (unsigned t = 0; t < WIN_TRIALS; t++)
    if (w.cpu[t] > 0.95 * w.wall[t] && owner_cpu[t] > 0.95 * owner_wall[t])
      ns[clean++] = w.wall[t] / WIN_K;
  if (!clean) {
    print_message("2 threads, co-scheduled windows: none of %d was clean\n", WIN_TRIALS);
    return;
  }
  qsort(ns, (size_t)clean, sizeof ns[0], cmp_double);
  print_message("2 threads, co-scheduled windows (%d of %d clean, %d sparks each): owner "
                "pushes, thief steals: median %.1f ns per spark = %.1f M steals/s (best %.1f ns)\n",
                clean, WIN_TRIALS, WIN_K, ns[clean / 2], 1e3 / ns[clean / 2], ns[0]);
}

/* Per operation: wall and CPU time of `body` run n times. */
#define TIME(n, wall, cpu, body)                                                                   \
  do {                                                                                             \
    double w0_ = now_ns(), c0_ = cpu_ns();                                                         \
    body;                                                                                          \
    cpu = (cpu_ns() - c0_) / (double)(n);                                                          \
    wall = (now_ns() - w0_) / (double)(n);                                                         \
  } while (0)

static void test_bench(void **state) {
  (void)state;
  if (!getenv("LZ_SPARK_BENCH")) skip();
  const size_t N = env_size("LZ_SPARK_BENCH_OPS", UNDER_TSAN ? 1000000 : 20000000);
  const size_t B = 4096, R = N / B;
  LzSparkPool *p = lz_spark_pool_new(0, LZ_SPARK_POOL_DEFAULT);
  LzSpark s;
  uint64_t sink = 0;
  double w, c;
  TIME(
      N, w, c, for (size_t i = 0; i < N; i++) {
        lz_spark_pool_push(p, (i + 1) << 4, i);
        lz_spark_pool_pop(p, &s);
        sink += s.id;
      });
  print_message("uncontended push+pop (pool stays empty): %.2f ns CPU (%.2f wall)\n", c, w);
  TIME(
      R * B, w, c, for (size_t r = 0; r < R; r++) {
        for (size_t i = 0; i < B; i++)
          lz_spark_pool_push(p, (i + 1) << 4, i);
        for (size_t i = 0; i < B; i++)
          sink += lz_spark_pool_pop(p, &s);
      });
  print_message("uncontended 4096 pushes then 4096 pops: %.2f ns CPU per push+pop (%.2f wall)\n", c,
                w);
  TIME(
      R * B, w, c, for (size_t r = 0; r < R; r++) {
        for (size_t i = 0; i < B; i++)
          lz_spark_pool_push(p, (i + 1) << 4, i);
        for (size_t i = 0; i < B; i++)
          sink += lz_spark_pool_steal(p, &s);
      });
  print_message(
      "uncontended 4096 pushes then 4096 steals: %.2f ns CPU per push+steal (%.2f wall)\n", c, w);
  static Obj o;
  obj_set(&o, &thunk_info);
  TIME(
      N, w, c, for (size_t i = 0; i < N; i++) {
        lz_spark_new(p, (LzWord)&o, NULL);
        lz_spark_pool_pop(p, &s);
      });
  print_message("uncontended lz_spark_new+pop: %.2f ns CPU (%.2f wall) [%" PRIu64 "]\n", c, w,
                sink & 1);

  /* two threads: the owner pushes M sparks (spinning while full), a thief steals them */
  const size_t M = N / 4;
  Bench b;
  memset(&b, 0, sizeof b);
  b.pool = p;
  pthread_t tid;
  pthread_create(&tid, NULL, bench_thief, &b);
  atomic_store(&b.go, true);
  uint64_t full = 0;
  TIME(
      M, w, c, for (size_t i = 0; i < M; i++) {
        while (!lz_spark_pool_push(p, (i + 1) << 4, i))
          full++;
      });
  atomic_store(&b.stop, true);
  pthread_join(tid, NULL);
  print_message("2 threads, whole run (includes time-slicing), owner pushes %zu, thief "
                "steals them: %.1f M steals/s wall "
                "(%.1f ns per spark wall; thief %.1f ns CPU per steal, owner %.1f ns CPU per "
                "push); %" PRIu64 " aborted, %" PRIu64 " empty, %" PRIu64 " full retries\n",
                M, 1e3 / w, w, b.cpu / (double)b.steals, c, b.aborts, b.empties, full);
  assert_int_equal(b.steals, M);

  /* the same in co-scheduled windows (on a loaded machine the run above mostly measures
   * time-slicing): see bench_windows */
  bench_windows(p);

  /* two threads: owner push+pop pairs while a thief keeps trying to steal */
  memset(&b, 0, sizeof b);
  b.pool = p;
  pthread_create(&tid, NULL, bench_thief, &b);
  atomic_store(&b.go, true);
  uint64_t pops = 0;
  TIME(
      M, w, c, for (size_t i = 0; i < M; i++) {
        lz_spark_pool_push(p, (i + 1) << 4, i);
        pops += lz_spark_pool_pop(p, &s) == LZ_SPARK_OK;
      });
  atomic_store(&b.stop, true);
  pthread_join(tid, NULL);
  print_message("2 threads, owner push+pop pairs against a stealing thief: %.2f ns CPU per pair "
                "(%.2f wall); owner got %" PRIu64 ", thief %" PRIu64 " (%" PRIu64 " aborted)\n",
                c, w, pops, b.steals, b.aborts);
  assert_int_equal(pops + b.steals, M);
  lz_spark_pool_free(p);
}

int main(int argc, char **argv) {
  if (argc > 1) /* a cmocka test filter, e.g. "test_stress*" */
    cmocka_set_test_filter(argv[1]);
  lz_gc_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stress_1_thief),
      cmocka_unit_test(test_stress_2_thieves),
      cmocka_unit_test(test_stress_3_thieves),
      cmocka_unit_test(test_stress_caps),
      cmocka_unit_test(test_bench),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

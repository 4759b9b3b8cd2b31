/* test_eventlog.c — unit tests of the event-log writer (rts/eventlog.c).
 *
 * Logs are written into memory through a sink (or into a file) and read back with the
 * independent decoder of eventlog_decode.h, which checks the format and the block
 * structure; the tests then check what the events say. The central test runs two
 * threads acting as capabilities 0 and 1, each posting tens of thousands of events into
 * small blocks so that many blocks go through the writer thread (and capabilities wait
 * for it), and checks every capability's events arrive complete, in order, with
 * non-decreasing timestamps and in blocks of the right capability. Run under
 * ThreadSanitizer by tests/eventlog/run-tsan.sh.
 *
 * The binary has three more modes used outside cmocka:
 *   test_eventlog --write FILE      a valid synthetic log (for the ghc-events checker)
 *   test_eventlog --write-bad FILE  a log breaking the checker's invariants
 *   test_eventlog --bench           cost per event with logging on and off
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../rts/eventlog.h"
#include "eventlog_decode.h"

/* ---- a memory sink --------------------------------------------------------------------- */

typedef struct MemSink {
  uint8_t *p;
  size_t n, cap;
  int finished;
  size_t fail_after;   /* refuse writes once this many bytes were taken (0: never) */
  unsigned slow_every; /* sleep a little every k-th write (makes capabilities wait) */
  unsigned writes;
} MemSink;

static size_t mem_sink(void *ctx, const void *bytes, size_t n) {
  MemSink *m = ctx;
  if (!bytes) {
    m->finished++;
    return 0;
  }
  if (m->fail_after && m->n + n > m->fail_after) return 0;
  if (m->slow_every && ++m->writes % m->slow_every == 0) usleep(200);
  if (m->n + n > m->cap) {
    m->cap = (m->n + n) * 2;
    m->p = realloc(m->p, m->cap);
  }
  memcpy(m->p + m->n, bytes, n);
  m->n += n;
  return n;
}

static LzEvOptions mem_options(MemSink *m) {
  LzEvOptions o = {0};
  o.sink = mem_sink;
  o.sink_ctx = m;
  return o;
}

static DecLog *decode_ok(MemSink *m) {
  DecLog *log = dec_log(m->p, m->n);
  if (log->err[0]) fail_msg("decode: %s", log->err);
  assert_true(log->data_end);
  return log;
}

static char *prog_argv[] = {"prog", "+RTS", "-l", "-RTS", "x y", NULL};

/* ---- the synthetic workload of one capability ------------------------------------------
 * Per 10 iterations: sparks created 6 (2 run, 1 fizzled, 1 GC'd, 1 stolen by the other
 * capability, 1 left), 1 dud, 1 overflowed; this capability steals 1 from the other. So
 * each capability's counters satisfy created = converted + fizzled + gcd + remaining. */
#define CUSTOM_FIXED 1000
#define CUSTOM_VAR   1001
static const LzEvType custom_types[] = {
    {CUSTOM_FIXED, 8, "Lz test: sequence number (cap u16, pad u16, seq u32)"},
    {CUSTOM_VAR, LZ_EV_VAR, "Lz test: variable payload"},
};

typedef struct Expect {
  size_t threads, stops, sparks_created, sparks_run, steals, fizzles, gcs, duds, overflows,
      gc_pairs, msgs, markers, customs;
} Expect;

static Expect synth_expect(int n) {
  Expect e = {0};
  for (int k = 0; k < n; k++) {
    int m = k % 10;
    e.threads++;
    e.stops++;
    e.sparks_created += m <= 5;
    e.sparks_run += m <= 1;
    e.fizzles += m == 2;
    e.gcs += m == 3;
    e.steals += m == 4;
    e.duds += m == 6;
    e.overflows += m == 7;
    e.gc_pairs += k % 50 == 0;
    e.msgs += k % 100 == 0;
    e.markers += k % 500 == 0;
    e.customs++;
  }
  return e;
}

static void synth_cap(LzEvBuf *eb, unsigned cap, int n) {
  LzEvSparkCounters sc = {0};
  uint64_t alloc = 0;
  for (int k = 0; k < n; k++) {
    uint32_t tid = cap * 1000000u + (uint32_t)k + 1;
    int m = k % 10;
    lz_ev_create_thread(eb, tid);
    lz_ev_thread_runnable(eb, tid);
    lz_ev_run_thread(eb, tid);
    if (m <= 5) {
      lz_ev_spark_create(eb);
      sc.created++;
    }
    switch (m) {
    case 0:
    case 1:
      lz_ev_spark_run(eb);
      sc.converted++;
      break;
    case 2:
      lz_ev_spark_fizzle(eb);
      sc.fizzled++;
      break;
    case 3:
      lz_ev_spark_gc(eb);
      sc.gcd++;
      break;
    case 4:
      lz_ev_spark_steal(eb, (uint16_t)(1 - cap));
      sc.converted++;
      break;
    case 5: sc.remaining++; break;
    case 6:
      lz_ev_spark_dud(eb);
      sc.dud++;
      break;
    case 7:
      lz_ev_spark_overflow(eb);
      sc.overflowed++;
      break;
    default: break;
    }
    uint8_t pl[8];
    lz_ev_put32(lz_ev_put16(lz_ev_put16(pl, (uint16_t)cap), 0), (uint32_t)k);
    assert_int_equal(lz_event_custom(eb, CUSTOM_FIXED, pl, 8), 0);
    if (k % 50 == 0) {
      lz_ev_request_seq_gc(eb);
      lz_ev_gc_start(eb);
      lz_ev_gc_work(eb);
      lz_ev_gc_done(eb);
      lz_ev_gc_end(eb);
      alloc += 1u << 20;
      lz_ev_heap_allocated(eb, alloc);
      lz_ev_heap_size(eb, 8u << 20);
      lz_ev_heap_live(eb, alloc / 3);
    }
    if (k % 100 == 0) {
      char msg[64];
      snprintf(msg, sizeof msg, "cap %u iteration %d: \xce\xbb", cap, k);
      lz_ev_user_msg(eb, msg, strlen(msg));
    }
    if (k % 500 == 0) lz_ev_user_marker(eb, "phase", 5);
    uint16_t status = m == 8   ? LZ_EV_STOP_BLOCKED_ON_BLACKHOLE
                      : m == 9 ? LZ_EV_STOP_YIELDING
                               : LZ_EV_STOP_FINISHED;
    lz_ev_stop_thread(eb, tid, status, m == 8 ? tid - 1 : 0);
  }
  lz_ev_spark_counters(eb, &sc);
}

typedef struct Worker {
  unsigned cap;
  int n;
} Worker;

static void *worker_main(void *arg) {
  Worker *w = arg;
  synth_cap(lz_ev_cap_buf(w->cap), w->cap, w->n);
  return NULL;
}

/* Two OS threads as capabilities 0 and 1, then (all joined) thread 1 of capability 0
 * migrates to capability 1 and finishes there. */
static void synth_two_caps(int n) {
  pthread_t t[2];
  Worker w[2] = {{0, n}, {1, n}};
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  LzEvBuf *c0 = lz_ev_cap_buf(0), *c1 = lz_ev_cap_buf(1);
  lz_ev_create_thread(c0, 7);
  lz_ev_thread_label(c0, 7, "migrant");
  lz_ev_run_thread(c0, 7);
  lz_ev_stop_thread(c0, 7, LZ_EV_STOP_YIELDING, 0);
  lz_ev_migrate_thread(c0, 7, 1);
  lz_ev_thread_wakeup(c0, 7, 1);
  lz_ev_run_thread(c1, 7);
  lz_ev_stop_thread(c1, 7, LZ_EV_STOP_FINISHED, 0);
  LzEvBuf *g = lz_ev_global_begin();
  lz_ev_heap_info(g, 1, 0, 4u << 20, 1u << 20, 4096);
  lz_ev_log_msg(g, "synthetic log", 13);
  lz_ev_global_end(g);
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_off(void **state) {
  (void)state;
  assert_false(lz_eventlog_is_open());
  assert_null(lz_ev_cap_buf(0));
  assert_null(lz_ev_global_begin());
  /* every event function accepts the NULL buffer of logging-off */
  lz_ev_run_thread(NULL, 1);
  lz_ev_stop_thread(NULL, 1, LZ_EV_STOP_FINISHED, 0);
  lz_ev_spark_counters(NULL, &(LzEvSparkCounters){0});
  lz_ev_user_msg(NULL, "x", 1);
  lz_ev_thread_label(NULL, 1, "x");
  lz_ev_heap_info(NULL, 1, 0, 0, 0, 0);
  lz_ev_flush(NULL);
  assert_int_equal(lz_event_custom(NULL, LZ_EVT_RUN_THREAD, "abcd", 4), -1);
  assert_int_equal(lz_eventlog_close(), 0);
}

static void test_open_errors(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  errno = 0;
  assert_int_equal(lz_eventlog_open("/nonexistent-dir/x.eventlog", 1, 1, prog_argv, NULL), -1);
  assert_int_equal(errno, ENOENT);
  assert_int_equal(lz_eventlog_open(NULL, 0, 1, prog_argv, &o), -1);
  assert_int_equal(errno, EINVAL);
  LzEvType bad[][1] = {{{999, 4, "below the Lz range"}},
                       {{2048, 4, "above the range"}},
                       {{LZ_EVT_RUN_THREAD, 4, "a GHC number"}},
                       {{1000, 300, "too big"}},
                       {{1000, 4, NULL}}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o.types = bad[i];
    o.ntypes = 1;
    assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), -1);
    assert_int_equal(errno, EINVAL);
  }
  LzEvType twice[] = {{1000, 4, "a"}, {1000, 4, "b"}};
  o.types = twice;
  o.ntypes = 2;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), -1);
  assert_false(lz_eventlog_is_open());
  o.types = NULL;
  o.ntypes = 0;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), 0);
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), -1);
  assert_int_equal(errno, EBUSY);
  assert_int_equal(lz_eventlog_close(), 0);
  free(m.p);
}

/* The header declares GHC's types with GHC's sizes; open and close post the process
 * events GHC posts, in global blocks. */
static void test_header_and_process_events(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  char *envp[] = {"A=1", "B=\xff", NULL};
  char *argv[] = {"prog", "a b", "bad\xc0\xaf", "\xce\xbb"};
  o.envp = envp;
  o.rts_id = "Lz-test rts";
  assert_int_equal(lz_eventlog_open(NULL, 3, 4, argv, &o), 0);
  assert_true(lz_eventlog_is_open());
  assert_non_null(lz_ev_cap_buf(2));
  assert_null(lz_ev_cap_buf(3));
  assert_int_equal(lz_ev_classes, LZ_EVC_DEFAULT);
  assert_int_equal(lz_eventlog_close(), 0);
  assert_int_equal(m.finished, 1);
  assert_int_equal(lz_ev_classes, 0);
  DecLog *log = decode_ok(&m);

  struct {
    uint16_t num;
    int32_t size;
    const char *desc;
  } want[] = {{0, 4, "Create thread"},
              {1, 4, "Run thread"},
              {2, 10, "Stop thread"},
              {3, 4, NULL},
              {4, 6, NULL},
              {8, 6, NULL},
              {9, 0, "Starting GC"},
              {10, 0, NULL},
              {15, 4, NULL},
              {16, 0xffff, NULL},
              {18, 14, "Block marker"},
              {19, 0xffff, NULL},
              {25, 6, NULL},
              {27, 6, NULL},
              {29, 0xffff, NULL},
              {30, 0xffff, NULL},
              {32, 8, NULL},
              {34, 56, "Spark counters"},
              {35, 0, NULL},
              {39, 2, NULL},
              {41, 0, NULL},
              {43, 16, NULL},
              {44, 0xffff, NULL},
              {45, 2, NULL},
              {49, 12, NULL},
              {52, 38, NULL},
              {58, 0xffff, NULL},
              {59, 0, "Empty event for bug #9003"}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    assert_int_equal(log->size[want[i].num], want[i].size);
    if (want[i].desc) assert_string_equal(log->desc[want[i].num], want[i].desc);
  }
  assert_int_equal(log->size[1000], -1);

  for (size_t i = 0; i < log->nev; i++)
    assert_int_equal(log->ev[i].cap, -1); /* all in global blocks */
  assert_int_equal(dec_count(log, LZ_EVT_CAPSET_CREATE, -2), 2);
  assert_int_equal(dec_count(log, LZ_EVT_CAP_CREATE, -2), 3);
  assert_int_equal(dec_count(log, LZ_EVT_CAPSET_ASSIGN_CAP, -2), 6);
  assert_int_equal(dec_count(log, LZ_EVT_CAPSET_REMOVE_CAP, -2), 6);
  assert_int_equal(dec_count(log, LZ_EVT_CAP_DELETE, -2), 3);
  assert_int_equal(dec_count(log, LZ_EVT_CAPSET_DELETE, -2), 2);
  const DecEvent *e = dec_find(log, LZ_EVT_CAP_CREATE, 2);
  assert_int_equal(dec_be(e->payload, 2), 2);
  e = dec_find(log, LZ_EVT_CAPSET_CREATE, 0);
  assert_int_equal(dec_be(e->payload, 4), 0);
  assert_int_equal(dec_be(e->payload + 4, 2), 2); /* OS process */
  e = dec_find(log, LZ_EVT_OSPROCESS_PID, 0);
  assert_int_equal(dec_be(e->payload + 4, 4), (uint64_t)getpid());
  e = dec_find(log, LZ_EVT_OSPROCESS_PPID, 0);
  assert_int_equal(dec_be(e->payload + 4, 4), (uint64_t)getppid());
  e = dec_find(log, LZ_EVT_WALL_CLOCK_TIME, 0);
  assert_int_equal(dec_be(e->payload, 4), 1);
  assert_true(dec_be(e->payload + 4, 8) > 1600000000u);
  assert_true(dec_be(e->payload + 12, 4) < 1000000000u);
  e = dec_find(log, LZ_EVT_RTS_IDENTIFIER, 0);
  assert_int_equal(e->len, 4 + 11);
  assert_memory_equal(e->payload + 4, "Lz-test rts", 11);
  /* arguments NUL-terminated, invalid UTF-8 (an overlong '/') as '?' */
  e = dec_find(log, LZ_EVT_PROGRAM_ARGS, 0);
  static const char args[] = "prog\0a b\0bad??\0\xce\xbb";
  assert_int_equal(e->len, 4 + sizeof args);
  assert_memory_equal(e->payload + 4, args, sizeof args);
  e = dec_find(log, LZ_EVT_PROGRAM_ENV, 0);
  assert_int_equal(e->len, 4 + 8);
  assert_memory_equal(e->payload + 4, "A=1\0B=?", 8);
  /* order: the capsets exist before capabilities are assigned to them */
  assert_true(dec_find(log, LZ_EVT_CAPSET_CREATE, 1) < dec_find(log, LZ_EVT_CAPSET_ASSIGN_CAP, 0));
  for (size_t i = 1; i < log->nev; i++)
    assert_true(log->ev[i - 1].ts <= log->ev[i].ts);
  dec_free(log);
  free(m.p);
}

static void check_sorted_per_cap(const DecLog *log) {
  uint64_t last[3] = {0, 0, 0};
  for (size_t i = 0; i < log->nev; i++) {
    int c = log->ev[i].cap + 1;
    assert_in_range(c, 0, 2);
    assert_true(log->ev[i].ts >= last[c]);
    last[c] = log->ev[i].ts;
  }
}

/* The central test: two capabilities in two threads, small blocks, a slow sink. */
static void test_two_capabilities(void **state) {
  (void)state;
  enum { N = 4000 };
  MemSink m = {0};
  m.slow_every = 7;
  LzEvOptions o = mem_options(&m);
  o.chunk_bytes = 1024;
  o.max_chunks = 5;
  o.types = custom_types;
  o.ntypes = 2;
  o.classes = LZ_EVC_ALL;
  assert_int_equal(lz_eventlog_open(NULL, 2, 5, prog_argv, &o), 0);
  synth_two_caps(N);
  LzEvStats st = lz_eventlog_stats();
  assert_int_equal(lz_eventlog_close(), 0);
  DecLog *log = decode_ok(&m);
  LzEvStats after = lz_eventlog_stats();
  assert_int_equal(after.bytes, m.n);
  assert_true(after.chunks >= st.chunks);
  assert_int_equal(after.chunks, log->nblocks);
  assert_true(log->nblocks > 2 * 300); /* ~1 KiB blocks, ~370 KiB per capability */
  check_sorted_per_cap(log);

  Expect e = synth_expect(N);
  for (int cap = 0; cap < 2; cap++) {
    assert_int_equal(dec_count(log, LZ_EVT_CREATE_THREAD, cap), e.threads + (cap == 0));
    assert_int_equal(dec_count(log, LZ_EVT_RUN_THREAD, cap), e.threads + 1);
    assert_int_equal(dec_count(log, LZ_EVT_STOP_THREAD, cap), e.stops + 1);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_CREATE, cap), e.sparks_created);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_RUN, cap), e.sparks_run);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_STEAL, cap), e.steals);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_FIZZLE, cap), e.fizzles);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_GC, cap), e.gcs);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_DUD, cap), e.duds);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_OVERFLOW, cap), e.overflows);
    assert_int_equal(dec_count(log, LZ_EVT_GC_START, cap), e.gc_pairs);
    assert_int_equal(dec_count(log, LZ_EVT_HEAP_LIVE, cap), e.gc_pairs);
    assert_int_equal(dec_count(log, LZ_EVT_USER_MSG, cap), e.msgs);
    assert_int_equal(dec_count(log, LZ_EVT_USER_MARKER, cap), e.markers);
    assert_int_equal(dec_count(log, CUSTOM_FIXED, cap), e.customs);
    assert_int_equal(dec_count(log, LZ_EVT_SPARK_COUNTERS, cap), 1);
  }
  assert_int_equal(dec_count(log, LZ_EVT_MIGRATE_THREAD, 0), 1);
  assert_int_equal(dec_count(log, LZ_EVT_THREAD_LABEL, 0), 1);
  assert_int_equal(dec_count(log, LZ_EVT_HEAP_INFO_GHC, -1), 1);
  assert_int_equal(dec_count(log, LZ_EVT_LOG_MSG, -1), 1);

  /* every sequence number once, in order, in a block of the capability that posted it */
  int next[2] = {0, 0};
  for (size_t i = 0; i < log->nev; i++) {
    const DecEvent *ev = &log->ev[i];
    if (ev->type == CUSTOM_FIXED) {
      int cap = (int)dec_be(ev->payload, 2);
      assert_int_equal(ev->cap, cap);
      assert_int_equal(dec_be(ev->payload + 4, 4), (uint64_t)next[cap]);
      next[cap]++;
    } else if (ev->type == LZ_EVT_STOP_THREAD) {
      uint64_t tid = dec_be(ev->payload, 4), status = dec_be(ev->payload + 4, 2);
      if (status == LZ_EV_STOP_BLOCKED_ON_BLACKHOLE)
        assert_int_equal(dec_be(ev->payload + 6, 4), tid - 1);
      else
        assert_int_equal(dec_be(ev->payload + 6, 4), 0);
    } else if (ev->type == LZ_EVT_SPARK_COUNTERS) {
      const uint8_t *p = ev->payload;
      uint64_t crt = dec_be(p, 8), cnv = dec_be(p + 24, 8), gcd = dec_be(p + 32, 8),
               fiz = dec_be(p + 40, 8), rem = dec_be(p + 48, 8);
      assert_int_equal(crt, e.sparks_created);
      assert_int_equal(crt, cnv + gcd + fiz + rem);
      assert_int_equal(cnv, e.sparks_run + e.steals);
      assert_int_equal(dec_be(p + 8, 8), e.duds);
      assert_int_equal(dec_be(p + 16, 8), e.overflows);
    }
  }
  assert_int_equal(next[0], N);
  assert_int_equal(next[1], N);
  const DecEvent *ev = dec_find(log, LZ_EVT_THREAD_LABEL, 0);
  assert_int_equal(ev->len, 4 + 7);
  assert_memory_equal(ev->payload + 4, "migrant", 7);
  ev = dec_find(log, LZ_EVT_MIGRATE_THREAD, 0);
  assert_int_equal(dec_be(ev->payload, 4), 7);
  assert_int_equal(dec_be(ev->payload + 4, 2), 1);
  dec_free(log);
  free(m.p);
}

/* A writer that cannot keep up: one chunk beyond each buffer's own, and a slow sink.
 * Nothing is lost; the capabilities waited. */
static void test_backpressure(void **state) {
  (void)state;
  MemSink m = {0};
  m.slow_every = 1;
  LzEvOptions o = mem_options(&m);
  o.chunk_bytes = 1024;
  o.max_chunks = 1; /* raised to ncaps + 3 */
  o.types = custom_types;
  o.ntypes = 2;
  assert_int_equal(lz_eventlog_open(NULL, 2, 1, prog_argv, &o), 0);
  synth_two_caps(600);
  assert_int_equal(lz_eventlog_close(), 0);
  LzEvStats st = lz_eventlog_stats();
  assert_true(st.waits > 0);
  DecLog *log = decode_ok(&m);
  assert_int_equal(dec_count(log, CUSTOM_FIXED, -2), 1200);
  check_sorted_per_cap(log);
  dec_free(log);
  free(m.p);
}

static void test_custom_events(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  o.chunk_bytes = 1024;
  o.types = custom_types;
  o.ntypes = 2;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), 0);
  LzEvBuf *eb = lz_ev_cap_buf(0);
  uint8_t big[2000] = {0};
  size_t max = lz_ev_max_var_payload();
  assert_int_equal(max, 1024 - 24 - 12);
  assert_int_equal(lz_event_custom(eb, CUSTOM_FIXED, "12345678", 8), 0);
  assert_int_equal(lz_event_custom(eb, CUSTOM_FIXED, "1234567", 7), -1);
  assert_int_equal(lz_event_custom(eb, CUSTOM_VAR, "", 0), 0);
  assert_int_equal(lz_event_custom(eb, CUSTOM_VAR, "abc", 3), 0);
  assert_int_equal(lz_event_custom(eb, CUSTOM_VAR, big, max), 0);
  assert_int_equal(lz_event_custom(eb, CUSTOM_VAR, big, max + 1), -1);
  assert_int_equal(lz_event_custom(eb, 1002, "x", 1), -1);                 /* undeclared */
  assert_int_equal(lz_event_custom(eb, LZ_EVT_BLOCK_MARKER, big, 14), -1); /* reserved */
  assert_int_equal(lz_event_custom(eb, 60000, "x", 1), -1);
  assert_int_equal(lz_event_custom(eb, LZ_EVT_RUN_THREAD, "\0\0\0\x2a", 4), 0); /* GHC type */
  /* hot-path form of a custom fixed event */
  lz_ev_put32(lz_ev_begin(eb, CUSTOM_FIXED, 8), 0x01020304);
  assert_int_equal(lz_eventlog_close(), 0);
  DecLog *log = decode_ok(&m);
  assert_int_equal(log->size[CUSTOM_FIXED], 8);
  assert_int_equal(log->size[CUSTOM_VAR], 0xffff);
  assert_string_equal(log->desc[CUSTOM_VAR], "Lz test: variable payload");
  assert_int_equal(dec_count(log, CUSTOM_FIXED, 0), 2);
  assert_int_equal(dec_count(log, CUSTOM_VAR, 0), 3);
  assert_memory_equal(dec_find(log, CUSTOM_FIXED, 0)->payload, "12345678", 8);
  assert_int_equal(dec_be(dec_find(log, CUSTOM_FIXED, 1)->payload, 4), 0x01020304);
  assert_int_equal(dec_find(log, CUSTOM_VAR, 0)->len, 0);
  assert_memory_equal(dec_find(log, CUSTOM_VAR, 1)->payload, "abc", 3);
  assert_int_equal(dec_find(log, CUSTOM_VAR, 2)->len, max);
  assert_int_equal(dec_be(dec_find(log, LZ_EVT_RUN_THREAD, 0)->payload, 4), 42);
  dec_free(log);
  free(m.p);
}

/* Is s[0..n) well-formed UTF-8? (independent of the writer's checker) */
static bool valid_utf8(const uint8_t *s, size_t n) {
  for (size_t i = 0; i < n;) {
    uint32_t c = s[i];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!k || i + k > n) return false;
    uint32_t cp = k == 1 ? c : c & (0x7f >> k);
    for (size_t j = 1; j < k; j++) {
      if ((s[i + j] & 0xc0) != 0x80) return false;
      cp = cp << 6 | (s[i + j] & 0x3f);
    }
    static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += k;
  }
  return true;
}

static void test_text(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  o.chunk_bytes = 1024;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), 0);
  LzEvBuf *eb = lz_ev_cap_buf(0);
  /* overlong, surrogate, above U+10FFFF, stray continuation, truncated sequence */
  static const char bad[] = "a\xc0\x80"
                            "b\xed\xa0\x80"
                            "c\xf4\x90\x80\x80"
                            "d\x80"
                            "e\xe2\x82";
  lz_ev_user_msg(eb, bad, sizeof bad - 1);
  static const char good[] = "\xe2\x82\xac \xf0\x9f\x98\x80 \xed\x9f\xbf \xf4\x8f\xbf\xbf";
  lz_ev_user_marker(eb, good, sizeof good - 1);
  char longtext[3000];
  for (size_t i = 0; i < sizeof longtext; i += 3)
    memcpy(longtext + i, "\xe2\x82\xac", 3); /* 1000 euro signs */
  lz_ev_log_msg(eb, longtext, sizeof longtext);
  lz_ev_thread_label(eb, 9, NULL);
  lz_ev_user_msg(eb, "", 0);
  assert_int_equal(lz_eventlog_close(), 0);
  DecLog *log = decode_ok(&m);
  const DecEvent *e = dec_find(log, LZ_EVT_USER_MSG, 0);
  static const char fixed[] = "a??b???c????d?e??";
  assert_int_equal(e->len, sizeof fixed - 1);
  assert_memory_equal(e->payload, fixed, sizeof fixed - 1);
  e = dec_find(log, LZ_EVT_USER_MARKER, 0);
  assert_int_equal(e->len, sizeof good - 1);
  assert_memory_equal(e->payload, good, sizeof good - 1);
  e = dec_find(log, LZ_EVT_LOG_MSG, 0);
  size_t max = lz_ev_max_var_payload();
  assert_true(e->len <= max && e->len > max - 3 && e->len % 3 == 0);
  assert_true(valid_utf8(e->payload, e->len));
  e = dec_find(log, LZ_EVT_THREAD_LABEL, 0);
  assert_int_equal(e->len, 4);
  assert_int_equal(dec_find(log, LZ_EVT_USER_MSG, 1)->len, 0);
  for (size_t i = 0; i < log->nev; i++)
    if (log->size[log->ev[i].type] == 0xffff)
      assert_true(valid_utf8(log->ev[i].payload, log->ev[i].len));
  dec_free(log);
  free(m.p);
}

static void test_flush_and_file(void **state) {
  (void)state;
  char path[] = "/tmp/lz-eventlog-test-XXXXXX";
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
  assert_int_equal(lz_eventlog_open(path, 2, 5, prog_argv, NULL), 0);
  LzEvBuf *eb = lz_ev_cap_buf(1);
  lz_ev_create_thread(eb, 1);
  lz_ev_flush(eb);
  lz_ev_flush(eb); /* empty block: nothing to hand over */
  lz_ev_run_thread(eb, 1);
  lz_ev_stop_thread(eb, 1, LZ_EV_STOP_FINISHED, 0);
  assert_int_equal(lz_eventlog_close(), 0);
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  MemSink m = {0};
  m.p = malloc(1 << 20);
  m.n = fread(m.p, 1, 1 << 20, f);
  fclose(f);
  unlink(path);
  assert_true(m.n > 2 && m.p[m.n - 2] == 0xff && m.p[m.n - 1] == 0xff);
  DecLog *log = decode_ok(&m);
  /* capability 1: one block with the flushed event, one with the rest */
  assert_int_equal(dec_count(log, LZ_EVT_CREATE_THREAD, 1), 1);
  assert_int_equal(dec_count(log, LZ_EVT_RUN_THREAD, 1), 1);
  assert_int_equal(log->nblocks, 3); /* global, and two of capability 1 (0 had none) */
  dec_free(log);
  free(m.p);
}

/* Two time units (recordings: Note [Replay log encoding]): the fine types' times are
 * multiples of the fine unit, the others' of the coarse one or equal to the previous
 * event's; per capability never decreasing (the decoder checks each block's range). */
static void test_time_units(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  o.time_unit_ns = 256;
  o.coarse_unit_ns = 100;
  assert_int_equal(lz_eventlog_open(NULL, 2, 1, prog_argv, &o), -1); /* not a power of 2 */
  o.coarse_unit_ns = 128;
  assert_int_equal(lz_eventlog_open(NULL, 2, 1, prog_argv, &o), -1); /* finer than the unit */
  const uint16_t fine[] = {LZ_EVT_THREAD_WAKEUP};
  o.coarse_unit_ns = 4096;
  o.fine_types = fine;
  o.nfine = 1;
  o.chunk_bytes = 4096; /* many blocks: their markers follow the same rules */
  assert_int_equal(lz_eventlog_open(NULL, 2, 1, prog_argv, &o), 0);
  volatile unsigned spin = 0;
  for (uint32_t i = 0; i < 3000; i++) {
    LzEvBuf *eb = lz_ev_cap_buf(i % 2);
    lz_ev_run_thread(eb, i);
    for (unsigned k = 0; k < (i * 7919u) % 400; k++)
      spin++;
    lz_ev_thread_wakeup(eb, i, 1);
    lz_ev_stop_thread(eb, i, LZ_EV_STOP_FINISHED, 0);
  }
  assert_int_equal(lz_eventlog_close(), 0);
  DecLog *log = decode_ok(&m);
  size_t fine_only = 0, repeated = 0;
  for (int cap = 0; cap < 2; cap++) {
    uint64_t prev = 0;
    for (size_t i = 0; i < log->nev; i++) {
      const DecEvent *e = &log->ev[i];
      if (e->cap != cap) continue;
      assert_true(e->ts >= prev);
      if (e->type == LZ_EVT_THREAD_WAKEUP) {
        assert_int_equal(e->ts % 256, 0);
        fine_only += e->ts % 4096 != 0;
      } else {
        assert_true(e->ts % 4096 == 0 || e->ts == prev);
        repeated += e->ts % 4096 != 0;
      }
      prev = e->ts;
    }
  }
  assert_true(fine_only > 0); /* the fine unit is kept (15 in 16 times are not coarse) */
  assert_true(repeated > 0);  /* and a coarse event after a fine one repeats its time */
  dec_free(log);
  free(m.p);
}

/* lz_ev_flush_idle hands a block over only once its first event is old enough. */
static void test_flush_idle(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), 0);
  LzEvBuf *eb = lz_ev_cap_buf(0);
  lz_ev_flush_idle(eb); /* empty */
  lz_ev_run_thread(eb, 1);
  lz_ev_flush_idle(eb); /* too recent: kept */
  usleep((useconds_t)(LZ_EV_IDLE_FLUSH_NS / 1000 + 5000));
  lz_ev_run_thread(eb, 2);
  lz_ev_flush_idle(eb); /* the first event is old: both go */
  lz_ev_run_thread(eb, 3);
  assert_int_equal(lz_eventlog_close(), 0);
  DecLog *log = decode_ok(&m);
  assert_int_equal(log->nblocks, 3); /* global, and capability 0's {1, 2} and {3} */
  assert_int_equal(dec_count(log, LZ_EVT_RUN_THREAD, 0), 3);
  dec_free(log);
  free(m.p);
}

static void test_sink_failure(void **state) {
  (void)state;
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  m.fail_after = 1;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), -1); /* header refused */
  assert_int_equal(errno, EIO);
  assert_int_equal(m.finished, 1);
  MemSink m2 = {0};
  o = mem_options(&m2);
  o.chunk_bytes = 1024;
  m2.fail_after = 3000;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), 0);
  for (uint32_t i = 0; i < 1000; i++)
    lz_ev_run_thread(lz_ev_cap_buf(0), i);
  assert_int_equal(lz_eventlog_close(), -1);
  assert_int_equal(m2.finished, 1);
  free(m.p);
  free(m2.p);
}

static void test_classes(void **state) {
  (void)state;
  uint32_t mask = LZ_EVC_DEFAULT;
  assert_true(lz_eventlog_parse_classes("f", &mask));
  assert_int_equal(mask, LZ_EVC_DEFAULT | LZ_EVC_SPARKS_FULL);
  assert_true(lz_eventlog_parse_classes("-g-s", &mask));
  assert_int_equal(mask, LZ_EVC_SPARKS | LZ_EVC_SPARKS_FULL | LZ_EVC_USER);
  assert_true(lz_eventlog_parse_classes("a-u", &mask));
  assert_int_equal(mask, LZ_EVC_ALL & ~(uint32_t)LZ_EVC_USER);
  assert_true(lz_eventlog_parse_classes("-a", &mask));
  assert_int_equal(mask, 0);
  assert_true(lz_eventlog_parse_classes("n", &mask));
  assert_false(lz_eventlog_parse_classes("x", &mask));
  assert_false(lz_eventlog_parse_classes("-", &mask));
  MemSink m = {0};
  LzEvOptions o = mem_options(&m);
  o.classes = LZ_EVC_USER;
  assert_int_equal(lz_eventlog_open(NULL, 1, 1, prog_argv, &o), 0);
  assert_true(lz_ev_on(LZ_EVC_USER));
  assert_false(lz_ev_on(LZ_EVC_SPARKS_FULL | LZ_EVC_SCHED));
  assert_int_equal(lz_eventlog_close(), 0);
  assert_false(lz_ev_on(LZ_EVC_USER));
  free(m.p);
}

/* ---- modes outside cmocka --------------------------------------------------------------- */

static int write_log(const char *path, bool bad) {
  LzEvOptions o = {0};
  o.chunk_bytes = 4096;
  o.types = custom_types;
  o.ntypes = 2;
  o.classes = LZ_EVC_ALL;
  if (lz_eventlog_open(path, 2, 5, prog_argv, &o) != 0) {
    perror(path);
    return 1;
  }
  synth_two_caps(3000);
  if (bad) {
    /* a thread that runs without having been created, a stop with no thread running,
     * and spark counters of capability 1 that do not add up (one fizzle too many) */
    LzEvBuf *eb = lz_ev_cap_buf(1);
    lz_ev_run_thread(eb, 424242);
    lz_ev_stop_thread(eb, 424242, LZ_EV_STOP_FINISHED, 0);
    lz_ev_stop_thread(eb, 5, LZ_EV_STOP_FINISHED, 0);
    lz_ev_spark_counters(eb, &(LzEvSparkCounters){5, 0, 0, 3, 1, 2, 0});
  }
  return lz_eventlog_close() == 0 ? 0 : 1;
}

static size_t null_sink(void *ctx, const void *bytes, size_t n) {
  (void)ctx;
  (void)bytes;
  return n;
}

static double now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* What the scheduler does: the buffer pointer is a field of the capability, reloaded
 * each time (the barrier keeps the compiler from hoisting the NULL test). */
typedef struct BenchCap {
  LzEvBuf *ev;
  uint64_t work;
} BenchCap;

static double bench_loop(BenchCap *cap, long n, int mode) {
  double t0 = now_sec();
  for (long i = 0; i < n; i++) {
    __asm__ volatile("" : : "r"(cap) : "memory");
    if (mode == 1)
      lz_ev_run_thread(cap->ev, (uint32_t)i);
    else if (mode == 2)
      lz_ev_stop_thread(cap->ev, (uint32_t)i, LZ_EV_STOP_YIELDING, 0);
    else if (mode == 3)
      cap->work += lz_ev_now();
    cap->work++;
  }
  return (now_sec() - t0) / (double)n * 1e9;
}

typedef struct BenchWorker {
  unsigned cap;
  long n;
  double ns;
} BenchWorker;

static void *bench_worker(void *arg) {
  BenchWorker *w = arg;
  BenchCap cap = {lz_ev_cap_buf(w->cap), 0};
  w->ns = bench_loop(&cap, w->n, 1);
  return NULL;
}

static int bench(void) {
  enum { N = 20000000 };
  BenchCap cap = {NULL, 0};
  double base = bench_loop(&cap, N, 0);
  double off_run = bench_loop(&cap, N, 1);
  double off_stop = bench_loop(&cap, N, 2);
  LzEvOptions o = {0};
  o.sink = null_sink;
  if (lz_eventlog_open(NULL, 1, 1, prog_argv, &o) != 0) return 1;
  cap.ev = lz_ev_cap_buf(0);
  double clock = bench_loop(&cap, N, 3);
  double on_run = bench_loop(&cap, N, 1);
  double on_stop = bench_loop(&cap, N, 2);
  lz_eventlog_close();
  LzEvStats st = lz_eventlog_stats();
  /* two capabilities at once (own buffers: nothing shared but the queue) */
  if (lz_eventlog_open(NULL, 2, 1, prog_argv, &o) != 0) return 1;
  BenchWorker w[2] = {{0, N / 2, 0}, {1, N / 2, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, bench_worker, &w[i]);
  for (int i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  lz_eventlog_close();
  printf("loop overhead              %6.2f ns/iteration\n", base);
  printf("off: run_thread            %6.2f ns/event (+%.2f)\n", off_run, off_run - base);
  printf("off: stop_thread           %6.2f ns/event (+%.2f)\n", off_stop, off_stop - base);
  printf("clock_gettime(MONOTONIC)   %6.2f ns/call  (+%.2f)\n", clock, clock - base);
  printf("on:  run_thread  (14 B)    %6.2f ns/event (+%.2f)\n", on_run, on_run - base);
  printf("on:  stop_thread (20 B)    %6.2f ns/event (+%.2f)\n", on_stop, on_stop - base);
  printf("on:  run_thread, 2 threads  %6.2f and %.2f ns/event\n", w[0].ns, w[1].ns);
  printf("(one thread: %llu blocks, %llu bytes, %llu waits for the writer)\n",
         (unsigned long long)st.chunks, (unsigned long long)st.bytes, (unsigned long long)st.waits);
  return cap.work == 42; /* keep `work` alive */
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--write")) return write_log(argv[2], false);
  if (argc == 3 && !strcmp(argv[1], "--write-bad")) return write_log(argv[2], true);
  if (argc == 2 && !strcmp(argv[1], "--bench")) return bench();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_off),
      cmocka_unit_test(test_open_errors),
      cmocka_unit_test(test_header_and_process_events),
      cmocka_unit_test(test_two_capabilities),
      cmocka_unit_test(test_backpressure),
      cmocka_unit_test(test_custom_events),
      cmocka_unit_test(test_text),
      cmocka_unit_test(test_flush_and_file),
      cmocka_unit_test(test_time_units),
      cmocka_unit_test(test_flush_idle),
      cmocka_unit_test(test_sink_failure),
      cmocka_unit_test(test_classes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

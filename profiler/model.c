/* model.c — the one pass over a sorted event log that every lzprof sub-command reads.
 *
 * It replays the scheduler's events per capability and per thread as two small state
 * machines: a capability is GC (between its GC_START and GC_END), else running (between
 * RUN_THREAD and STOP_THREAD), else blocked (its last thread stopped with a blocking
 * status) or idle; a thread is runnable, running, blocked or finished. Each change of a
 * capability's state closes an interval; each change of a thread's state adds the time
 * since the previous change to that thread's per-capability totals. Spark events are
 * collected in time order with the thread that was running, a spark id (from the Lz
 * spark event that follows it when the log has those, otherwise inferred: see Note
 * [Spark ids in GHC logs] in docs/notes/lzprof.md) and, for runs and steals, the run
 * time. The definitions are in docs/notes/lzprof.md.
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

const char *const lzp_state_names[LZP_N_STATES] = {"idle", "running", "GC", "blocked"};
const char *const lzp_spark_kind_names[LZP_SP_N] = {"created", "dud",     "overflowed", "run",
                                                    "stolen",  "fizzled", "GC'd"};

static const char *const stop_names[LZP_N_STOP] = {"no status",
                                                   "heap overflow",
                                                   "stack overflow",
                                                   "thread yielding",
                                                   "thread blocked",
                                                   "thread finished",
                                                   "making a foreign call",
                                                   "blocked on an MVar",
                                                   "blocked on black hole",
                                                   "blocked on I/O read",
                                                   "blocked on I/O write",
                                                   "blocked on delay",
                                                   "blocked in STM retry",
                                                   "blocked on asyncDoProc",
                                                   "blocked in a foreign call",
                                                   "blocked in a foreign call",
                                                   "blocked in throwTo",
                                                   "thread migrating",
                                                   "waiting for data to be globalised",
                                                   "no status",
                                                   "blocked reading an MVar"};

const char *lzp_stop_name(unsigned status) {
  return status < LZP_N_STOP ? stop_names[status] : "unknown status";
}

int lzp_stop_is_blocked(unsigned status) {
  return status == 4 || (status >= 6 && status < LZP_N_STOP && status != 17 && status != 19);
}

const char *lzp_fmt_ns(uint64_t ns, char *buf, size_t len) {
  if (ns < 10000)
    snprintf(buf, len, "%llu ns", (unsigned long long)ns);
  else if (ns < 10000000)
    snprintf(buf, len, "%.1f µs", ns / 1e3);
  else if (ns < 10000000000ull)
    snprintf(buf, len, "%.1f ms", ns / 1e6);
  else
    snprintf(buf, len, "%.2f s", ns / 1e9);
  return buf;
}

/* ---- growable arrays and the thread table ------------------------------------------ */

static int grow(void **p, size_t *cap, size_t n, size_t elem) {
  if (n < *cap) return 0;
  size_t nc = *cap ? *cap * 2 : 64;
  void *np = realloc(*p, nc * elem);
  if (!np) return -1;
  *p = np;
  *cap = nc;
  return 0;
}

typedef struct {
  uint32_t *keys; /* tid + 1; 0 empty */
  uint32_t *vals;
  size_t cap;
} TidMap;

static uint32_t *tidmap_slot(TidMap *m, uint32_t tid) {
  size_t i = (tid * 2654435761u) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != tid + 1)
    i = (i + 1) & (m->cap - 1);
  return &m->keys[i];
}

typedef struct {
  LzpModel *m;
  TidMap map;
  size_t cap_threads, *cap_iv, cap_sparks;
  /* per capability */
  uint32_t *running; /* running thread, 0 none */
  uint8_t *in_gc, *after_block;
  uint32_t *blocked_tid;
  uint64_t *since;
  uint8_t *cur;    /* current LzpCapState */
  uint64_t *seq;   /* spark sequence numbers */
  uint64_t **fifo; /* created sparks not yet taken (inferred ids) */
  size_t *fifo_head, *fifo_n, *fifo_cap;
  size_t *last_spark;  /* index of the capability's last spark event + 1 */
  size_t *pending_run; /* a spark run or steal no thread has taken yet: index + 1 */
  size_t cap_sites;
  int keep_iv;
  uint32_t **site_of; /* per capability, by spark sequence number: creation site */
  size_t *site_of_n, *site_of_cap;
} Builder;

/* Zeroed memory for the threads' per-capability arrays, carved from 1 MiB chunks: one
 * calloc per array cost about a third more (allocator headers, rounding) on logs with
 * hundreds of thousands of spark threads. Freed with the model. */
enum { ARENA_CHUNK = 1 << 20 };
static void *arena_get(LzpModel *m, size_t bytes) {
  bytes = (bytes + 7) & ~(size_t)7;
  if (bytes > ARENA_CHUNK) return NULL;
  if (!m->n_arena || m->arena_used + bytes > ARENA_CHUNK) {
    uint8_t **na = realloc(m->arena, (m->n_arena + 1) * sizeof *na);
    if (!na) return NULL;
    m->arena = na;
    if (!(na[m->n_arena] = calloc(1, ARENA_CHUNK))) return NULL;
    m->n_arena++;
    m->arena_used = 0;
  }
  void *p = m->arena[m->n_arena - 1] + m->arena_used;
  m->arena_used += bytes;
  return p;
}

static LzpThread *thread_get(Builder *b, uint32_t tid, uint64_t t, int32_t cap) {
  LzpModel *m = b->m;
  if ((m->n_threads + 1) * 2 > b->map.cap) {
    TidMap nm = {calloc(b->map.cap * 2, 4), calloc(b->map.cap * 2, 4), b->map.cap * 2};
    if (!nm.keys || !nm.vals) return NULL;
    for (size_t i = 0; i < b->map.cap; i++)
      if (b->map.keys[i]) {
        uint32_t *s = tidmap_slot(&nm, b->map.keys[i] - 1);
        *s = b->map.keys[i];
        nm.vals[s - nm.keys] = b->map.vals[i];
      }
    free(b->map.keys);
    free(b->map.vals);
    b->map = nm;
  }
  uint32_t *s = tidmap_slot(&b->map, tid);
  if (*s) return &m->threads[b->map.vals[s - b->map.keys]];
  if (grow((void **)&m->threads, &b->cap_threads, m->n_threads, sizeof *m->threads) < 0)
    return NULL;
  LzpThread *th = &m->threads[m->n_threads];
  memset(th, 0, sizeof *th);
  int nc = m->n_caps;
  th->tid = tid;
  th->cap = cap < 0 ? 0 : cap;
  th->created = t;
  th->since = t;
  th->st_cap = th->cap;
  th->run_ns = arena_get(m, (size_t)nc * 8);
  th->runnable_ns = arena_get(m, (size_t)nc * 8);
  th->blocked_ns = arena_get(m, (size_t)nc * 8);
  th->runs = arena_get(m, (size_t)nc * 4);
  th->label = "";
  if (!th->run_ns || !th->runnable_ns || !th->blocked_ns || !th->runs) return NULL;
  *s = tid + 1;
  b->map.vals[s - b->map.keys] = (uint32_t)m->n_threads++;
  return th;
}

static uint64_t stop_key(const LzpModel *m, const LzpThread *th, int cap, unsigned status) {
  return (uint64_t)(th - m->threads + 1) << 16 | (uint64_t)cap << 5 | status;
}

static size_t stop_slot(const uint64_t *keys, size_t cap, uint64_t key) {
  size_t i = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
  while (keys[i] && keys[i] != key)
    i = (i + 1) & (cap - 1);
  return i;
}

static int count_stop(LzpModel *m, const LzpThread *th, int cap, unsigned status) {
  if ((m->n_stop_keys + 1) * 4 > m->stop_cap * 3) { /* keep the load under 3/4 */
    size_t nc = m->stop_cap ? m->stop_cap * 2 : 1024;
    uint64_t *nk = calloc(nc, sizeof *nk);
    uint32_t *nv = calloc(nc, sizeof *nv);
    if (!nk || !nv) {
      free(nk);
      free(nv);
      return -1;
    }
    for (size_t i = 0; i < m->stop_cap; i++)
      if (m->stop_keys[i]) {
        size_t j = stop_slot(nk, nc, m->stop_keys[i]);
        nk[j] = m->stop_keys[i];
        nv[j] = m->stop_counts[i];
      }
    free(m->stop_keys);
    free(m->stop_counts);
    m->stop_keys = nk;
    m->stop_counts = nv;
    m->stop_cap = nc;
  }
  uint64_t key = stop_key(m, th, cap, status);
  size_t i = stop_slot(m->stop_keys, m->stop_cap, key);
  if (!m->stop_keys[i]) m->stop_keys[i] = key, m->n_stop_keys++;
  m->stop_counts[i]++;
  return 0;
}

uint32_t lzp_thread_stops(const LzpModel *m, const LzpThread *th, int cap, unsigned status) {
  if (!m->stop_cap) return 0;
  size_t i = stop_slot(m->stop_keys, m->stop_cap, stop_key(m, th, cap, status));
  return m->stop_keys[i] ? m->stop_counts[i] : 0;
}

LzpThread *lzp_model_thread(const LzpModel *m, uint32_t tid) {
  for (size_t i = 0; i < m->n_threads; i++)
    if (m->threads[i].tid == tid) return &m->threads[i];
  return NULL;
}

/* Ends the thread's current state at T (adds its duration) and enters ST on CAP. */
static void thread_enter(LzpThread *th, uint8_t st, uint64_t t, int32_t cap) {
  uint64_t d = t > th->since ? t - th->since : 0;
  int c = th->st_cap;
  if (th->st == 0)
    th->runnable_ns[c] += d;
  else if (th->st == 1)
    th->run_ns[c] += d;
  else if (th->st == 2)
    th->blocked_ns[c] += d;
  th->st = st;
  th->since = t;
  if (cap >= 0) th->st_cap = cap;
}

/* ---- capability intervals ----------------------------------------------------------- */

static uint8_t cap_state(Builder *b, int c) {
  if (b->in_gc[c]) return LZP_GC;
  if (b->running[c]) return LZP_RUNNING;
  return b->after_block[c] ? LZP_BLOCKED : LZP_IDLE;
}

/* Closes capability C's current interval at T (ending a run with STOP/BLOCKER). */
static int cap_close(Builder *b, int c, uint64_t t, uint8_t stop, uint32_t blocker) {
  LzpModel *m = b->m;
  uint8_t st = b->cur[c];
  uint32_t tid = st == LZP_RUNNING ? b->running[c] : st == LZP_BLOCKED ? b->blocked_tid[c] : 0;
  if (b->keep_iv && (t > b->since[c] || st == LZP_RUNNING)) {
    size_t n = m->n_iv[c];
    if (n && st != LZP_RUNNING && m->iv[c][n - 1].state == st &&
        m->iv[c][n - 1].t1 == b->since[c]) {
      m->iv[c][n - 1].t1 = t; /* merge idle/blocked/GC pieces */
    } else {
      if (grow((void **)&m->iv[c], &b->cap_iv[c], n, sizeof **m->iv) < 0) return -1;
      m->iv[c][n] = (LzpInterval){.t0 = b->since[c],
                                  .t1 = t,
                                  .state = st,
                                  .stop = st == LZP_RUNNING ? stop : 0,
                                  .tid = tid,
                                  .blocker = st == LZP_RUNNING ? blocker : 0};
      m->n_iv[c]++;
    }
  }
  b->since[c] = t;
  return 0;
}

/* ---- sparks -------------------------------------------------------------------------- */

static int fifo_push(Builder *b, int c, uint64_t id) {
  if (b->fifo_head[c] > 0 && b->fifo_head[c] == b->fifo_n[c]) b->fifo_head[c] = b->fifo_n[c] = 0;
  if (grow((void **)&b->fifo[c], &b->fifo_cap[c], b->fifo_n[c], 8) < 0) return -1;
  b->fifo[c][b->fifo_n[c]++] = id;
  return 0;
}

static uint64_t fifo_pop(Builder *b, int c) {
  if (c < 0 || c >= b->m->n_caps || b->fifo_head[c] == b->fifo_n[c]) return 0;
  return b->fifo[c][b->fifo_head[c]++];
}

/* Note [Spark run times]: a run or steal belongs to the thread running on the capability
 * (GHC: the spark thread that found it) or, when none is (Lz: the spark is found first,
 * then a thread made for it), to the next thread run there; its run time is that thread's
 * running time until it finishes or takes its next spark. */
static void spark_pause(LzpModel *m, LzpThread *th, uint64_t t) {
  if (!th->spark) return;
  LzpSparkEvent *s = &m->sparks[th->spark - 1];
  uint64_t from = th->since > s->time ? th->since : s->time;
  if (th->st == 1 && t > from) s->run_ns += t - from;
}

static int spark_event(Builder *b, const LzpEvent *e, int c, uint8_t kind) {
  LzpModel *m = b->m;
  const LzpLog *log = m->log;
  if (grow((void **)&m->sparks, &b->cap_sparks, m->n_sparks, sizeof *m->sparks) < 0) return -1;
  LzpSparkEvent *s = &m->sparks[m->n_sparks];
  memset(s, 0, sizeof *s);
  s->time = e->time;
  s->cap = c;
  s->kind = kind;
  s->tid = b->running[c];
  switch (kind) {
  case LZP_SP_CREATE:
  case LZP_SP_DUD:
  case LZP_SP_OVERFLOW:
    s->id = (uint64_t)c << 48 | ++b->seq[c];
    if (kind == LZP_SP_CREATE && fifo_push(b, c, s->id) < 0) return -1;
    break;
  case LZP_SP_STEAL:
    s->victim = (uint8_t)lzp_u16(log, e, 0);
    s->id = fifo_pop(b, lzp_u16(log, e, 0));
    break;
  default: s->id = fifo_pop(b, c);
  }
  if (kind == LZP_SP_RUN || kind == LZP_SP_STEAL) {
    LzpThread *th = b->running[c] ? thread_get(b, b->running[c], e->time, c) : NULL;
    if (th) {
      spark_pause(m, th, e->time); /* the previous spark of a GHC spark thread ends */
      th->spark = (uint32_t)m->n_sparks + 1;
    } else {
      b->pending_run[c] = m->n_sparks + 1; /* for the next thread run here */
    }
  }
  m->cap_sparks[c].counts[kind]++;
  m->has_spark_events = 1;
  b->last_spark[c] = ++m->n_sparks;
  return 0;
}

/* Site N is m->sites[N - 1]; grows the table (labels NULL until their event). */
static LzpSite *site_slot(Builder *b, uint32_t id) {
  LzpModel *m = b->m;
  if (id == 0 || id > (1u << 20)) return NULL; /* not a site we can index: ignored */
  while (m->n_sites < id) {
    if (grow((void **)&m->sites, &b->cap_sites, m->n_sites, sizeof *m->sites) < 0) return NULL;
    memset(&m->sites[m->n_sites++], 0, sizeof *m->sites);
  }
  return &m->sites[id - 1];
}

/* The site each spark was created at, by capability and sequence number: later events
 * of a spark name site 0, "the site of its creation" (Note [Spark sites]). */
static int remember_site(Builder *b, uint64_t id, uint32_t site) {
  uint32_t c = (uint32_t)(id >> 48);
  uint64_t seq = id & 0xffffffffffffull;
  if (c >= (uint32_t)b->m->n_caps || seq >= (1u << 28)) return 0; /* not a runtime id */
  while (b->site_of_n[c] <= seq) {
    size_t n = b->site_of_n[c];
    if (grow((void **)&b->site_of[c], &b->site_of_cap[c], n, 4) < 0) return -1;
    b->site_of[c][b->site_of_n[c]++] = 0;
  }
  b->site_of[c][seq] = site;
  return 0;
}

static uint32_t created_site(const Builder *b, uint64_t id) {
  uint32_t c = (uint32_t)(id >> 48);
  uint64_t seq = id & 0xffffffffffffull;
  return c < (uint32_t)b->m->n_caps && seq < b->site_of_n[c] ? b->site_of[c][seq] : 0;
}

/* An Lz spark event names the spark of the capability's preceding spark event. */
static int spark_info(Builder *b, const LzpEvent *e, int c) {
  LzpModel *m = b->m;
  if (!b->last_spark[c]) return 0;
  LzpSparkEvent *s = &m->sparks[b->last_spark[c] - 1];
  b->last_spark[c] = 0;
  s->id = lzp_u64(m->log, e, 0);
  s->id_known = 1;
  uint32_t site = lzp_u32(m->log, e, 8);
  if (s->kind <= LZP_SP_OVERFLOW) {
    if (remember_site(b, s->id, site) < 0) return -1;
  } else if (!site) {
    site = created_site(b, s->id);
  }
  LzpSite *slot = site_slot(b, site);
  if (slot) {
    s->site = site;
    slot->counts[s->kind]++;
    m->has_site_info = 1;
  }
  return 0;
}

static int spark_site(Builder *b, const LzpEvent *e) {
  LzpModel *m = b->m;
  if (e->len < 4) return 0;
  LzpSite *site = site_slot(b, lzp_u32(m->log, e, 0));
  if (!site) return 0;
  free(site->label);
  site->label = strndup((const char *)m->log->data + e->payload + 4, e->len - 4u);
  return site->label ? 0 : -1;
}

/* ---- the pass -------------------------------------------------------------------------- */

#define ALLOC(p, n) ((p) = calloc((n) ? (n) : 1, sizeof *(p)))

static int step(Builder *b, const LzpEvent *e) {
  LzpModel *m = b->m;
  const LzpLog *log = m->log;
  int c = e->cap;
  uint64_t t = e->time;
  LzpThread *th;
  switch (e->type) {
  case LZP_CREATE_THREAD: return thread_get(b, lzp_u32(log, e, 0), t, c) ? 0 : -1;
  case LZP_CREATE_SPARK_THREAD:
    if (!(th = thread_get(b, lzp_u32(log, e, 0), t, c))) return -1;
    th->spark_thread = 1;
    return 0;
  case LZP_THREAD_LABEL:
    if (!(th = thread_get(b, lzp_u32(log, e, 0), t, c))) return -1;
    if (e->len > 4) {
      char *l =
          strndup((const char *)log->data + e->payload + 4, e->len - 4u < 47 ? e->len - 4u : 47);
      if (!l) return -1;
      if (th->label[0]) free((char *)th->label);
      th->label = l[0] ? l : "";
      if (!l[0]) free(l);
    }
    return 0;
  case LZP_RUN_THREAD:
    if (c < 0 || !(th = thread_get(b, lzp_u32(log, e, 0), t, c))) return c < 0 ? 0 : -1;
    if (cap_close(b, c, t, 255, 0) < 0) return -1;
    b->running[c] = th->tid;
    b->after_block[c] = 0;
    b->cur[c] = cap_state(b, c);
    if (b->pending_run[c]) {
      spark_pause(m, th, t);
      th->spark = (uint32_t)b->pending_run[c];
      b->pending_run[c] = 0;
    }
    thread_enter(th, 1, t, c);
    th->cap = c;
    th->runs[c]++;
    return 0;
  case LZP_STOP_THREAD: {
    if (c < 0 || !(th = thread_get(b, lzp_u32(log, e, 0), t, c))) return c < 0 ? 0 : -1;
    unsigned status = lzp_u16(log, e, 4);
    uint32_t blocker = status == 8 ? lzp_u32(log, e, 6) : 0;
    if (b->running[c] == th->tid && cap_close(b, c, t, (uint8_t)status, blocker) < 0) return -1;
    if (b->running[c] == th->tid) {
      b->running[c] = 0;
      b->after_block[c] = (uint8_t)lzp_stop_is_blocked(status);
      b->blocked_tid[c] = th->tid;
      b->cur[c] = cap_state(b, c);
    }
    spark_pause(m, th, t);
    if (status == 5) th->spark = 0;
    if (count_stop(m, th, c, status < LZP_N_STOP ? status : 0) < 0) return -1;
    thread_enter(th, status == 5 ? 3 : lzp_stop_is_blocked(status) ? 2 : 0, t, c);
    if (status == 5) th->finished = t;
    return 0;
  }
  case LZP_THREAD_RUNNABLE:
  case LZP_THREAD_WAKEUP:
    if (!(th = thread_get(b, lzp_u32(log, e, 0), t, c))) return -1;
    if (th->st == 2 || (th->st == 0 && e->type == LZP_THREAD_WAKEUP))
      thread_enter(th, 0, t, e->type == LZP_THREAD_WAKEUP ? lzp_u16(log, e, 4) % m->n_caps : c);
    return 0;
  case LZP_MIGRATE_THREAD:
    if (!(th = thread_get(b, lzp_u32(log, e, 0), t, c))) return -1;
    thread_enter(th, th->st, t, lzp_u16(log, e, 4) % m->n_caps);
    th->cap = th->st_cap;
    return 0;
  case LZP_GC_START:
  case LZP_GC_END:
    if (c < 0) return 0;
    if (cap_close(b, c, t, 255, 0) < 0) return -1;
    /* Lz's collections stop threads without a STOP_THREAD (Boehm stops the world): the
     * running thread is paused (state 3, counted nowhere) while its capability is in GC,
     * so its running time is the capability's, as in GHC's logs. */
    if (b->running[c]) {
      uint8_t from = e->type == LZP_GC_START ? 1 : 3, to = e->type == LZP_GC_START ? 3 : 1;
      LzpThread *rt = thread_get(b, b->running[c], t, c);
      if (!rt) return -1;
      if (rt->st == from) {
        if (from == 1) spark_pause(b->m, rt, t); /* its spark's run time stops too */
        thread_enter(rt, to, t, c);
      }
    }
    b->in_gc[c] = e->type == LZP_GC_START;
    b->cur[c] = cap_state(b, c);
    return 0;
  case LZP_SPARK_CREATE:
  case LZP_SPARK_DUD:
  case LZP_SPARK_OVERFLOW:
  case LZP_SPARK_RUN:
  case LZP_SPARK_STEAL:
  case LZP_SPARK_FIZZLE:
  case LZP_SPARK_GC: return c < 0 ? 0 : spark_event(b, e, c, (uint8_t)(e->type - LZP_SPARK_CREATE));
  case LZP_SPARK_COUNTERS:
    if (c < 0) return 0;
    for (int i = 0; i < 7; i++)
      m->cap_sparks[c].counters[i] = lzp_u64(log, e, (size_t)i * 8);
    m->cap_sparks[c].has_counters = m->has_counters = 1;
    return 0;
  default:
    if (e->type == log->spark_info_type && c >= 0)
      return spark_info(b, e, c);
    else if (e->type == log->spark_site_type)
      return spark_site(b, e);
    return 0;
  }
}

int lzp_model_build(const LzpLog *log, LzpModel *m, unsigned opts, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  m->log = log;
  int nc = m->n_caps = log->n_caps;
  m->t_begin = log->t_first;
  m->t_end = log->t_last;
  Builder b = {
      .m = m, .map = {calloc(64, 4), calloc(64, 4), 64}, .keep_iv = !(opts & LZP_NO_INTERVALS)};
  int ok = b.map.keys && b.map.vals && ALLOC(m->iv, nc) && ALLOC(m->n_iv, nc) &&
           ALLOC(m->cap_sparks, nc) && ALLOC(b.cap_iv, nc) && ALLOC(b.running, nc) &&
           ALLOC(b.in_gc, nc) && ALLOC(b.after_block, nc) && ALLOC(b.blocked_tid, nc) &&
           ALLOC(b.since, nc) && ALLOC(b.cur, nc) && ALLOC(b.seq, nc) && ALLOC(b.fifo, nc) &&
           ALLOC(b.fifo_head, nc) && ALLOC(b.fifo_n, nc) && ALLOC(b.fifo_cap, nc) &&
           ALLOC(b.last_spark, nc) && ALLOC(b.pending_run, nc) && ALLOC(b.site_of, nc) &&
           ALLOC(b.site_of_n, nc) && ALLOC(b.site_of_cap, nc);
  for (int c = 0; ok && c < nc; c++)
    b.since[c] = m->t_begin;
  LzpIter *it = ok ? lzp_iter_new(log) : NULL;
  if (!it) ok = 0;
  for (const LzpEvent *e; ok && (e = lzp_iter_next(it));)
    if (step(&b, e) < 0) ok = 0;
  lzp_iter_free(it);
  for (int c = 0; ok && c < nc; c++) {
    if (cap_close(&b, c, m->t_end, 255, 0) < 0) ok = 0;
  }
  for (size_t i = 0; ok && i < m->n_threads; i++)
    if (m->threads[i].st != 3) {
      spark_pause(m, &m->threads[i], m->t_end);
      thread_enter(&m->threads[i], m->threads[i].st, m->t_end, -1);
    }
  free(b.map.keys);
  free(b.map.vals);
  free(b.cap_iv);
  free(b.running);
  free(b.in_gc);
  free(b.after_block);
  free(b.blocked_tid);
  free(b.since);
  free(b.cur);
  free(b.seq);
  for (int c = 0; b.fifo && c < nc; c++)
    free(b.fifo[c]);
  free(b.fifo);
  free(b.fifo_head);
  free(b.fifo_n);
  free(b.fifo_cap);
  free(b.last_spark);
  free(b.pending_run);
  for (int c = 0; b.site_of && c < nc; c++)
    free(b.site_of[c]);
  free(b.site_of);
  free(b.site_of_n);
  free(b.site_of_cap);
  if (!ok) {
    snprintf(err, errlen, "lzprof: out of memory while analysing the log");
    lzp_model_free(m);
    return -1;
  }
  return 0;
}

void lzp_model_free(LzpModel *m) {
  for (int c = 0; m->iv && c < m->n_caps; c++)
    free(m->iv[c]);
  free(m->iv);
  free(m->n_iv);
  for (size_t i = 0; i < m->n_arena; i++)
    free(m->arena[i]);
  free(m->arena);
  for (size_t i = 0; i < m->n_threads; i++)
    if (m->threads[i].label[0]) free((char *)m->threads[i].label);
  free(m->threads);
  free(m->stop_keys);
  free(m->stop_counts);
  free(m->sparks);
  free(m->cap_sparks);
  for (size_t i = 0; i < m->n_sites; i++)
    free(m->sites[i].label);
  free(m->sites);
  memset(m, 0, sizeof *m);
}

/* Does the log hold the events a command needs? Each message names the +RTS flag that
 * records them (docs/notes/lzprof.md, "Exit status"). */
static int lacks(const LzpModel *m, const char *cmd, const char *path, unsigned need) {
  const LzpLog *log = m->log;
  if (need & LZP_NEED_SCHED) {
    int runs = 0;
    for (size_t i = 0; i < m->n_threads && !runs; i++)
      for (int c = 0; c < m->n_caps && !runs; c++)
        runs = m->threads[i].runs[c] != 0;
    if (!runs) {
      fprintf(stderr,
              "lzprof %s: %s has no thread runs (RUN_THREAD/STOP_THREAD events): +RTS -l "
              "records them (the scheduler's class s; -l-s leaves them out)\n",
              cmd, path);
      return 1;
    }
  }
  if ((need & LZP_NEED_SPARKS) && !m->has_spark_events && !m->has_counters) {
    fprintf(stderr,
            "lzprof %s: %s has no spark events: +RTS -lf records one event per spark (fates, "
            "run times, sites), +RTS -l only the SPARK_COUNTERS totals (class p)\n",
            cmd, path);
    return 1;
  }
  if (need & LZP_NEED_USER) {
    if (!log->has_user) {
      fprintf(stderr,
              "lzprof %s: %s has no user checkpoints (USER_MSG/USER_MARKER events): the "
              "program called no Debug.Trace.traceEvent/traceMarker, or it ran without the "
              "user event class (+RTS -l records it; -l-u leaves it out)\n",
              cmd, path);
      return 1;
    }
  }
  return 0;
}

int lzp_load(const char *cmd, const char *path, unsigned need, LzpLog *log, LzpModel *m) {
  char err[1024];
  if (lzp_log_read(path, log, err, sizeof err, stderr) < 0) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  if (lzp_model_build(log, m, need & LZP_LOAD_NO_INTERVALS ? LZP_NO_INTERVALS : 0, err,
                      sizeof err) < 0) {
    fprintf(stderr, "%s\n", err);
    lzp_log_free(log);
    return -1;
  }
  if (lacks(m, cmd, path, need)) {
    lzp_model_free(m);
    lzp_log_free(log);
    return -1;
  }
  return 0;
}

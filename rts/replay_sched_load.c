/* replay_sched_load.c — the recording of a replay, in memory: the log is read whole at
 * start-up (lz_rpl_load) into one event list per capability, indexed for the scheduler's
 * decisions (who stole which spark and claimed which thunk; which update woke each thread,
 * Note [Replay wake-ups]; the order of a thread's runs, Note [Run order]), and the
 * recorded stdin is served back (lz_rpl_stdin). The shared state is declared in
 * replay_sched_priv.h. Note [Replay] in docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_sched_priv.h"
#include "replaylog.h"
#if LZ_PROF
#include "prof.h" /* profiling a replay: Note [Profiling] */
#endif

/* ---- the recording, in memory ------------------------------------------------------------- */

LzReplayReader *rpl_reader;
/* LZ_REPLAY_TRACE set: the replay's waits and slices on stderr (a debugging aid) */
bool rpl_tracing;
Stream *rpl_streams;
unsigned rpl_nstreams;
uint8_t *rpl_arena;
static size_t arena_n, arena_room;
static Ev *input; /* stdin reads, in time order */
static size_t n_input, input_at, input_byte;
IdMap rpl_stolen, rpl_claims, rpl_taken; /* taken: spark ids of every RPL_SPARK */
uint32_t *rpl_rec2rep, *rpl_rep2rec;     /* thread ids: recorded <-> this run */
uint32_t *rpl_runs;                      /* by this run's id: slices the thread has begun */
LzThread **rpl_threads;                  /* by this run's id */
size_t rpl_ntids;

_Noreturn void lz_rpl_fail(const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fflush(stdout);
  fprintf(stderr, "%s: %s\n", lz_prog_name ? lz_prog_name : "lz", msg);
  _exit(3);
}

void *rpl_grow(void *p, size_t *room, size_t need, size_t elem) {
  if (need <= *room) return p;
  size_t r = *room ? *room : 1024;
  while (r < need)
    r *= 2;
  p = realloc(p, r * elem);
  if (!p) lz_rpl_fail("--replay: out of memory reading the log");
  *room = r;
  return p;
}

static void map_init(IdMap *m, size_t n) {
  size_t size = 16;
  unsigned bits = 4;
  while (size < 2 * n + 2)
    size *= 2, bits++;
  m->shift = 64 - bits;
  m->key = calloc(size, sizeof(uint64_t));
  m->cap = calloc(size, sizeof(uint16_t));
  if (!m->key || !m->cap) lz_rpl_fail("--replay: out of memory reading the log");
  m->mask = size - 1;
}

static void map_put(IdMap *m, uint64_t id, unsigned cap) {
  if (!m->key || 2 * (m->n + 1) > m->mask) return; /* full: the ids are placed at load */
  size_t i = slot_of(m, id);
  while (m->key[i] && m->key[i] != id)
    i = (i + 1) & m->mask;
  if (!m->key[i]) m->n++;
  m->key[i] = id;
  m->cap[i] = (uint16_t)cap;
}

static int by_time(const void *a, const void *b) {
  const Ev *x = a, *y = b;
  return x->time < y->time ? -1 : x->time > y->time ? 1 : x->index < y->index ? -1 : 1;
}

/* Note [Replay wake-ups] (docs/notes/replay.md). Which thunk's update made each recorded
 * THREAD_WAKEUP: the RPL_WAKE just before it, else the id in the woken thread's last
 * RPL_BLOCK before it (the blocker posts RPL_BLOCK under the wait-list lock before it can
 * be woken, and every event's time is from one monotonic clock), so that replay lets
 * exactly that update wait for the thread to block (lz_replay_before_update). */
typedef struct Block {
  uint32_t tid;
  uint64_t time, id;
  Ev *ev;         /* its RPL_BLOCK; a wake-up: NULL */
  uint64_t index; /* the event's: ties in (rounded) time on one capability are in this order */
} Block;

/* The id a thunk a recorded RPL_BLOCK names: its own, or when the blocker could not read it
 * (the owner was updating the thunk: lz_replay_blocking), the RPL_WAKE of its wake-up. */
uint64_t rpl_block_id(const Ev *x) { return lz_ev_get64(PAY(x)) ? lz_ev_get64(PAY(x)) : x->thunk; }

static int by_tid_time(const void *a, const void *b) {
  const Block *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

static void match_wakeups(void) {
  Block *b = NULL;
  size_t nb = 0, room = 0;
  for (unsigned c = 0; c < rpl_nstreams; c++) {
    const Block *pending = NULL;
    Block blk = {0, 0, 0, NULL, 0};
    uint64_t waking = 0; /* the id of an RPL_WAKE followed so far only by wake-ups */
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      Ev *x = &rpl_streams[c].ev[i];
      if (x->type == LZ_EVT_RPL_WAKE && x->len == LZ_RPL_CLAIM_BYTES) {
        waking = lz_ev_get64(PAY(x));
        continue;
      }
      if (x->type == LZ_EVT_THREAD_WAKEUP) {
        x->thunk = waking;
        continue;
      }
      waking = 0;
      if (x->type == LZ_EVT_RPL_BLOCK && x->len == LZ_RPL_CLAIM_BYTES) {
        blk = (Block){0, x->time, lz_ev_get64(PAY(x)), x, x->index};
        pending = &blk;
      } else if (x->type == LZ_EVT_RPL_SLICE && x->len == LZ_RPL_SLICE_BYTES) {
        if (pending && lz_ev_get16(PAY(x) + 4) == LZ_STOP_BLOCKED) {
          b = rpl_grow(b, &room, nb + 1, sizeof(Block));
          b[nb] = blk;
          b[nb++].tid = lz_ev_get32(PAY(x));
        }
        pending = NULL;
      }
    }
  }
  /* Each block of a thread is ended by its next wake-up (only blackholes block and wake),
   * so the thread's n-th block and n-th wake-up in time order belong together: a wake-up
   * without an RPL_WAKE gets the block's thunk, a block the recorder could not name (id 0)
   * the wake-up's RPL_WAKE. Paired by their order rather than by comparing times: the
   * block and the wake-up that ends the one before may share a (rounded) time. */
  size_t nw = 0, wroom = 0;
  Block *w = NULL;
  for (unsigned c = 0; c < rpl_nstreams; c++)
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      Ev *x = &rpl_streams[c].ev[i];
      if (x->type != LZ_EVT_THREAD_WAKEUP || x->len < 4) continue;
      w = rpl_grow(w, &wroom, nw + 1, sizeof(Block));
      w[nw++] = (Block){lz_ev_get32(PAY(x)), x->time, x->thunk, x, x->index};
    }
  qsort(b, nb, sizeof(Block), by_tid_time);
  qsort(w, nw, sizeof(Block), by_tid_time);
  for (size_t k = 0, j = 0; k < nb; k++) {
    while (j < nw && w[j].tid < b[k].tid)
      j++;
    while (j < nw && w[j].tid == b[k].tid && w[j].time < b[k].time)
      j++; /* a wake-up before this block (of a block not recorded): not this one's */
    if (j == nw || w[j].tid != b[k].tid) continue;
    if (!w[j].id) w[j].ev->thunk = b[k].id;
    if (!b[k].id) b[k].ev->thunk = w[j].id;
    j++;
  }
  free(w);
  free(b);
}

/* Note [Run order] (docs/notes/replay.md): a thread's runs and arrivals (RUN_THREAD,
 * MIGRATE_THREAD) by capability, each capability's in its order; a thread only changes
 * capability by a MIGRATE_THREAD on the new one, so its runs go: those on the capability
 * where it first ran up to that capability's next arrival of it, then those after the
 * earliest pending arrival on another capability (the only one with 2 capabilities; by
 * time, then file order, with more), and so on. Times are coarse (4 us), this order is
 * exact. A thread whose events do not fit (no or two first capabilities) keeps its order
 * by time. */
typedef struct RunItem {
  uint32_t tid;
  unsigned cap;
  Ev *ev;
} RunItem;

static int by_tid_cap_index(const void *a, const void *b) {
  const RunItem *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->cap != y->cap) return x->cap < y->cap ? -1 : 1;
  return x->ev->index < y->ev->index ? -1 : x->ev->index > y->ev->index ? 1 : 0;
}

typedef struct RunSeg {
  size_t pos, end; /* the capability's items of the thread not walked yet */
} RunSeg;

/* One thread's items it[0..n) (sorted by capability, then index): number its runs in the
 * order of the walk; false (nothing changed) if they do not fit. seg: nstreams entries. */
static bool walk_runs(RunItem *it, size_t n, RunSeg *seg, Ev **order) {
  for (unsigned c = 0; c < rpl_nstreams; c++)
    seg[c] = (RunSeg){0, 0};
  int first = -1;
  for (size_t k = 0; k < n; k++) {
    if (k > 0 && it[k - 1].cap == it[k].cap) continue;
    size_t e = k;
    while (e < n && it[e].cap == it[k].cap)
      e++;
    seg[it[k].cap] = (RunSeg){k, e};
    if (it[k].ev->type == LZ_EVT_RUN_THREAD) {
      if (first >= 0) return false;
      first = (int)it[k].cap;
    }
  }
  size_t nruns = 0, total = 0;
  for (size_t k = 0; k < n; k++)
    total += it[k].ev->type == LZ_EVT_RUN_THREAD;
  for (int cur = first; cur >= 0;) {
    RunSeg *s = &seg[cur];
    if (s->pos < s->end && it[s->pos].ev->type == LZ_EVT_MIGRATE_THREAD) s->pos++;
    for (; s->pos < s->end && it[s->pos].ev->type == LZ_EVT_RUN_THREAD; s->pos++)
      order[nruns++] = it[s->pos].ev;
    int next = -1;
    for (unsigned c = 0; c < rpl_nstreams; c++) {
      if ((int)c == cur || seg[c].pos == seg[c].end) continue;
      const Ev *x = it[seg[c].pos].ev, *y = next >= 0 ? it[seg[next].pos].ev : NULL;
      if (!y || x->time < y->time || (x->time == y->time && x->index < y->index)) next = (int)c;
    }
    cur = next;
  }
  if (first < 0 || nruns != total) return false;
  for (size_t k = 0; k < nruns; k++)
    order[k]->thunk = k + 1;
  return true;
}

static void walk_all_runs(void) {
  RunItem *it = NULL;
  size_t n = 0, room = 0;
  for (unsigned c = 0; c < rpl_nstreams; c++)
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      Ev *x = &rpl_streams[c].ev[i];
      if ((x->type != LZ_EVT_RUN_THREAD && x->type != LZ_EVT_MIGRATE_THREAD) || x->len < 4)
        continue;
      it = rpl_grow(it, &room, n + 1, sizeof(RunItem));
      it[n++] = (RunItem){lz_ev_get32(PAY(x)), c, x};
    }
  qsort(it, n, sizeof(RunItem), by_tid_cap_index);
  RunSeg *seg = malloc(rpl_nstreams * sizeof(RunSeg));
  Ev **order = malloc((n ? n : 1) * sizeof(Ev *));
  if (!seg || !order) lz_rpl_fail("--replay: out of memory");
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a; b < n && it[b].tid == it[a].tid; b++)
      ;
    walk_runs(it + a, b - a, seg, order);
  }
  free(order);
  free(seg);
  free(it);
}

/* Number every RUN_THREAD by the thread's runs in order (1, 2, ...): a thread may be
 * in a run queue now for a later run than the one the capability looking at it has next
 * (it ran elsewhere, stopped and was queued again in the recording), so a run or a
 * migration waits until the thread's earlier runs have begun. By time first, then by
 * walk_all_runs. */
static void order_runs(void) {
  Block *r = NULL;
  size_t nr = 0, room = 0;
  for (unsigned c = 0; c < rpl_nstreams; c++)
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      Ev *x = &rpl_streams[c].ev[i];
      if (x->type != LZ_EVT_RUN_THREAD || x->len < 4) continue;
      r = rpl_grow(r, &room, nr + 1, sizeof(Block));
      r[nr++] = (Block){lz_ev_get32(PAY(x)), x->time, 0, x, x->index};
    }
  qsort(r, nr, sizeof(Block), by_tid_time);
  for (size_t k = 0; k < nr; k++)
    r[k].ev->thunk = k > 0 && r[k - 1].tid == r[k].tid ? r[k - 1].ev->thunk + 1 : 1;
  free(r);
  walk_all_runs();
}

void lz_rpl_load(const char *path) {
  uint8_t self[LZ_SHA256_BYTES];
  char err[2048];
  rpl_tracing = getenv("LZ_REPLAY_TRACE") != NULL;
  if (lz_exe_identity(self, err, sizeof err) != 0) lz_rpl_fail("--replay: %s", err);
  rpl_reader = lz_replay_open(path, self, err, sizeof err);
  if (!rpl_reader) lz_rpl_fail("%s", err);
  const LzReplayHeader *h = lz_replay_header(rpl_reader);
  if (h->ncaps < 1 || h->ncaps > 256) lz_rpl_fail("%s: the log's header says -N%u", path, h->ncaps);
  rpl_nstreams = h->ncaps;
  rpl_streams = calloc(rpl_nstreams, sizeof *rpl_streams);
  size_t n_sparks = 0, n_steals = 0, n_claims = 0, n_creates = 0, input_room = 0;
  uint32_t max_tid = 1;
  LzReplayEvent e;
  int r;
  uint64_t last_time = 0;
  while ((r = lz_replay_next_event(rpl_reader, &e)) == LZ_REPLAY_EVENT) {
    if (e.time > last_time) last_time = e.time;
    if (e.cap == LZ_EV_CAP_GLOBAL || lz_rpl_timing_dependent(e.type)) continue;
    if (e.cap >= rpl_nstreams)
      lz_rpl_fail("%s: event #%llu is on capability %u, but the run had -N%u", path,
                  (unsigned long long)e.index, e.cap, rpl_nstreams);
    Stream *s = &rpl_streams[e.cap];
    s->ev = rpl_grow(s->ev, &s->room, s->n + 1, sizeof(Ev));
    rpl_arena = rpl_grow(rpl_arena, &arena_room, arena_n + e.len, 1);
    memcpy(rpl_arena + arena_n, e.payload, e.len);
    Ev *x = &s->ev[s->n++];
    *x = (Ev){.type = e.type, .len = e.len, .off = arena_n, .index = e.index, .time = e.time};
    arena_n += e.len;
    if (e.type == LZ_EVT_RPL_SPARK && e.len == LZ_RPL_SPARK_BYTES &&
        e.payload[8] == LZ_SPARK_EV_STEAL)
      n_steals++;
    if (e.type == LZ_EVT_RPL_CLAIM || e.type == LZ_EVT_RPL_BLOCK) n_claims++;
    if (e.type == LZ_EVT_RPL_SPARK) n_sparks++;
    if (e.type == LZ_EVT_CREATE_THREAD && e.len >= 4) {
      n_creates++;
      if (lz_ev_get32(e.payload) > max_tid) max_tid = lz_ev_get32(e.payload);
    }
    if (e.type == LZ_EVT_RPL_INPUT && e.len >= 4 && lz_ev_get32(e.payload) == 0) {
      input = rpl_grow(input, &input_room, n_input + 1, sizeof(Ev));
      input[n_input++] = *x;
    }
  }
  if (r == LZ_REPLAY_ERROR) lz_rpl_fail("%s", lz_replay_error(rpl_reader));
  if (!lz_replay_complete(rpl_reader))
    lz_message("--replay: %s is incomplete (the recorded program was killed): replaying as "
               "far as it goes",
               path);
  qsort(input, n_input, sizeof(Ev), by_time);
  map_init(&rpl_stolen, n_steals);
  map_init(&rpl_taken, n_sparks);
  map_init(&rpl_claims, n_claims);
  for (unsigned c = 0; c < rpl_nstreams; c++)
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      const Ev *x = &rpl_streams[c].ev[i];
      if (x->type == LZ_EVT_RPL_SPARK && x->len == LZ_RPL_SPARK_BYTES &&
          PAY(x)[8] == LZ_SPARK_EV_STEAL)
        map_put(&rpl_stolen, lz_ev_get64(PAY(x)), c);
      if (x->type == LZ_EVT_RPL_SPARK && x->len == LZ_RPL_SPARK_BYTES)
        map_put(&rpl_taken, lz_ev_get64(PAY(x)), c);
      if (x->type == LZ_EVT_RPL_CLAIM && x->len == LZ_RPL_CLAIM_BYTES)
        map_put(&rpl_claims, lz_ev_get64(PAY(x)), c);
    }
  match_wakeups();
  order_runs();
  rpl_index_entries();
  /* a thunk blocked on and not claimed by another capability: by the allocating one */
  for (unsigned c = 0; c < rpl_nstreams; c++)
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      const Ev *x = &rpl_streams[c].ev[i];
      if (x->type == LZ_EVT_RPL_BLOCK && x->len == LZ_RPL_CLAIM_BYTES && rpl_block_id(x) &&
          map_get(&rpl_claims, rpl_block_id(x)) < 0)
        map_put(&rpl_claims, rpl_block_id(x), LZ_THUNK_ID_CAP(rpl_block_id(x)));
    }
  rpl_ntids = (size_t)max_tid + n_creates + 16;
  rpl_rec2rep = calloc(rpl_ntids, sizeof(uint32_t));
  rpl_rep2rec = calloc(rpl_ntids, sizeof(uint32_t));
  rpl_threads = calloc(rpl_ntids, sizeof(LzThread *));
  rpl_runs = calloc(rpl_ntids, sizeof(uint32_t));
  if (!rpl_rec2rep || !rpl_rep2rec || !rpl_threads || !rpl_runs)
    lz_rpl_fail("--replay: out of memory reading the log");
  rpl_rec2rep[1] = rpl_rep2rec[1] = 1; /* the main thread */
#if LZ_PROF
  lz_prof_replay_begin(path, last_time);
#endif
}

const LzReplayHeader *lz_rpl_header(void) { return lz_replay_header(rpl_reader); }

long lz_rpl_stdin(void *buf, size_t n) {
  if (input_at == n_input) return 0;
  const Ev *e = &input[input_at];
  size_t have = e->len - 4 - input_byte;
  if (have > n) have = n;
  memcpy(buf, PAY(e) + 4 + input_byte, have);
  input_byte += have;
  if (input_byte == e->len - 4) input_at++, input_byte = 0;
  return (long)have;
}

#endif

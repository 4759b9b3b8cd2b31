/* replay_sched.c — replaying a recorded run (`+RTS --replay`): one capability at a time,
 * each following its recorded event stream, every emitted event compared with it.
 *
 * The log is read whole at start-up into one event list per capability. Capabilities
 * keep their OS threads, but a baton lets exactly one of them run at any moment. Each
 * capability replays its own stream: when it looks for work it takes exactly what the
 * recording says (the recorded thread from its run queue, a thread migrated from
 * another queue, or the spark with the recorded id from the recorded pool, fizzled
 * ones included), and a running thread stops exactly at its recorded stop (a
 * pre-emption at the heap check with the recorded code and stack depth once the
 * capability's allocation count reaches the recorded one; a block only where the
 * recording blocked). An update that woke threads in the recording first waits until
 * they have blocked on it, and wakes them in the recorded order (Note [Replay
 * wake-ups]). Whenever what a capability needs is not there yet
 * — a spark another capability has not pushed, a thread not yet woken, a thunk another
 * capability still has to claim or update — it hands the baton to the next capability;
 * if every capability is waiting the replay is stuck, which is a divergence. The run's
 * own event log goes to a sink that compares it, event by event per capability, with
 * the recording (thread ids up to the renaming made at thread creation), and stops the
 * program at the first difference with exit status 3. Note [Replay] in
 * docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_dup.h"
#include "replay_step.h"
#include "replaylog.h"
#if LZ_PROF
#include "prof.h" /* profiling a replay: Note [Profiling] */
#endif

/* ---- the recording, in memory ------------------------------------------------------------- */

typedef struct Ev {
  uint16_t type;
  uint8_t done; /* THREAD_WAKEUP: its thread has blocked on the thunk (lz_replay_before_update) */
  uint32_t len;
  size_t off;     /* payload in `arena` */
  uint64_t index; /* number of the event in the file (what messages call #N) */
  uint64_t time;
  uint64_t thunk; /* THREAD_WAKEUP: the id of the thunk whose update woke the thread;
                   * RPL_BLOCK with id 0: the id from its wake-up; 0: not known
                   * (match_wakeups); RUN_THREAD: the how-manieth run of its thread it is
                   * (order_runs) */
} Ev;

/* A THREAD_WAKEUP of the current slice under its thunk's id: sorted by (thunk, at), an
 * update finds the wake-ups it gives by binary search (a scan of all of them per update
 * was quadratic in long slices: 45 % of a quicksort replay). */
typedef struct WakeKey {
  uint64_t thunk;
  size_t at; /* index of the event */
} WakeKey;

static int wake_key_order(const void *a, const void *b) {
  const WakeKey *x = a, *y = b;
  if (x->thunk != y->thunk) return x->thunk < y->thunk ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

typedef struct Stream {
  Ev *ev;
  size_t n, room;
  size_t ctl;         /* next event the scheduling decisions look at */
  size_t cmp;         /* next event the comparison expects */
  bool in_slice;      /* a thread is running: its recorded stop is slice_* */
  size_t wake_at;     /* its next recorded THREAD_WAKEUP not yet done (or slice_at) */
  size_t woke_at;     /* the slice's next THREAD_WAKEUP not yet emitted */
  struct WakeKey *wk; /* the slice's THREAD_WAKEUPs whose thunk is known, by (thunk, index) */
  size_t nwk, wk_room;
  size_t run_at;   /* index of the slice's RUN_THREAD */
  bool won;        /* lazy blackholing: the update about to be made won in the recording */
  size_t slice_at; /* index of its RPL_SLICE (n if the recording ends first) */
  uint16_t slice_why;
  uint64_t slice_alloc;
  size_t yield_at; /* its RPL_YIELD (slice_at: none) */
  bool skip_check; /* the next heap check goes on: lz_rpl_yield_here said no */
} Stream;

static LzReplayReader *reader;
/* LZ_REPLAY_TRACE set: the replay's waits and slices on stderr (a debugging aid) */
static bool tracing;
#define TRACE(...)                                                                                 \
  do {                                                                                             \
    if (tracing) fprintf(stderr, "replay: " __VA_ARGS__);                                          \
  } while (0)
static Stream *streams;
static unsigned nstreams;
static uint8_t *arena;
static size_t arena_n, arena_room;
static Ev *input; /* stdin reads, in time order */
static size_t n_input, input_at, input_byte;
/* Open-addressing maps from a nonzero id to a capability (0: empty slot): `stolen`, spark
 * id -> the thief; `claims`, thunk id -> the capability that claimed it (RPL_CLAIM, or
 * the allocating one for a thunk blocked on: Note [Thunk ids]). */
typedef struct IdMap {
  uint64_t *key;
  uint16_t *cap;
  size_t mask, n;
  unsigned shift; /* 64 - log2(slots): the slot is the product's top bits */
} IdMap;
static IdMap stolen, claims, taken; /* taken: spark ids of every RPL_SPARK */
static uint32_t *rec2rep, *rep2rec; /* thread ids: recorded <-> this run */
static uint32_t *runs;              /* by this run's id: slices the thread has begun */
static LzThread **threads;          /* by this run's id */
static size_t ntids;

static const uint8_t *PAY(const Ev *e) { return arena + e->off; }

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

static void *grow(void *p, size_t *room, size_t need, size_t elem) {
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

/* Fibonacci hashing takes the product's top bits: its low bits depend only on the id's
 * low bits, which are nearly constant (a thunk id's size and entry bits, Note [Thunk
 * ids]), and linear probing through the resulting clusters made lookups slow. */
static size_t slot_of(const IdMap *m, uint64_t id) {
  return (size_t)((id * 0x9E3779B97F4A7C15ull) >> m->shift);
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

static int map_get(const IdMap *m, uint64_t id) { /* the capability, or -1 */
  if (!m->key) return -1;
  size_t i = slot_of(m, id);
  while (m->key[i]) {
    if (m->key[i] == id) return m->cap[i];
    i = (i + 1) & m->mask;
  }
  return -1;
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
static uint64_t block_id(const Ev *x) {
  return lz_ev_get64(PAY(x)) ? lz_ev_get64(PAY(x)) : x->thunk;
}

static int by_tid_time(const void *a, const void *b) {
  const Block *x = a, *y = b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index ? 1 : 0;
}

static void match_wakeups(void) {
  Block *b = NULL;
  size_t nb = 0, room = 0;
  for (unsigned c = 0; c < nstreams; c++) {
    const Block *pending = NULL;
    Block blk = {0, 0, 0, NULL, 0};
    uint64_t waking = 0; /* the id of an RPL_WAKE followed so far only by wake-ups */
    for (size_t i = 0; i < streams[c].n; i++) {
      Ev *x = &streams[c].ev[i];
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
          b = grow(b, &room, nb + 1, sizeof(Block));
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
  for (unsigned c = 0; c < nstreams; c++)
    for (size_t i = 0; i < streams[c].n; i++) {
      Ev *x = &streams[c].ev[i];
      if (x->type != LZ_EVT_THREAD_WAKEUP || x->len < 4) continue;
      w = grow(w, &wroom, nw + 1, sizeof(Block));
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
  for (unsigned c = 0; c < nstreams; c++)
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
    for (unsigned c = 0; c < nstreams; c++) {
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
  for (unsigned c = 0; c < nstreams; c++)
    for (size_t i = 0; i < streams[c].n; i++) {
      Ev *x = &streams[c].ev[i];
      if ((x->type != LZ_EVT_RUN_THREAD && x->type != LZ_EVT_MIGRATE_THREAD) || x->len < 4)
        continue;
      it = grow(it, &room, n + 1, sizeof(RunItem));
      it[n++] = (RunItem){lz_ev_get32(PAY(x)), c, x};
    }
  qsort(it, n, sizeof(RunItem), by_tid_cap_index);
  RunSeg *seg = malloc(nstreams * sizeof(RunSeg));
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
  for (unsigned c = 0; c < nstreams; c++)
    for (size_t i = 0; i < streams[c].n; i++) {
      Ev *x = &streams[c].ev[i];
      if (x->type != LZ_EVT_RUN_THREAD || x->len < 4) continue;
      r = grow(r, &room, nr + 1, sizeof(Block));
      r[nr++] = (Block){lz_ev_get32(PAY(x)), x->time, 0, x, x->index};
    }
  qsort(r, nr, sizeof(Block), by_tid_time);
  for (size_t k = 0; k < nr; k++)
    r[k].ev->thunk = k > 0 && r[k - 1].tid == r[k].tid ? r[k - 1].ev->thunk + 1 : 1;
  free(r);
  walk_all_runs();
}

/* ---- lazy blackholing (Note [Lazy blackholing replay] in docs/notes/replay.md) ----------
 * Every recorded entry (RPL_CLAIM) by thunk id: an update waits until the other
 * capabilities' entries of its thunk have happened (in the recording they found it
 * unevaluated, so they came before every update of it), and an entry goes on only where
 * the recording shows it (or where it is the allocating capability's own, no other
 * capability having entered the thunk yet). */
typedef struct Entry {
  uint64_t id;
  unsigned cap;
  size_t i;     /* its index in the capability's stream; done: Ev.done */
  bool join;    /* RPL_JOIN: the thunk's own capability had entered it before */
  uint32_t tid; /* the recorded thread that entered it (its slice's) */
} Entry;
static Entry *entries, *wons; /* RPL_CLAIM and RPL_JOIN; RPL_WON */
static size_t nentries, nwons;

static int by_entry_id(const void *a, const void *b) {
  const Entry *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id ? 1 : x->cap < y->cap ? -1 : x->cap > y->cap ? 1 : 0;
}

static void index_entries(void) {
  size_t room = 0, wroom = 0;
  for (unsigned c = 0; c < nstreams; c++) {
    uint32_t tid = 0;
    for (size_t i = 0; i < streams[c].n; i++) {
      const Ev *x = &streams[c].ev[i];
      if (x->type == LZ_EVT_RUN_THREAD && x->len >= 4) tid = lz_ev_get32(PAY(x));
      if (x->type == LZ_EVT_RPL_WON && x->len == LZ_RPL_CLAIM_BYTES) {
        wons = grow(wons, &wroom, nwons + 1, sizeof(Entry));
        wons[nwons++] = (Entry){lz_ev_get64(PAY(x)), c, i, false, tid};
      }
      if ((x->type != LZ_EVT_RPL_CLAIM && x->type != LZ_EVT_RPL_JOIN) ||
          x->len != LZ_RPL_CLAIM_BYTES)
        continue;
      entries = grow(entries, &room, nentries + 1, sizeof(Entry));
      entries[nentries++] = (Entry){lz_ev_get64(PAY(x)), c, i, x->type == LZ_EVT_RPL_JOIN, tid};
    }
  }
  if (nentries) qsort(entries, nentries, sizeof(Entry), by_entry_id);
  if (nwons) qsort(wons, nwons, sizeof(Entry), by_entry_id);
}

static size_t first_of(const Entry *a, size_t n, uint64_t id) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (a[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}
static size_t first_entry(uint64_t id) { return first_of(entries, nentries, id); }
static size_t first_won(uint64_t id) { return first_of(wons, nwons, id); }

static Ev *entry_ev(const Entry *e) { return &streams[e->cap].ev[e->i]; }

void lz_rpl_load(const char *path) {
  uint8_t self[LZ_SHA256_BYTES];
  char err[2048];
  tracing = getenv("LZ_REPLAY_TRACE") != NULL;
  if (lz_exe_identity(self, err, sizeof err) != 0) lz_rpl_fail("--replay: %s", err);
  reader = lz_replay_open(path, self, err, sizeof err);
  if (!reader) lz_rpl_fail("%s", err);
  const LzReplayHeader *h = lz_replay_header(reader);
  if (h->ncaps < 1 || h->ncaps > 256) lz_rpl_fail("%s: the log's header says -N%u", path, h->ncaps);
  nstreams = h->ncaps;
  streams = calloc(nstreams, sizeof *streams);
  size_t n_sparks = 0, n_steals = 0, n_claims = 0, n_creates = 0, input_room = 0;
  uint32_t max_tid = 1;
  LzReplayEvent e;
  int r;
  uint64_t last_time = 0;
  while ((r = lz_replay_next_event(reader, &e)) == LZ_REPLAY_EVENT) {
    if (e.time > last_time) last_time = e.time;
    if (e.cap == LZ_EV_CAP_GLOBAL || lz_rpl_timing_dependent(e.type)) continue;
    if (e.cap >= nstreams)
      lz_rpl_fail("%s: event #%llu is on capability %u, but the run had -N%u", path,
                  (unsigned long long)e.index, e.cap, nstreams);
    Stream *s = &streams[e.cap];
    s->ev = grow(s->ev, &s->room, s->n + 1, sizeof(Ev));
    arena = grow(arena, &arena_room, arena_n + e.len, 1);
    memcpy(arena + arena_n, e.payload, e.len);
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
      input = grow(input, &input_room, n_input + 1, sizeof(Ev));
      input[n_input++] = *x;
    }
  }
  if (r == LZ_REPLAY_ERROR) lz_rpl_fail("%s", lz_replay_error(reader));
  if (!lz_replay_complete(reader))
    lz_message("--replay: %s is incomplete (the recorded program was killed): replaying as "
               "far as it goes",
               path);
  qsort(input, n_input, sizeof(Ev), by_time);
  map_init(&stolen, n_steals);
  map_init(&taken, n_sparks);
  map_init(&claims, n_claims);
  for (unsigned c = 0; c < nstreams; c++)
    for (size_t i = 0; i < streams[c].n; i++) {
      const Ev *x = &streams[c].ev[i];
      if (x->type == LZ_EVT_RPL_SPARK && x->len == LZ_RPL_SPARK_BYTES &&
          PAY(x)[8] == LZ_SPARK_EV_STEAL)
        map_put(&stolen, lz_ev_get64(PAY(x)), c);
      if (x->type == LZ_EVT_RPL_SPARK && x->len == LZ_RPL_SPARK_BYTES)
        map_put(&taken, lz_ev_get64(PAY(x)), c);
      if (x->type == LZ_EVT_RPL_CLAIM && x->len == LZ_RPL_CLAIM_BYTES)
        map_put(&claims, lz_ev_get64(PAY(x)), c);
    }
  match_wakeups();
  order_runs();
  index_entries();
  /* a thunk blocked on and not claimed by another capability: by the allocating one */
  for (unsigned c = 0; c < nstreams; c++)
    for (size_t i = 0; i < streams[c].n; i++) {
      const Ev *x = &streams[c].ev[i];
      if (x->type == LZ_EVT_RPL_BLOCK && x->len == LZ_RPL_CLAIM_BYTES && block_id(x) &&
          map_get(&claims, block_id(x)) < 0)
        map_put(&claims, block_id(x), LZ_THUNK_ID_CAP(block_id(x)));
    }
  ntids = (size_t)max_tid + n_creates + 16;
  rec2rep = calloc(ntids, sizeof(uint32_t));
  rep2rec = calloc(ntids, sizeof(uint32_t));
  threads = calloc(ntids, sizeof(LzThread *));
  runs = calloc(ntids, sizeof(uint32_t));
  if (!rec2rep || !rep2rec || !threads || !runs)
    lz_rpl_fail("--replay: out of memory reading the log");
  rec2rep[1] = rep2rec[1] = 1; /* the main thread */
#if LZ_PROF
  lz_prof_replay_begin(path, last_time);
#endif
}

const LzReplayHeader *lz_rpl_header(void) { return lz_replay_header(reader); }

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

/* ---- describing events (messages) ----------------------------------------------------------- */

static void describe(char *out, size_t n, uint16_t type, const uint8_t *p, uint32_t len) {
  const char *d = lz_replay_type_desc(reader, type);
  /* the replay events' descriptions end with how the log stores the fields; the fields
   * decoded follow here instead */
  const char *cut =
      d && type >= LZ_EVT_RPL_SLICE && type <= LZ_EVT_RPL_JOIN ? strstr(d, " (") : NULL;
  int k = snprintf(out, n, "%.*s", cut ? (int)(cut - d) : (int)strlen(d ? d : "?"), d ? d : "?");
  if (k < 0 || (size_t)k >= n) return;
  out += k, n -= (size_t)k;
  switch (type) {
  case LZ_EVT_STOP_THREAD:
    if (len >= 6)
      snprintf(out, n, " (thread %u, %s)", lz_ev_get32(p),
               lz_ev_stop_status_name(lz_ev_get16(p + 4)));
    return;
  case LZ_EVT_CREATE_THREAD:
  case LZ_EVT_RUN_THREAD:
  case LZ_EVT_THREAD_RUNNABLE:
  case LZ_EVT_CREATE_SPARK_THREAD:
    if (len >= 4) snprintf(out, n, " (thread %u)", lz_ev_get32(p));
    return;
  case LZ_EVT_MIGRATE_THREAD:
  case LZ_EVT_THREAD_WAKEUP:
    if (len >= 6)
      snprintf(out, n, " (thread %u, capability %u)", lz_ev_get32(p), lz_ev_get16(p + 4));
    return;
  case LZ_EVT_RPL_SLICE:
    if (len >= LZ_RPL_SLICE_BYTES)
      snprintf(out, n, " (thread %u, why %u, allocated %llu bytes)", lz_ev_get32(p),
               lz_ev_get16(p + 4), (unsigned long long)lz_ev_get64(p + 6));
    return;
  case LZ_EVT_RPL_SPARK:
    if (len >= LZ_RPL_SPARK_BYTES)
      snprintf(out, n, " (spark %llu:%llu, %s, pool %u)",
               (unsigned long long)LZ_SPARK_ID_CAP(lz_ev_get64(p)),
               (unsigned long long)LZ_SPARK_ID_SEQ(lz_ev_get64(p)),
               p[8] == LZ_SPARK_EV_RUN     ? "run"
               : p[8] == LZ_SPARK_EV_STEAL ? "stolen"
                                           : "fizzled",
               lz_ev_get16(p + 9));
    return;
  case LZ_EVT_RPL_YIELD:
    if (len >= LZ_RPL_YIELD_BYTES)
      snprintf(out, n, " (code %llx, %u stack words, %u updates, %u above an update frame)",
               (unsigned long long)lz_ev_get64(p), lz_ev_get32(p + 8), lz_ev_get32(p + 12),
               lz_ev_get16(p + 16));
    return;
  case LZ_EVT_RPL_CLAIM:
  case LZ_EVT_RPL_BLOCK:
  case LZ_EVT_RPL_WAKE:
  case LZ_EVT_RPL_WON:
  case LZ_EVT_RPL_JOIN:
    if (len >= LZ_RPL_CLAIM_BYTES)
      snprintf(out, n, " (thunk %u:%llu)", LZ_THUNK_ID_CAP(lz_ev_get64(p)),
               (unsigned long long)(lz_ev_get64(p) & ((1ull << 47) - 2)));
    return;
  default: snprintf(out, n, " (%u payload bytes)", len);
  }
}

static _Noreturn void diverged(unsigned cap, const Ev *want, const char *got) {
  char w[256];
  if (want)
    describe(w, sizeof w, want->type, PAY(want), want->len);
  else
    snprintf(w, sizeof w, "no more events (the recording of capability %u ends here)", cap);
  if (want)
    lz_rpl_fail("replay diverged at event #%llu (capability %u): expected %s, got %s",
                (unsigned long long)want->index, cap, w, got);
  lz_rpl_fail("replay diverged on capability %u: expected %s, got %s", cap, w, got);
}

/* ---- comparing the run's event log with the recording ----------------------------------- */

static bool seen_header;
/* +RTS -l during a replay: the replay's own event log (Note [Replay's event log]) */
static FILE *tee;
static volatile int stuck_closing; /* the log is being closed because the replay is stuck */

static void compare(unsigned cap, uint16_t type, const uint8_t *p, uint32_t len) {
  if (lz_rpl_timing_dependent(type)) return;
  Stream *s = &streams[cap];
  uint8_t got[64];
  if (lz_rpl_has_tid(type) && len >= 4 && len <= sizeof got) {
    memcpy(got, p, len);
    uint32_t tid = lz_ev_get32(p);
    if (tid < ntids && rep2rec[tid]) lz_ev_put32(got, rep2rec[tid]);
    p = got;
  }
  if (s->cmp == s->n) {
    char g[256];
    describe(g, sizeof g, type, p, len);
    diverged(cap, NULL, g);
  }
  const Ev *want = &s->ev[s->cmp];
  if ((type == LZ_EVT_RPL_BLOCK || type == LZ_EVT_RPL_WAKE) && want->type == type &&
      want->len == len && !lz_ev_get64(PAY(want))) {
    /* the recording could not name the thunk (lz_replay_blocking; a CAF before the
     * recorder named CAFs there by their address) */
    s->cmp++;
    return;
  }
  if (want->type != type || want->len != len || memcmp(PAY(want), p, len) != 0) {
    char g[256];
    describe(g, sizeof g, type, p, len);
    diverged(cap, want, g);
  }
  s->cmp++;
}

/* The sink of the replay's event log: the header, then one block per call, then the end
 * marker (Note [Event log]). Blocks of capabilities are compared; global ones skipped. */
static size_t compare_sink(void *ctx, const void *bytes, size_t n) {
  (void)ctx;
  if (tee && (bytes ? fwrite(bytes, 1, n, tee) != n : fflush(tee) != 0)) {
    lz_message("error writing the replay's event log");
    tee = NULL;
  }
  if (!bytes) return 0;
  const uint8_t *p = bytes, *end = p + n;
  if (!seen_header) {
    seen_header = true;
    return n;
  }
  if (n < 24 || lz_ev_get16(p) != LZ_EVT_BLOCK_MARKER) return n; /* the end marker */
  uint32_t size = lz_ev_get32(p + 10);
  uint16_t cap = lz_ev_get16(p + 22);
  if (size < 24 || size > n)
    lz_rpl_fail("--replay: internal error: a block of %u bytes in a piece of %zu", size, n);
  end = p + size;
  if (cap == LZ_EV_CAP_GLOBAL || cap >= nstreams) return n;
  for (const uint8_t *q = p + 24; q + 10 <= end;) {
    uint16_t type = lz_ev_get16(q);
    q += 10;
    int sz = lz_replay_type_size(reader, type);
    uint32_t len;
    if (sz == LZ_EV_VAR) {
      len = lz_ev_get16(q);
      q += 2;
    } else if (sz >= 0) {
      len = (uint32_t)sz;
    } else {
      lz_rpl_fail("--replay: this run posted event type %u, which the recording does not declare",
                  type);
    }
    compare(cap, type, q, len);
    q += len;
  }
  return n;
}

bool lz_rpl_open_compare_log(int argc, char **argv) {
  LzEvOptions o = {0};
  o.classes = LZ_EVC_SCHED | LZ_EVC_USER;
  o.types = lz_rpl_types;
  o.ntypes = lz_rpl_ntypes;
  o.sink = compare_sink;
  o.chunk_bytes = 4096; /* small blocks: a divergence is seen soon after it happens */
  o.rts_id = "Lz-0.1 rts_rpl";
  if (lz_flags.eventlog) {
    char name[4096];
    const char *path = lz_flags.eventlog_file;
    if (!path) snprintf(name, sizeof name, "%s.eventlog", lz_prog_name), path = name;
    if (!(tee = fopen(path, "wb")))
      lz_die(1, "initEventLogFileWriter: can't open %s: %s", path, strerror(errno));
  }
  if (lz_eventlog_open(NULL, lz_ncaps, argc, argv, &o) != 0)
    lz_rpl_fail("--replay: cannot start the event log");
  for (unsigned i = 0; i < lz_ncaps; i++) {
    lz_caps[i]->rest->ev = lz_ev_cap_buf(i);
    lz_caps[i]->rest->ev_sparks = NULL;
  }
  return true;
}

/* After the log is closed (every block compared): was everything reproduced? */
void lz_rpl_finish(void) {
  if (stuck_closing) return;
  for (unsigned c = 0; c < nstreams; c++)
    if (streams[c].cmp < streams[c].n)
      diverged(c, &streams[c].ev[streams[c].cmp], "the end of the run");
}

/* ---- the baton ------------------------------------------------------------------------------ */

static unsigned fails;           /* consecutive capabilities that could not go on */
static uint64_t passes;          /* hand-overs since a slice last began or ended */
static __thread bool have_baton; /* this OS thread holds it */

static void baton_wait_turn(unsigned me) {
  lz_rpl_baton_await(me);
  have_baton = true;
}

static size_t next_control(Stream *s);
static LzSparkPool **debug_pools; /* for LZ_REPLAY_DEBUG's report */
static const LzReplaySchedOps *debug_ops;
static uint64_t debug_gate_id; /* the thunk the last claim gate waited for */

static _Noreturn void stuck(LzCap *cap, const char *what) {
  /* Every capability waits: nobody else runs, so the log may be closed from here; a
   * divergence in what was emitted so far is the better message. */
  stuck_closing = 1;
  lz_io_flush_all();
  for (unsigned i = 0; i < lz_ncaps; i++)
    lz_caps[i]->rest->ev = NULL;
  lz_eventlog_close();
  Stream *s = &streams[cap->cap_no];
  if (s->ctl >= s->n && !lz_replay_complete(reader))
    lz_rpl_fail("--replay: the (incomplete) recording ends here");
  if (getenv("LZ_REPLAY_DEBUG"))
    for (unsigned c = 0; c < nstreams; c++) {
      Stream *o = &streams[c];
      size_t i = next_control(o);
      char d[256] = "end";
      if (i < o->n) describe(d, sizeof d, o->ev[i].type, PAY(&o->ev[i]), o->ev[i].len);
      fprintf(stderr, "  capability %u: %s, next control event #%llu %s\n", c,
              o->in_slice ? "in a slice" : "between slices",
              i < o->n ? (unsigned long long)o->ev[i].index : 0ull, d);
      if (debug_gate_id)
        for (size_t k = 0; k < o->n; k++)
          if ((o->ev[k].type == LZ_EVT_RPL_CLAIM || o->ev[k].type == LZ_EVT_RPL_BLOCK) &&
              lz_ev_get64(PAY(&o->ev[k])) == debug_gate_id)
            fprintf(stderr, "    event #%llu names thunk %llx (the last gate's)\n",
                    (unsigned long long)o->ev[k].index, (unsigned long long)debug_gate_id);
      if (debug_ops && c < lz_ncaps) {
        fprintf(stderr, "    run queue:");
        for (LzThread *t = debug_ops->rq_peek(lz_caps[c]); t; t = t->link)
          fprintf(stderr, " %u (recorded %u)", t->id, t->id < ntids ? rep2rec[t->id] : 0);
        fprintf(stderr, "\n");
      }
      if (debug_pools) {
        LzSparkPool *p = debug_pools[c];
        int64_t t = atomic_load(&p->top), b = atomic_load(&p->bottom);
        LzSparkId id = t < b ? atomic_load(&p->slots[t & p->mask].id) : 0;
        fprintf(stderr, "    spark pool: %lld sparks, the oldest %llu:%llu\n", (long long)(b - t),
                (unsigned long long)LZ_SPARK_ID_CAP(id), (unsigned long long)LZ_SPARK_ID_SEQ(id));
      }
    }
  char w[256] = "nothing";
  if (s->ctl < s->n)
    describe(w, sizeof w, s->ev[s->ctl].type, PAY(&s->ev[s->ctl]), s->ev[s->ctl].len);
  lz_rpl_fail("replay diverged: every capability waits; capability %u waits for %s "
              "(its next recorded event: #%llu %s)",
              cap->cap_no, what, s->ctl < s->n ? (unsigned long long)s->ev[s->ctl].index : 0ull, w);
}

/* Hold the baton with ok(arg) true, letting the other capabilities run meanwhile. */
static void wait_until(LzCap *cap, bool (*ok)(void *), void *arg, const char *what) {
  if (!have_baton) baton_wait_turn(cap->cap_no);
  while (!ok(arg)) {
    if (++fails > lz_ncaps + 1 || ++passes > 100000) /* nobody can go on, or a livelock */
      stuck(cap, what);
    TRACE("capability %u waits for %s (%u in a row)\n", cap->cap_no, what, fails);
    lz_rpl_baton_pass((cap->cap_no + 1) % lz_ncaps);
    lz_rpl_baton_await(cap->cap_no);
  }
  fails = 0;
}

static bool never(void *arg) {
  (void)arg;
  return false;
}

/* A slice the recording does not end (the program exited while it ran) is not run. */
LZ_FN(lz_replay_park_entry) {
  wait_until(cap, never, NULL, "nothing (its thread was running when the recording ended)");
}

/* ---- reserved sparks ------------------------------------------------------------------------
 * Note [Reserved sparks]: a spark the recording says another capability stole is, until
 * that capability takes it, a thunk nobody else may claim: its info word points to
 * lz_replay_reserved_info and its spare word keeps the real info. Entering it waits. */

LZ_FN(lz_replay_reserved_entry);
static const LzInfo reserved_info = {lz_replay_reserved_entry, LZ_THUNK, 0, 0, 0, 0,
                                     "reserved spark"};

static bool not_reserved(void *x) { return ((LzWord *)x)[0] != (LzWord)&reserved_info; }

/* Reserved sparks a thread blocked on before their thief took them: the blackhole made
 * for the blocking is not a claim (see unreserve and lz_replay_before_update). */
#define MAX_PARKED 64
static LzWord *blocked_reserved[MAX_PARKED];
static unsigned n_blocked_reserved, pending_reserved_wakes;
LZ_FN(lz_blackhole_entry);

static bool at_block_point(LzCap *cap) {
  Stream *s = &streams[cap->cap_no];
  return s->in_slice && s->slice_why == LZ_STOP_BLOCKED && cap->alloc_bytes == s->slice_alloc;
}

LZ_FN(lz_replay_reserved_entry) {
  LzWord *x = LZ_UNTAG(r1);
  if (at_block_point(cap) && n_blocked_reserved < MAX_PARKED) {
    /* the recording blocked here, on the thief's blackhole: block on one of our own */
    blocked_reserved[n_blocked_reserved++] = x;
    pending_reserved_wakes++;
    x[0] = (LzWord)&lz_blackhole_info;
    LZ_JUMP(lz_blackhole_entry);
  }
  wait_until(cap, not_reserved, x, "a spark another capability steals");
  LZ_JUMP(lz_eval);
}

void lz_replay_spark_pushed(LzCap *cap, LzWord closure, LzSparkId id) {
  if (lz_step_on) lz_step_spark_pushed(cap, closure, id); /* its source, for the stepper */
  if (map_get(&stolen, id) < 0 || LZ_TAG(closure)) return;
  LzWord *x = LZ_UNTAG(closure);
  if (x[0] == (LzWord)&reserved_info || ((const LzInfo *)x[0])->type != LZ_THUNK) return;
  if (lz_replay_thunk_id(x)) return; /* the claim gate keeps it for the thief (Note [Thunk ids]) */
  x[1] = x[0];
  x[0] = (LzWord)&reserved_info;
}

static bool pool_has_room(void *arg) {
  LzSparkPool *p = arg;
  return atomic_load(&p->bottom) - atomic_load(&p->top) <= p->mask;
}

bool lz_replay_spark_new(LzCap *cap, LzSparkPool *pool, LzWord closure) {
  LzSparkId id = LZ_SPARK_ID_MAKE(pool->cap_no, pool->seq + 1);
  if (map_get(&taken, id) < 0) {
    pool->seq++;
    return false;
  }
  /* full: in the recording the thieves had taken some by now */
  wait_until(cap, pool_has_room, pool, "room in its spark pool");
  if (lz_spark_new(pool, closure, &id) != LZ_SPARK_CREATED) return false;
  lz_replay_spark_pushed(cap, closure, id);
  return true;
}

static void unreserve(LzWord closure) {
  LzWord *x = LZ_UNTAG(closure);
  for (unsigned i = 0; i < n_blocked_reserved; i++)
    if (blocked_reserved[i] == x) { /* waiters stay in the wait list: see before_update */
      blocked_reserved[i] = blocked_reserved[--n_blocked_reserved];
      x[0] = x[1];
      x[1] = 0;
      return;
    }
  if (!LZ_TAG(closure) && x[0] == (LzWord)&reserved_info) {
    x[0] = x[1];
    x[1] = 0;
  }
}

/* ---- the scheduler's decisions ------------------------------------------------------------- */

static bool is_control(uint16_t t) {
  return t == LZ_EVT_CREATE_THREAD || t == LZ_EVT_RUN_THREAD || t == LZ_EVT_MIGRATE_THREAD ||
         t == LZ_EVT_RPL_SPARK || t == LZ_EVT_RPL_SLICE;
}

static size_t next_control_from(Stream *s, size_t i) {
  while (i < s->n && !is_control(s->ev[i].type))
    i++;
  return i;
}

static size_t next_control(Stream *s) { return next_control_from(s, s->ctl); }

static uint32_t map_tid(uint32_t rec) { return rec < ntids ? rec2rep[rec] : 0; }

LZ_FN(lz_replay_park_entry);

/* The next THREAD_WAKEUP of the slice whose thunk the recording does not name. */
static size_t next_wakeup(Stream *s, size_t from) {
  while (from < s->slice_at && (s->ev[from].type != LZ_EVT_THREAD_WAKEUP || s->ev[from].thunk))
    from++;
  return from;
}

static void begin_slice(LzCap *cap, Stream *s, size_t run_at, LzThread *t) {
  passes = 0;
  TRACE("capability %u: slice #%llu, thread %u\n", cap->cap_no,
        (unsigned long long)s->ev[run_at].index, t->id);
  if (t->id < ntids) threads[t->id] = t, runs[t->id]++;
  s->ctl = run_at + 1;
  size_t k = run_at + 1;
  while (k < s->n && s->ev[k].type != LZ_EVT_RPL_SLICE)
    k++;
  s->in_slice = true;
  s->run_at = run_at;
  s->slice_at = k;
  s->slice_why = k < s->n ? lz_ev_get16(PAY(&s->ev[k]) + 4) : 0xffff;
  s->slice_alloc = k < s->n ? lz_ev_get64(PAY(&s->ev[k]) + 6) : 0;
  s->wake_at = next_wakeup(s, run_at + 1);
  s->woke_at = run_at + 1;
  s->yield_at = k;
  s->skip_check = false;
  for (size_t i = k; i > run_at + 1 && s->slice_why == LZ_STOP_YIELD; i--)
    if (s->ev[i - 1].type == LZ_EVT_RPL_YIELD && s->ev[i - 1].len == LZ_RPL_YIELD_BYTES) {
      s->yield_at = i - 1;
      break;
    }
  s->nwk = 0;
  for (size_t i = run_at + 1; i < k; i++)
    if (s->ev[i].type == LZ_EVT_THREAD_WAKEUP && s->ev[i].thunk) {
      s->wk = grow(s->wk, &s->wk_room, s->nwk + 1, sizeof(WakeKey));
      s->wk[s->nwk++] = (WakeKey){s->ev[i].thunk, i};
    }
  if (s->nwk > 1) qsort(s->wk, s->nwk, sizeof(WakeKey), wake_key_order);
#if LZ_PROF
  lz_prof_replay_event(cap, s->ev[run_at].time); /* the recorded slice starts */
#endif
  if (lz_dup_on) /* --dup-report: the recorded clock (replay_dup.h) */
    lz_dup_slice(cap, t, s->ev[run_at].time, k < s->n ? s->ev[k].time : 0, s->slice_alloc,
                 k < s->n);
  cap->yield = s->slice_why == LZ_STOP_YIELD;
  if (k == s->n && t->kind != LZ_THREAD_MAIN)
    t->next = lz_replay_park_entry; /* the main thread's last slice ends in lz_exit */
}

void lz_rpl_slice_done(LzCap *cap) {
  passes = 0;
  Stream *s = &streams[cap->cap_no];
#if LZ_PROF
  if (s->in_slice && s->slice_at < s->n) lz_prof_replay_event(cap, s->ev[s->slice_at].time);
#endif
  if (s->in_slice && s->slice_at < s->n) s->ctl = s->slice_at + 1;
  s->in_slice = false;
}

typedef struct PoolWant {
  LzSparkPool *pool;
  LzSparkId id;
} PoolWant;

static bool pool_top_is(void *arg) {
  PoolWant *w = arg;
  int64_t t = atomic_load(&w->pool->top), b = atomic_load(&w->pool->bottom);
  return t < b && atomic_load(&w->pool->slots[t & w->pool->mask].id) == w->id;
}

typedef struct RqWant {
  const LzReplaySchedOps *ops;
  LzCap *cap;
  uint32_t rec, tid; /* recorded id; this run's (0 until the thread is made, maybe by
                      * another capability meanwhile) */
  uint64_t nth;      /* the run of the thread that the recording has next here (order_runs) */
} RqWant;

/* Is the thread anywhere in v's run queue? Not only at its head: the order of a run queue
 * depends on when other capabilities woke threads into it, which the replay does not
 * reproduce (a capability may reach a recorded yield before another wakes a thread it
 * woke earlier in the recording); the recording names the thread that runs. The queue is
 * read without its lock: only the baton holder runs. */
static bool rq_holds(RqWant *w, LzCap *v) {
  if (!w->tid) w->tid = map_tid(w->rec);
  if (!w->tid) return false;
  if (w->nth && w->tid < ntids && runs[w->tid] + 1 != w->nth) { /* not yet */
    TRACE("thread %u has begun %u runs, waits for run %llu\n", w->tid, runs[w->tid],
          (unsigned long long)w->nth);
    return false;
  }
  for (LzThread *t = w->ops->rq_peek(v); t; t = t->link)
    if (t->id == w->tid) return true;
  return false;
}

static bool rq_has(void *arg) {
  RqWant *w = arg;
  return rq_holds(w, w->cap);
}

static bool other_rq_has(void *arg) {
  RqWant *w = arg;
  for (unsigned k = 1; k < lz_ncaps; k++)
    if (rq_holds(w, lz_caps[(w->cap->cap_no + k) % lz_ncaps])) return true;
  return false;
}

static void bad(Stream *s, size_t i, unsigned cap, const char *got) {
  diverged(cap, i < s->n ? &s->ev[i] : NULL, got);
}

LzThread *lz_replay_find_work(LzCap *cap, const LzReplaySchedOps *ops) {
  if (!have_baton) baton_wait_turn(cap->cap_no);
  debug_pools = ops->pools;
  debug_ops = ops;
  Stream *s = &streams[cap->cap_no];
  for (;;) {
    size_t i = next_control(s);
    if (i == s->n)
      wait_until(cap, never, NULL, "work (the recording of this capability has ended)");
    const Ev *e = &s->ev[i];
    const uint8_t *p = PAY(e);
    switch (e->type) {
    case LZ_EVT_RPL_SPARK: {
      LzSparkId id = lz_ev_get64(p);
      unsigned kind = p[8], from = lz_ev_get16(p + 9);
      if (from >= lz_ncaps) bad(s, i, cap->cap_no, "a spark pool that does not exist");
      PoolWant w = {ops->pools[from], id};
      wait_until(cap, pool_top_is, &w, "a spark to be pushed");
      LzSpark sp;
      if (lz_spark_pool_steal(w.pool, &sp) != LZ_SPARK_OK || sp.id != id)
        bad(s, i, cap->cap_no, "a different spark");
      LzSparkCounters *k = &ops->pools[cap->cap_no]->counters;
      if (kind == LZ_SPARK_EV_FIZZLE)
        k->fizzled++;
      else
        k->converted++;
      lz_replay_post_spark(cap, id, (LzSparkEvent)kind, from);
      s->ctl = i + 1;
      if (kind == LZ_SPARK_EV_FIZZLE) continue;
      unreserve(sp.closure);
      LzThread *t = ops->spark_thread(cap);
      size_t j = next_control(s);
      if (j < s->n && s->ev[j].type == LZ_EVT_CREATE_THREAD) {
        uint32_t rec = lz_ev_get32(PAY(&s->ev[j]));
        if (rec < ntids && t->id < ntids) rec2rep[rec] = t->id, rep2rec[t->id] = rec;
        s->ctl = j + 1;
        j = next_control(s);
      }
      if (j == s->n || s->ev[j].type != LZ_EVT_RUN_THREAD ||
          map_tid(lz_ev_get32(PAY(&s->ev[j]))) != t->id)
        bad(s, j, cap->cap_no, "a spark thread starting");
      t->next = lz_eval;
      t->r1 = sp.closure;
      begin_slice(cap, s, j, t);
      if (lz_dup_on) lz_dup_spark_run(cap, t, sp.closure, id); /* --dup-report */
      return t;
    }
    case LZ_EVT_MIGRATE_THREAD: {
      size_t r = next_control_from(s, i + 1);
      RqWant w = {ops, cap, lz_ev_get32(p), map_tid(lz_ev_get32(p)),
                  r < s->n && s->ev[r].type == LZ_EVT_RUN_THREAD ? s->ev[r].thunk : 0};
      wait_until(cap, other_rq_has, &w, "a runnable thread on another capability");
      LzThread *t = NULL;
      for (unsigned k = 1; k < lz_ncaps && !t; k++)
        t = ops->rq_take(lz_caps[(cap->cap_no + k) % lz_ncaps], w.tid);
      lz_ev_migrate_thread(cap->rest->ev, t->id, (uint16_t)cap->cap_no);
      s->ctl = i + 1;
      size_t j = next_control(s);
      if (j == s->n || s->ev[j].type != LZ_EVT_RUN_THREAD ||
          map_tid(lz_ev_get32(PAY(&s->ev[j]))) != t->id)
        bad(s, j, cap->cap_no, "a migrated thread starting");
      begin_slice(cap, s, j, t);
      return t;
    }
    case LZ_EVT_RUN_THREAD: {
      RqWant w = {ops, cap, lz_ev_get32(p), map_tid(lz_ev_get32(p)), e->thunk};
      wait_until(cap, rq_has, &w, "a thread in its run queue");
      LzThread *t = ops->rq_take(cap, w.tid);
      begin_slice(cap, s, i, t);
      return t;
    }
    case LZ_EVT_CREATE_THREAD: /* the main thread's, made before the scheduler ran */
      if (!map_tid(lz_ev_get32(p))) bad(s, i, cap->cap_no, "no thread created");
      s->ctl = i + 1;
      continue;
    default: bad(s, i, cap->cap_no, "the scheduler looking for work");
    }
  }
}

/* lz_exit: every other capability replays what it still has (the recording's
 * capabilities ran until they were stopped), then waits for the baton for ever. */
static bool others_done(void *arg) {
  LzCap *self = arg;
  for (unsigned c = 0; c < nstreams; c++) {
    Stream *s = &streams[c];
    if (c == self->cap_no) continue;
    if (s->in_slice ? s->slice_at < s->n : next_control(s) < s->n) return false;
  }
  return true;
}

void lz_rpl_exiting(void) {
  LzCap *cap = lz_current_cap;
  if (cap) wait_until(cap, others_done, cap, "the other capabilities to finish");
}

typedef struct BlockWant {
  uint32_t rec; /* the recorded thread id */
  LzThread *t;
  bool given_up;
  LzWord on; /* nonzero: until it has blocked on this thunk */
} BlockWant;

static bool has_blocked(void *arg) {
  BlockWant *w = arg;
  if (!w->t) { /* not made yet (a spark thread of another capability) */
    uint32_t rep = map_tid(w->rec);
    w->t = rep && rep < ntids ? threads[rep] : NULL;
  }
  if (w->on) return w->t && w->t->blocked_on == w->on;
  if (w->t && w->t->blocked_on != 0) return true;
  /* everyone else waits: the thread cannot block before this update; go on */
  if (fails >= lz_ncaps) return w->given_up = true;
  return false;
}

/* Lazy blackholing: have the other capabilities' recorded entries of thunk `id` happened? */
typedef struct EntriesWant {
  uint64_t id;
  unsigned cap;
  LzWord *x;
} EntriesWant;

/* ... and the thunk's own capability's first entry (unrecorded), which an RPL_JOIN says
 * came before another capability's: it has marked the id here (or the thunk is updated) */
static bool others_entered(void *arg) {
  EntriesWant *w = arg;
  bool owner = false;
  for (size_t k = first_entry(w->id); k < nentries && entries[k].id == w->id; k++) {
    if (entries[k].cap != w->cap && !entry_ev(&entries[k])->done) return false;
    owner |= entries[k].join;
  }
  if (!owner || LZ_THUNK_ID_CAP(w->id) == w->cap) return true;
  LzWord spare = __atomic_load_n(&w->x[1], __ATOMIC_RELAXED);
  return !LZ_IS_THUNK_ID(spare) || (spare & LZ_THUNK_ID_OWNER);
}

/* an IND, also a --dup-report watched one (its own info table: Note [Duplicate work]) */
static bool is_ind(void *x) {
  const LzInfo *info = (const LzInfo *)__atomic_load_n(&((LzWord *)x)[0], __ATOMIC_ACQUIRE);
  return info == &lz_ind_info || info->type == LZ_IND;
}

void lz_replay_lazy_blackholing(LzCap *cap, LzWord *thunk) {
  uint64_t id = lz_replay_thunk_id(thunk);
  EntriesWant ew = {id, cap->cap_no, thunk};
  if (id && streams[cap->cap_no].in_slice)
    wait_until(cap, others_entered, &ew, "other capabilities to enter the thunk it blackholes");
}

/* Lazy blackholing: before an update, the entries that preceded it in the recording; an
 * update of a shared thunk (or a CAF) that did not win in the recording (no RPL_WON of it
 * in this slice) waits for the winner's. Note [Lazy blackholing replay]. */
static void lazy_before_update(LzCap *cap, Stream *s, LzWord *thunk) {
  if (is_ind(thunk)) return; /* lost already */
  uint64_t id = lz_replay_thunk_id(thunk);
  if (!id || !s->in_slice) return;
  EntriesWant ew = {id, cap->cap_no, thunk};
  if (tracing && !others_entered(&ew))
    for (size_t k = first_entry(id); k < nentries && entries[k].id == id; k++)
      TRACE("capability %u updates %llx: entry #%llu on capability %u %s\n", cap->cap_no,
            (unsigned long long)id, (unsigned long long)entry_ev(&entries[k])->index,
            entries[k].cap, entry_ev(&entries[k])->done ? "done" : "to come");
  wait_until(cap, others_entered, &ew, "other capabilities to enter the thunk it updates");
  if (is_ind(thunk)) return;
  /* the recording, not this run's marks, says who won: an entry whose mark came after the
   * update in the recording (RPL_JOIN) may mark it before here */
  bool won_elsewhere = false;
  for (size_t k = first_won(id); k < nwons && wons[k].id == id; k++) {
    Ev *e = entry_ev(&wons[k]);
    if (wons[k].cap == cap->cap_no && !e->done && wons[k].i > s->run_at &&
        wons[k].i < s->slice_at) {
      e->done = 1;
      s->won = true; /* lz_replay_updating posts RPL_WON */
      return;
    }
    won_elsewhere = true;
  }
  /* no RPL_WON at all: the first update found no SHARED mark, so every recorded entry
   * marked it (or failed to: RPL_JOIN) after that update — the threads that made them lose
   * (the winner's entry was the allocating capability's first, unrecorded) */
  bool recorded_entry = false;
  uint32_t rec = cap->tso ? lz_rpl_rec_tid(((LzThread *)cap->tso)->id) : 0;
  for (size_t k = first_entry(id); k < nentries && entries[k].id == id && !won_elsewhere; k++)
    recorded_entry |= rec && entries[k].tid == rec;
  if (won_elsewhere || recorded_entry) {
    TRACE("capability %u: its update of %llx loses (%s)\n", cap->cap_no, (unsigned long long)id,
          won_elsewhere ? "RPL_WON elsewhere" : "its entry recorded, no RPL_WON");
    wait_until(cap, is_ind, thunk, "another capability's update of a thunk (lazy blackholing)");
  }
}

bool lz_rpl_lazy_won(LzCap *cap) {
  Stream *s = &streams[cap->cap_no];
  bool won = s->won;
  s->won = false;
  return won;
}

void lz_replay_before_update(LzCap *cap, LzWord *thunk) {
  Stream *s = &streams[cap->cap_no];
  if (cap->lazy_bh) lazy_before_update(cap, s, thunk);
  /* threads that blocked on it while it was reserved must be woken by this update */
  for (size_t i = 0; pending_reserved_wakes && i < ntids; i++)
    if (threads[i] && threads[i]->blocked_on == (LzWord)thunk) {
      __atomic_store_n(&thunk[0], (LzWord)&lz_blackhole_waited_info, __ATOMIC_RELEASE);
      pending_reserved_wakes--;
      break;
    }
  if (!s->in_slice) return;
  /* wake-ups the recording gives to this thunk's update: their threads block on it first,
   * wherever they run (they may first have to be woken and migrate) */
  LzWord id = s->nwk ? lz_replay_thunk_id(thunk) : 0;
  size_t lo = 0, hi = id ? s->nwk : 0; /* the first key with this thunk, in index order */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->wk[mid].thunk < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t j = lo; id && j < s->nwk && s->wk[j].thunk == id; j++) {
    Ev *e = &s->ev[s->wk[j].at];
    if (e->done) continue;
    BlockWant w = {lz_ev_get32(PAY(e)), NULL, false, (LzWord)thunk};
    TRACE("capability %u updates %llx: recorded thread %u blocks on it first\n", cap->cap_no,
          (unsigned long long)id, w.rec);
    wait_until(cap, has_blocked, &w, "a thread to block on the thunk this capability updates");
    e->done = 1;
  }
  /* the others (the recording could not name the thunk): let the next one block first */
  while (s->wake_at < s->slice_at) {
    uint32_t rec = lz_ev_get32(PAY(&s->ev[s->wake_at])), rep = map_tid(rec);
    LzThread *t = rep && rep < ntids ? threads[rep] : NULL;
    if (!t || t->blocked_on == 0) {
      BlockWant w = {rec, t, false, 0};
      wait_until(cap, has_blocked, &w, "a thread to block");
      if (w.given_up) {
        TRACE("capability %u updates %llx before recorded thread %u blocks (allocated %llu)\n",
              cap->cap_no, (unsigned long long)lz_replay_thunk_id(thunk), rec,
              (unsigned long long)cap->alloc_bytes);
        return;
      }
      t = w.t;
    }
    if (t->blocked_on != (LzWord)thunk)
      return; /* it waits for another thunk: its wake-up comes later */
    s->wake_at = next_wakeup(s, s->wake_at + 1);
  }
}

/* The woken threads in the order of the slice's THREAD_WAKEUPs from woke_at on. */
LzThread *lz_replay_wake_order(LzCap *cap, LzThread *woken) {
  Stream *s = &streams[cap->cap_no];
  if (!s->in_slice || !woken) return woken;
  LzThread *out = NULL, **tail = &out;
  for (size_t i = s->woke_at; woken && i < s->slice_at; i++) {
    if (s->ev[i].type != LZ_EVT_THREAD_WAKEUP) continue;
    uint32_t rep = map_tid(lz_ev_get32(PAY(&s->ev[i])));
    for (LzThread **pp = &woken; *pp; pp = &(*pp)->link)
      if ((*pp)->id == rep) {
        LzThread *t = *pp;
        *pp = t->link;
        *tail = t;
        tail = &t->link;
        s->woke_at = i + 1;
        break;
      }
  }
  *tail = woken; /* not in the recording's order: the comparison will say so */
  return out;
}

/* Pre-emption at a thunk's entry (Note [Replay], "a stop at a thunk's entry"): the heap
 * check of a thunk's code comes before its claim, and RPL_YIELD names the code by the
 * thunk's info word as lz_yield_enter reads it. Another capability may claim or update
 * the thunk in between, in the recording (the code is then a blackhole's or an IND's) or
 * in the replay, earlier than in the recording (the thread finds a blackhole where the
 * recording stopped at the thunk's code). Either way it is the same stop. */
static bool changed_thunk_code(uint64_t code) { /* a blackhole's or an IND's */
  return code == (uint64_t)((uintptr_t)&lz_blackhole_info - (uintptr_t)&lz_ind_info) ||
         code == (uint64_t)((uintptr_t)&lz_blackhole_waited_info - (uintptr_t)&lz_ind_info) ||
         code == 0;
}

static uintptr_t image_lo, image_hi; /* the loaded segment that holds lz_ind_info */

static int find_info_segment(struct dl_phdr_info *in, size_t n, void *arg) {
  (void)n, (void)arg;
  uintptr_t at = (uintptr_t)&lz_ind_info;
  for (int i = 0; i < in->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &in->dlpi_phdr[i];
    uintptr_t lo = in->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && at >= lo && at < lo + ph->p_memsz) {
      image_lo = lo, image_hi = lo + ph->p_memsz;
      return 1;
    }
  }
  return 0;
}

/* Is the recorded code a thunk's info table? (A log is data: only read inside that
 * segment, where the program's info tables are.) */
static bool thunk_code(uint64_t code) {
  static bool looked;
  if (!looked) looked = true, dl_iterate_phdr(find_info_segment, NULL);
  uintptr_t a = (uintptr_t)&lz_ind_info + (uintptr_t)code;
  if (a % 8 || a < image_lo || a + sizeof(LzInfo) > image_hi) return false;
  return ((const LzInfo *)a)->type == LZ_THUNK;
}

/* A recorded stop at the entry of a thunk, at the blackhole `thunk` is here. */
static bool stop_at_blackhole(uint64_t recorded) {
  return changed_thunk_code(recorded) || thunk_code(recorded);
}

/* Is the recorded stop (a blackhole's or an IND's code) this one, at the entry of an
 * unevaluated `thunk` that the claim gate leaves to another capability (eager), or that has
 * changed by then in the recording anyway (lazy), or at a blackhole? */
static bool stop_at_thunk(LzCap *cap, uint64_t recorded, const LzWord *thunk) {
  if (!thunk) return false;
  const LzInfo *info = (const LzInfo *)__atomic_load_n(&thunk[0], __ATOMIC_ACQUIRE);
  if (info->type == LZ_BLACKHOLE || info->type == LZ_IND) /* lz_replay_may_block, _stop_at_ind */
    return stop_at_blackhole(recorded);
  if (info->type != LZ_THUNK || !changed_thunk_code(recorded)) return false;
  uint64_t id = lz_replay_thunk_id(thunk);
  if (!id) return false;
  if (cap->lazy_bh) return true;
  int who = map_get(&claims, id);
  return who < 0 ? LZ_THUNK_ID_CAP(id) != cap->cap_no : (unsigned)who != cap->cap_no;
}

/* Note [Pre-emption in a loop] (docs/notes/replay.md): a heap check of the recorded code
 * at the recorded depth and allocation count is the recorded stop only if the slice has
 * made as many updates (mod 2^32) and the innermost update frame is as far below: between
 * two checks with all of these equal the thread has claimed nothing, so neither is the
 * other capabilities' business. Fewer updates: the stop is further on. More: the thread
 * did work here that it did not do in the recording; it stops, as before these were
 * recorded, and the comparison finds what differs. */
static bool position_reached(LzCap *cap, const uint8_t *yield, size_t depth) {
  uint32_t behind = lz_ev_get32(yield + 12) - cap->rest->slice_updates;
  if (behind) return behind >= 0x80000000u;
  return lz_ev_get16(yield + 16) == lz_replay_above_update(cap, depth);
}

bool lz_rpl_stop_at_ind(LzCap *cap, const LzWord *sp) {
  Stream *s = &streams[cap->cap_no];
  LzThread *t = cap->tso;
  if (!t || !s->in_slice || s->slice_why != LZ_STOP_YIELD || cap->alloc_bytes != s->slice_alloc ||
      s->yield_at >= s->slice_at)
    return false;
  const uint8_t *p = PAY(&s->ev[s->yield_at]);
  size_t depth = (size_t)(t->stack + t->stack_words - sp);
  if (lz_ev_get32(p + 8) != depth || !position_reached(cap, p, depth) ||
      !stop_at_blackhole(lz_ev_get64(p)))
    return false;
  TRACE("capability %u stops at an IND, where the recording stopped at a thunk's entry\n",
        cap->cap_no);
  return true;
}

/* Pre-emption: a function's heap check is passed without allocating when its path does not
 * allocate, so several checks can see the recorded allocation count; the recorded one is
 * the one in the recorded code at the recorded stack depth (RPL_YIELD). Not this one: the
 * thread re-enters the code, whose heap check asks again and is told to go on. */
bool lz_rpl_yield_here(LzCap *cap, uint64_t *code, uint32_t depth, const LzWord *thunk) {
  Stream *s = &streams[cap->cap_no];
  if (!s->in_slice || s->yield_at >= s->slice_at) return true; /* nothing recorded: here */
  const uint8_t *p = PAY(&s->ev[s->yield_at]);
  bool here = lz_ev_get32(p + 8) == depth && position_reached(cap, p, depth);
  if (here && lz_ev_get64(p) == *code) return true;
  if (here && stop_at_thunk(cap, lz_ev_get64(p), thunk)) {
    TRACE("capability %u: stops at the entry of thunk %llx, changed in one of the runs\n",
          cap->cap_no, (unsigned long long)lz_replay_thunk_id(thunk));
    *code = lz_ev_get64(p); /* as recorded */
    return true;
  }
  TRACE("capability %u: heap check %llx depth %u updates %u above %u (thunk %llx) is not the "
        "recorded stop (%llx depth %u updates %u above %u)\n",
        cap->cap_no, (unsigned long long)*code, depth, cap->rest->slice_updates,
        lz_replay_above_update(cap, depth),
        (unsigned long long)(thunk ? lz_replay_thunk_id(thunk) : 0),
        (unsigned long long)lz_ev_get64(p), lz_ev_get32(p + 8), lz_ev_get32(p + 12),
        lz_ev_get16(p + 16));
  s->skip_check = true;
  cap->yield = 1;
  return false;
}

void lz_rpl_no_recheck(LzCap *cap) { streams[cap->cap_no].skip_check = false; }

bool lz_replay_yield_wanted(LzCap *cap) {
  Stream *s = &streams[cap->cap_no];
  if (s->skip_check) { /* the heap check lz_rpl_yield_here sent the thread back to */
    s->skip_check = false;
    cap->yield = 1;
    return false;
  }
  if (!s->in_slice || s->slice_why != LZ_STOP_YIELD) {
    cap->yield = 0;
    return false;
  }
  if (cap->alloc_bytes == s->slice_alloc) return true;
  if (cap->alloc_bytes > s->slice_alloc) {
    char g[128];
    snprintf(g, sizeof g, "a thread still running with %llu bytes allocated",
             (unsigned long long)cap->alloc_bytes);
    diverged(cap->cap_no, &s->ev[s->slice_at], g);
  }
  /* The flag stays set: every heap check asks again, and between two of them the code goes
   * on (lz_yield_check, codegen's heap check), so the count keeps moving. */
  cap->yield = 1;
  return false;
}

static bool not_blackhole(void *x) {
  LzWord info = __atomic_load_n(&((LzWord *)x)[0], __ATOMIC_ACQUIRE);
  return info != (LzWord)&lz_blackhole_info && info != (LzWord)&lz_blackhole_waited_info;
}

/* The id of the thunk the running slice blocks on in the recording (RPL_BLOCK), or 0. */
static uint64_t recorded_block_id(Stream *s) {
  for (size_t i = s->ctl; i < s->slice_at && i < s->n; i++)
    if (s->ev[i].type == LZ_EVT_RPL_BLOCK && s->ev[i].len == LZ_RPL_CLAIM_BYTES)
      return block_id(&s->ev[i]);
  return 0;
}

int lz_replay_may_block(LzCap *cap, LzWord *thunk, size_t depth) {
  Stream *s = &streams[cap->cap_no];
  if (s->in_slice && s->slice_why == LZ_STOP_BLOCKED && cap->alloc_bytes == s->slice_alloc) {
    /* Note [Thunk ids]: not on another blackhole than the recorded one (that one was
     * updated in the recording by the time this thread came to it) */
    uint64_t want = recorded_block_id(s), id = lz_replay_thunk_id(thunk);
    if (!want || !id || want == id) return LZ_RPL_BH_BLOCK;
  }
  if (s->in_slice && s->slice_why == LZ_STOP_YIELD && cap->alloc_bytes == s->slice_alloc &&
      s->yield_at < s->slice_at) {
    /* the recorded stop was at this thunk's entry (stop_at_thunk) */
    const uint8_t *p = PAY(&s->ev[s->yield_at]);
    if (lz_ev_get32(p + 8) == depth && position_reached(cap, p, depth) &&
        stop_at_blackhole(lz_ev_get64(p))) {
      TRACE("capability %u stops at blackhole %llx, where the recording stopped\n", cap->cap_no,
            (unsigned long long)lz_replay_thunk_id(thunk));
      return LZ_RPL_BH_STOP;
    }
  }
  TRACE(
      "capability %u waits for blackhole %llx to be updated (allocated %llu, slice ends at %llu)\n",
      cap->cap_no, (unsigned long long)lz_replay_thunk_id(thunk),
      (unsigned long long)cap->alloc_bytes, (unsigned long long)s->slice_alloc);
  wait_until(cap, not_blackhole, thunk, "a thunk another thread evaluates");
  return LZ_RPL_BH_EVAL;
}

/* Note [Thunk ids]: a thunk the recording says another capability claimed (RPL_CLAIM,
 * RPL_BLOCK, a stolen spark), or another capability's thunk or a CAF whose claim here is
 * not recorded, is left to the others: entering it waits until it is claimed (a
 * blackhole), then evaluates it again, which blocks or waits for the update as the
 * recording did. */
typedef struct ClaimWant {
  LzWord *x;
  LzWord info;
} ClaimWant;

static bool claimed_meanwhile(void *arg) {
  ClaimWant *w = arg;
  return __atomic_load_n(&w->x[0], __ATOMIC_ACQUIRE) != w->info;
}

/* Lazy blackholing: an entry of a thunk goes on where the recording shows this capability
 * entering it (RPL_CLAIM or RPL_JOIN, posted here), or when it is this capability's own
 * thunk, entered first: no other capability's entry says it came first (an RPL_CLAIM, not
 * a JOIN), and it is not marked entered by this capability already. Otherwise in the
 * recording it found the thunk evaluated or blackholed: wait until it is. Note [Lazy
 * blackholing replay]. */
static int lazy_gate(LzCap *cap, LzWord *x, uint64_t id) {
  Stream *s = &streams[cap->cap_no];
  bool others = LZ_IS_THUNK_ID(x[1]) && (x[1] & LZ_THUNK_ID_OWNER);
  for (size_t k = first_entry(id); k < nentries && entries[k].id == id; k++) {
    Ev *e = entry_ev(&entries[k]);
    if (entries[k].cap != cap->cap_no) {
      others |= !entries[k].join;
    } else if (!e->done && s->in_slice && entries[k].i > s->run_at && entries[k].i < s->slice_at) {
      e->done = 1;
      TRACE("capability %u enters %llx as recorded (#%llu)\n", cap->cap_no, (unsigned long long)id,
            (unsigned long long)e->index);
      LzEvBuf *eb = cap->rest->ev;
      if (eb) lz_ev_put64(lz_ev_begin(eb, e->type, LZ_RPL_CLAIM_BYTES), id);
      if (lz_step_on) lz_step_claiming(cap, x, id);
      return 1;
    }
  }
  if (LZ_THUNK_ID_CAP(id) == cap->cap_no && !others) {
    TRACE("capability %u enters its thunk %llx\n", cap->cap_no, (unsigned long long)id);
    if (lz_step_on) lz_step_claiming(cap, x, id);
    return 1;
  }
  ClaimWant w = {x, x[0]};
  debug_gate_id = id;
  TRACE("capability %u: lazy gate waits for %llx at %llu bytes\n", cap->cap_no,
        (unsigned long long)id, (unsigned long long)cap->alloc_bytes);
  wait_until(cap, claimed_meanwhile, &w, "a thunk another capability evaluates (lazy)");
  return 0;
}

static int claim_gate(LzCap *cap, LzWord thunk) {
  LzWord *x = LZ_UNTAG(thunk);
  LzWord id = lz_replay_thunk_id(x);
  if (!id) return 1;
  /* a thread resumed at the thunk's entry after a stop there (lz_yield_enter): claimed or
   * updated since, it evaluates the thunk again, as the recording's did (its claim failed) */
  uint16_t type = ((const LzInfo *)__atomic_load_n(&x[0], __ATOMIC_ACQUIRE))->type;
  if (type == LZ_BLACKHOLE || type == LZ_IND) return 0;
  if (cap->lazy_bh) return lazy_gate(cap, x, id);
  int who = map_get(&claims, id);
  /* every claim of another capability's thunk or a CAF is recorded: one this capability
   * did not record was claimed by another (or found evaluated) */
  if (who < 0 ? LZ_THUNK_ID_CAP(id) == cap->cap_no : (unsigned)who == cap->cap_no) {
    if (lz_step_on) lz_step_claiming(cap, x, id); /* its source and owner, for the stepper */
    return 1;
  }
  ClaimWant w = {x, x[0]};
  debug_gate_id = id;
  TRACE("capability %u: claim gate waits for %llx (%s, claimed by %d) at %llu bytes\n", cap->cap_no,
        (unsigned long long)id, ((const LzInfo *)x[0])->name ? ((const LzInfo *)x[0])->name : "?",
        who, (unsigned long long)cap->alloc_bytes);
  wait_until(cap, claimed_meanwhile, &w, "a thunk another capability claims");
  return 0;
}

int lz_replay_claim_gate(LzCap *cap, LzWord thunk) {
  if (!lz_dup_on) return claim_gate(cap, thunk);
  lz_dup_enter(cap, thunk); /* --dup-report: who evaluates what (replay_dup.h) */
  int ok = claim_gate(cap, thunk);
  if (!ok) lz_dup_unenter(cap, thunk);
  return ok;
}

#endif

/* ---- for the stepper (replay_step*.c; Note [Stepper] in docs/notes/stepper.md) ---------- */
#if LZ_REPLAY
unsigned lz_rpl_ncaps(void) { return nstreams; }
size_t lz_rpl_cap_events(unsigned cap) { return cap < nstreams ? streams[cap].n : 0; }
bool lz_rpl_event(unsigned cap, size_t i, LzRplEvent *out) {
  if (cap >= nstreams || i >= streams[cap].n) return false;
  const Ev *e = &streams[cap].ev[i];
  *out = (LzRplEvent){e->type, e->len, PAY(e), e->time, e->index};
  return true;
}
const char *lz_rpl_type_desc(uint16_t type) { return lz_replay_type_desc(reader, type); }
LzThread *lz_rpl_thread(uint32_t rec_tid) {
  uint32_t rep = map_tid(rec_tid);
  return rep && rep < ntids ? threads[rep] : NULL;
}
uint32_t lz_rpl_rec_tid(uint32_t rep_tid) { return rep_tid < ntids ? rep2rec[rep_tid] : 0; }
LzSparkPool **lz_rpl_pools(void) { return debug_pools; }
#endif

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
 *
 * The parts: the recording in memory, replay_sched_load.c; the baton, reserved sparks and
 * finding work, here; a running thread's stops, updates, wake-ups and claims,
 * replay_slice.c; lazy blackholing, replay_lazybh.c; the comparison with the recording,
 * replay_compare.c. What they share is in replay_sched_priv.h.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <stdlib.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_dup.h"
#include "replay_sched_priv.h"
#include "replay_step.h"
#include "replaylog.h"
#if LZ_PROF
#include "prof.h" /* profiling a replay: Note [Profiling] */
#endif

/* ---- the baton ------------------------------------------------------------------------------ */

unsigned rpl_fails;              /* consecutive capabilities that could not go on */
static uint64_t passes;          /* hand-overs since a slice last began or ended */
static __thread bool have_baton; /* this OS thread holds it */

static void baton_wait_turn(unsigned me) {
  lz_rpl_baton_await(me);
  have_baton = true;
}

static size_t next_control(Stream *s);
static LzSparkPool **debug_pools; /* for LZ_REPLAY_DEBUG's report */
static const LzReplaySchedOps *debug_ops;
uint64_t rpl_debug_gate_id; /* the thunk the last claim gate waited for */

static _Noreturn void stuck(LzCap *cap, const char *what) {
  /* Every capability waits: nobody else runs, so the log may be closed from here; a
   * divergence in what was emitted so far is the better message. */
  rpl_stuck_closing = 1;
  lz_io_flush_all();
  for (unsigned i = 0; i < lz_ncaps; i++)
    lz_caps[i]->rest->ev = NULL;
  lz_eventlog_close();
  Stream *s = &rpl_streams[cap->cap_no];
  if (s->ctl >= s->n && !lz_replay_complete(rpl_reader))
    lz_rpl_fail("--replay: the (incomplete) recording ends here");
  if (getenv("LZ_REPLAY_DEBUG"))
    for (unsigned c = 0; c < rpl_nstreams; c++) {
      Stream *o = &rpl_streams[c];
      size_t i = next_control(o);
      char d[256] = "end";
      if (i < o->n) rpl_describe(d, sizeof d, o->ev[i].type, PAY(&o->ev[i]), o->ev[i].len);
      fprintf(stderr, "  capability %u: %s, next control event #%llu %s\n", c,
              o->in_slice ? "in a slice" : "between slices",
              i < o->n ? (unsigned long long)o->ev[i].index : 0ull, d);
      if (rpl_debug_gate_id)
        for (size_t k = 0; k < o->n; k++)
          if ((o->ev[k].type == LZ_EVT_RPL_CLAIM || o->ev[k].type == LZ_EVT_RPL_BLOCK) &&
              lz_ev_get64(PAY(&o->ev[k])) == rpl_debug_gate_id)
            fprintf(stderr, "    event #%llu names thunk %llx (the last gate's)\n",
                    (unsigned long long)o->ev[k].index, (unsigned long long)rpl_debug_gate_id);
      if (debug_ops && c < lz_ncaps) {
        fprintf(stderr, "    run queue:");
        for (LzThread *t = debug_ops->rq_peek(lz_caps[c]); t; t = t->link)
          fprintf(stderr, " %u (recorded %u)", t->id, t->id < rpl_ntids ? rpl_rep2rec[t->id] : 0);
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
    rpl_describe(w, sizeof w, s->ev[s->ctl].type, PAY(&s->ev[s->ctl]), s->ev[s->ctl].len);
  lz_rpl_fail("replay diverged: every capability waits; capability %u waits for %s "
              "(its next recorded event: #%llu %s)",
              cap->cap_no, what, s->ctl < s->n ? (unsigned long long)s->ev[s->ctl].index : 0ull, w);
}

/* Hold the baton with ok(arg) true, letting the other capabilities run meanwhile. */
void rpl_wait_until(LzCap *cap, bool (*ok)(void *), void *arg, const char *what) {
  if (!have_baton) baton_wait_turn(cap->cap_no);
  while (!ok(arg)) {
    if (++rpl_fails > lz_ncaps + 1 || ++passes > 100000) /* nobody can go on, or a livelock */
      stuck(cap, what);
    TRACE("capability %u waits for %s (%u in a row)\n", cap->cap_no, what, rpl_fails);
    lz_rpl_baton_pass((cap->cap_no + 1) % lz_ncaps);
    lz_rpl_baton_await(cap->cap_no);
  }
  rpl_fails = 0;
}

static bool never(void *arg) {
  (void)arg;
  return false;
}

/* A slice the recording does not end (the program exited while it ran) is not run. */
LZ_FN(lz_replay_park_entry) {
  rpl_wait_until(cap, never, NULL, "nothing (its thread was running when the recording ended)");
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
static unsigned n_blocked_reserved;
unsigned rpl_pending_reserved_wakes;
LZ_FN(lz_blackhole_entry);

static bool at_block_point(LzCap *cap) {
  Stream *s = &rpl_streams[cap->cap_no];
  return s->in_slice && s->slice_why == LZ_STOP_BLOCKED && cap->alloc_bytes == s->slice_alloc;
}

LZ_FN(lz_replay_reserved_entry) {
  LzWord *x = LZ_UNTAG(r1);
  if (at_block_point(cap) && n_blocked_reserved < MAX_PARKED) {
    /* the recording blocked here, on the thief's blackhole: block on one of our own */
    blocked_reserved[n_blocked_reserved++] = x;
    rpl_pending_reserved_wakes++;
    x[0] = (LzWord)&lz_blackhole_info;
    LZ_JUMP(lz_blackhole_entry);
  }
  rpl_wait_until(cap, not_reserved, x, "a spark another capability steals");
  LZ_JUMP(lz_eval);
}

void lz_replay_spark_pushed(LzCap *cap, LzWord closure, LzSparkId id) {
  if (lz_step_on) lz_step_spark_pushed(cap, closure, id); /* its source, for the stepper */
  if (map_get(&rpl_stolen, id) < 0 || LZ_TAG(closure)) return;
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
  if (map_get(&rpl_taken, id) < 0) {
    pool->seq++;
    return false;
  }
  /* full: in the recording the thieves had taken some by now */
  rpl_wait_until(cap, pool_has_room, pool, "room in its spark pool");
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

LZ_FN(lz_replay_park_entry);

/* The next THREAD_WAKEUP of the slice whose thunk the recording does not name. */
size_t rpl_next_wakeup(Stream *s, size_t from) {
  while (from < s->slice_at && (s->ev[from].type != LZ_EVT_THREAD_WAKEUP || s->ev[from].thunk))
    from++;
  return from;
}

/* begin_slice's order of the slice's wake-ups (WakeKey) */
static int wake_key_order(const void *a, const void *b) {
  const WakeKey *x = a, *y = b;
  if (x->thunk != y->thunk) return x->thunk < y->thunk ? -1 : 1;
  return x->at < y->at ? -1 : x->at > y->at;
}

static void begin_slice(LzCap *cap, Stream *s, size_t run_at, LzThread *t) {
  passes = 0;
  TRACE("capability %u: slice #%llu, thread %u\n", cap->cap_no,
        (unsigned long long)s->ev[run_at].index, t->id);
  if (t->id < rpl_ntids) rpl_threads[t->id] = t, rpl_runs[t->id]++;
  s->ctl = run_at + 1;
  size_t k = run_at + 1;
  while (k < s->n && s->ev[k].type != LZ_EVT_RPL_SLICE)
    k++;
  s->in_slice = true;
  s->run_at = run_at;
  s->slice_at = k;
  s->slice_why = k < s->n ? lz_ev_get16(PAY(&s->ev[k]) + 4) : 0xffff;
  s->slice_alloc = k < s->n ? lz_ev_get64(PAY(&s->ev[k]) + 6) : 0;
  s->wake_at = rpl_next_wakeup(s, run_at + 1);
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
      s->wk = rpl_grow(s->wk, &s->wk_room, s->nwk + 1, sizeof(WakeKey));
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
  Stream *s = &rpl_streams[cap->cap_no];
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
  if (w->nth && w->tid < rpl_ntids && rpl_runs[w->tid] + 1 != w->nth) { /* not yet */
    TRACE("thread %u has begun %u runs, waits for run %llu\n", w->tid, rpl_runs[w->tid],
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
  rpl_diverged(cap, i < s->n ? &s->ev[i] : NULL, got);
}

LzThread *lz_replay_find_work(LzCap *cap, const LzReplaySchedOps *ops) {
  if (!have_baton) baton_wait_turn(cap->cap_no);
  debug_pools = ops->pools;
  debug_ops = ops;
  Stream *s = &rpl_streams[cap->cap_no];
  for (;;) {
    size_t i = next_control(s);
    if (i == s->n)
      rpl_wait_until(cap, never, NULL, "work (the recording of this capability has ended)");
    const Ev *e = &s->ev[i];
    const uint8_t *p = PAY(e);
    switch (e->type) {
    case LZ_EVT_RPL_SPARK: {
      LzSparkId id = lz_ev_get64(p);
      unsigned kind = p[8], from = lz_ev_get16(p + 9);
      if (from >= lz_ncaps) bad(s, i, cap->cap_no, "a spark pool that does not exist");
      PoolWant w = {ops->pools[from], id};
      rpl_wait_until(cap, pool_top_is, &w, "a spark to be pushed");
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
        if (rec < rpl_ntids && t->id < rpl_ntids)
          rpl_rec2rep[rec] = t->id, rpl_rep2rec[t->id] = rec;
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
      rpl_wait_until(cap, other_rq_has, &w, "a runnable thread on another capability");
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
      rpl_wait_until(cap, rq_has, &w, "a thread in its run queue");
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
  for (unsigned c = 0; c < rpl_nstreams; c++) {
    Stream *s = &rpl_streams[c];
    if (c == self->cap_no) continue;
    if (s->in_slice ? s->slice_at < s->n : next_control(s) < s->n) return false;
  }
  return true;
}

void lz_rpl_exiting(void) {
  LzCap *cap = lz_current_cap;
  if (cap) rpl_wait_until(cap, others_done, cap, "the other capabilities to finish");
}

#endif

/* ---- for the stepper (replay_step*.c; Note [Stepper] in docs/notes/stepper.md) ---------- */
#if LZ_REPLAY
unsigned lz_rpl_ncaps(void) { return rpl_nstreams; }
size_t lz_rpl_cap_events(unsigned cap) { return cap < rpl_nstreams ? rpl_streams[cap].n : 0; }
bool lz_rpl_event(unsigned cap, size_t i, LzRplEvent *out) {
  if (cap >= rpl_nstreams || i >= rpl_streams[cap].n) return false;
  const Ev *e = &rpl_streams[cap].ev[i];
  *out = (LzRplEvent){e->type, e->len, PAY(e), e->time, e->index};
  return true;
}
const char *lz_rpl_type_desc(uint16_t type) { return lz_replay_type_desc(rpl_reader, type); }
LzThread *lz_rpl_thread(uint32_t rec_tid) {
  uint32_t rep = map_tid(rec_tid);
  return rep && rep < rpl_ntids ? rpl_threads[rep] : NULL;
}
uint32_t lz_rpl_rec_tid(uint32_t rep_tid) { return rep_tid < rpl_ntids ? rpl_rep2rec[rep_tid] : 0; }
LzSparkPool **lz_rpl_pools(void) { return debug_pools; }
#endif

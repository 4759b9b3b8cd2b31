/* sched.c — the threaded way's scheduler: capabilities, run queues, sparks, idling.
 *
 * `+RTS -N<n>` makes n capabilities, each run by one OS thread (capability 0 by the
 * program's main OS thread). A capability runs lightweight threads (LzThread: an Lz stack
 * and the registers to resume with) one at a time by calling their code; a thread gives
 * the capability back by *returning* to this file's C loop, which happens only at safe
 * points: the stop frame (finished), a heap check whose yield flag was set (pre-empted:
 * lz_yield_*), or a blackhole owned by another thread (blocked: blackhole.c). Registers
 * are saved in the thread, so resuming is one call.
 *
 * Where work comes from, in order (GHC's schedule()/findSpark()): the capability's own run
 * queue; a spark from its own pool, then stolen from the others' (sparkpool.c), run by a
 * spark thread that evaluates it; a runnable thread taken from another capability's run
 * queue (migration). A capability with none spins briefly, then sleeps on its condition
 * variable until par#, a wake-up or shutdown notifies it. The notifier checks a count of
 * sleepers after publishing its work, the sleeper publishes itself before its last look
 * for work (both sequentially consistent), so a wake-up is never lost.
 *
 * A timer thread (rts/timer.c, unknown to Boehm) sets every capability's yield flag each -C
 * interval (20 ms); the running thread then gives way if another thread is waiting in its
 * run queue. Note [Threaded runtime] in docs/notes/threaded-rts.md has the whole design.
 */
#include "rts_priv.h"

#if LZ_THREADED
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "eventlog.h"
#include "spark_sites.h"
#include "sparkpool.h"
#include "timer.h"
#if LZ_REPLAY
#include "replay.h"
#endif
#if LZ_PROF
#include "prof.h"
#endif

struct LzSched {
  pthread_mutex_t lock; /* the run queue */
  LzThread *rq_head, *rq_tail;
  _Atomic uint32_t rq_len;
  LzThread *spare; /* a finished spark thread, ready to run the next spark */
  LzStopWhy why;   /* why the last thread returned */
  jmp_buf died;    /* a spark thread that raised an error ends here */
  pthread_cond_t wake;
  bool sleeping;      /* under idle_lock */
  _Atomic int parked; /* stopped for good (shutdown waits for every other one) */
  _Atomic int busy;   /* running a thread: its queued threads may be taken by the idle */
};

static LzSparkPool **pools;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic unsigned n_sleeping;
static _Atomic int shutting_down;

/* Note [Running alone] (docs/notes/threaded-rts.md): capabilities inside run(), and the
 * one claiming thunks with plain stores because it is the only one (-1: none). */
static _Atomic unsigned n_running;
static _Atomic int alone_cap = -1;
static bool alone_allowed; /* -N2 and above, eager blackholing, not the -replay way */

static inline struct LzSched *S(LzCap *cap) { return cap->rest->sched; }

/* ---- run queues ------------------------------------------------------------------------ */

static void rq_push(LzCap *cap, LzThread *t) {
  struct LzSched *s = S(cap);
  pthread_mutex_lock(&s->lock);
  t->link = NULL;
  if (s->rq_tail)
    s->rq_tail->link = t;
  else
    s->rq_head = t;
  s->rq_tail = t;
  atomic_fetch_add(&s->rq_len, 1);
  pthread_mutex_unlock(&s->lock);
}

static LzThread *rq_pop(LzCap *cap) {
  struct LzSched *s = S(cap);
  if (atomic_load_explicit(&s->rq_len, memory_order_relaxed) == 0) return NULL;
  pthread_mutex_lock(&s->lock);
  LzThread *t = s->rq_head;
  if (t) {
    s->rq_head = t->link;
    if (!s->rq_head) s->rq_tail = NULL;
    t->link = NULL;
    atomic_fetch_sub(&s->rq_len, 1);
  }
  pthread_mutex_unlock(&s->lock);
  return t;
}

/* ---- idling and waking ----------------------------------------------------------------- */

static bool work_visible(LzCap *cap) {
  for (unsigned i = 0; i < lz_ncaps; i++)
    if (atomic_load(&S(lz_caps[i])->rq_len) > 0 || lz_spark_pool_size(pools[i]) > 0) return true;
  (void)cap;
  return atomic_load(&shutting_down) != 0;
}

/* Work was published (a spark, a runnable thread): wake `prefer` if it sleeps, else any
 * sleeping capability. */
static void notify(LzCap *prefer) {
  atomic_thread_fence(memory_order_seq_cst);
  if (atomic_load(&n_sleeping) == 0) return;
  pthread_mutex_lock(&idle_lock);
  struct LzSched *target = prefer && S(prefer)->sleeping ? S(prefer) : NULL;
  for (unsigned i = 0; !target && i < lz_ncaps; i++)
    if (S(lz_caps[i])->sleeping) target = S(lz_caps[i]);
  if (target) pthread_cond_signal(&target->wake);
  pthread_mutex_unlock(&idle_lock);
}

/* The wait of an idle capability, run by Boehm's GC_do_blocking with idle_lock held: a
 * collection meanwhile neither signals this thread nor waits for its answer (it only scans
 * its stack), which took 190 us off every collection of a -N2 program with one capability
 * idle (Note [Idle in Boehm's blocking state]). Nothing here touches the collected heap. It
 * releases idle_lock itself, so that leaving the blocking state (which takes Boehm's lock)
 * never holds ours. */
struct IdleWait {
  LzCap *cap;
  bool loop; /* every capability asleep, nothing to do: a cycle of blackholes */
};

static void *GC_CALLBACK idle_wait(void *arg) {
  struct IdleWait *w = arg;
  struct LzSched *s = S(w->cap);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += 100 * 1000 * 1000; /* a safety net only: wake-ups are not lost */
  if (until.tv_nsec >= 1000000000) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000;
  }
  int rc = pthread_cond_timedwait(&s->wake, &idle_lock, &until);
  s->sleeping = false;
  /* Every capability asleep and no work anywhere: the threads still alive wait for
   * blackholes that only they could update (a cycle, GHC's <<loop>>). */
  w->loop = rc == ETIMEDOUT && atomic_load(&n_sleeping) == lz_ncaps && !work_visible(w->cap);
  if (!w->loop) atomic_fetch_sub(&n_sleeping, 1);
  pthread_mutex_unlock(&idle_lock);
  return NULL;
}

/* Zero the dead part of this thread's C stack just below the caller's frame. Boehm scans an
 * idle capability's stack from inside GC_do_blocking, whose frame holds a register buffer
 * (a ucontext) that is only partly written; its other words keep whatever deeper calls
 * left there, such as the address of a fresh block whose first object later heads a long
 * list, and they stay put for as long as the capability sleeps (Note [Idle in Boehm's
 * blocking state], "Stale words"). */
static __attribute__((noinline)) void clear_dead_stack(void) {
  char dead[8192];
  explicit_bzero(dead, sizeof dead); /* never optimised away, unlike memset */
}

static void idle_sleep(LzCap *cap) {
  struct LzSched *s = S(cap);
  if (cap->rest->ev)
    lz_ev_flush_idle(cap->rest->ev); /* an idle capability's events reach the file */
  pthread_mutex_lock(&idle_lock);
  atomic_fetch_add(&n_sleeping, 1);
  if (work_visible(cap)) {
    atomic_fetch_sub(&n_sleeping, 1);
    pthread_mutex_unlock(&idle_lock);
    return;
  }
  s->sleeping = true;
  struct IdleWait w = {cap, false};
  clear_dead_stack();
  GC_do_blocking(idle_wait, &w);
  if (w.loop) lz_loop(cap);
}

/* ---- threads ---------------------------------------------------------------------------- */

static LzThread *spark_thread(LzCap *cap) {
  LzThread *t = S(cap)->spare;
  if (t) {
    S(cap)->spare = NULL;
  } else {
    t = lz_thread_new(cap, LZ_SPARK_STACK_WORDS);
    t->kind = LZ_THREAD_SPARK;
    lz_ev_create_thread(cap->rest->ev, t->id);
  }
  t->sp = t->stack + t->stack_words - 1; /* just the stop frame */
  return t;
}

/* Another capability's runnable thread, or NULL. */
static LzThread *steal_thread(LzCap *cap) {
  for (unsigned k = 1; k < lz_ncaps; k++) {
    LzCap *victim = lz_caps[(cap->cap_no + k) % lz_ncaps];
    if (!atomic_load_explicit(&S(victim)->busy, memory_order_relaxed))
      continue; /* it will run its own threads (e.g. the main thread before it starts) */
    LzThread *t = rq_pop(victim);
    if (t) {
      lz_ev_migrate_thread(cap->rest->ev, t->id, (uint16_t)cap->cap_no);
      return t;
    }
  }
  return NULL;
}

static _Noreturn void park_forever(LzCap *cap) {
  atomic_store(&S(cap)->parked, 1);
  for (;;)
    pause();
}

/* Note [GC'd sparks] (docs/notes/sparks.md): after a collection the owner drops its
 * evaluated sparks, which the pool (a root) would otherwise keep alive with their values
 * until exit — queens 13 at -N1 held 105 MB and spent 76 % of its time in GC. Checked
 * where the owner pushes and where it looks for work. Not while recording or replaying:
 * the fizzles a prune counts would be scheduling decisions the replay cannot place. */
static void prune_after_gc(LzCap *cap) {
#if LZ_REPLAY
  if (lz_replay_mode != LZ_RPL_OFF) return;
#endif
  lz_spark_pool_prune_after_gc(pools[cap->cap_no]);
}

#if LZ_REPLAY
static LzThread *rq_peek(LzCap *cap) { return S(cap)->rq_head; } /* replay: one runs at a time */
/* Replay: take thread `id` from wherever it is in cap's run queue (NULL: not there). The
 * queue's order depends on when other capabilities woke threads into it; the recording
 * names the thread (Note [Replay]). */
static LzThread *rq_take(LzCap *cap, uint32_t id) {
  struct LzSched *s = S(cap);
  pthread_mutex_lock(&s->lock);
  LzThread *prev = NULL, *t = s->rq_head;
  while (t && t->id != id)
    prev = t, t = t->link;
  if (t) {
    if (prev)
      prev->link = t->link;
    else
      s->rq_head = t->link;
    if (s->rq_tail == t) s->rq_tail = prev;
    t->link = NULL;
    atomic_fetch_sub(&s->rq_len, 1);
  }
  pthread_mutex_unlock(&s->lock);
  return t;
}
#endif

/* The next thread to run on cap: never NULL (sleeps until there is one). */
static LzThread *find_work(LzCap *cap) {
#if LZ_REPLAY
  if (lz_replaying) {
    LzReplaySchedOps ops = {pools, rq_peek, rq_pop, spark_thread, rq_take};
    return lz_replay_find_work(cap, &ops);
  }
#endif
  for (unsigned spins = 0;; spins++) {
    if (atomic_load(&shutting_down)) park_forever(cap);
    LzThread *t = rq_pop(cap);
    if (t) return t;
    /* zeroed: this frame sits where the last call's did, whose `sp` named the spark it
       returned, and an idle capability sleeps in it (Note [Evaluated sparks at a
       collection], "The taker's copy") */
    LzSpark sp = {0};
    uint32_t from;
    prune_after_gc(cap);
    if (lz_spark_find(pools, lz_ncaps, cap->cap_no, &sp, &from)) {
      t = spark_thread(cap);
      t->next = lz_eval;
      t->r1 = sp.closure;
      return t;
    }
    t = steal_thread(cap);
    if (t) return t;
    if (spins < 200) {
      sched_yield();
      continue;
    }
    idle_sleep(cap);
    spins = 0;
  }
}

void lz_sched_stopping(LzCap *cap, LzThread *t, LzStopWhy why, uint16_t ev_status) {
  S(cap)->why = why;
#if LZ_PROF
  lz_prof_thread_stop(cap, t->id); /* its cost-centre stack, before anyone resumes it */
#endif
  lz_ev_stop_thread(cap->rest->ev, t->id, ev_status, 0);
}

bool lz_sched_yield_wanted(LzCap *cap) {
#if LZ_REPLAY
  if (lz_replaying) return lz_replay_yield_wanted(cap);
#endif
  /* lazy blackholing: a lone thread stops too at each tick, to blackhole its thunks
   * (Note [Lazy blackholing]) */
  return atomic_load_explicit(&S(cap)->rq_len, memory_order_relaxed) > 0 ||
         atomic_load_explicit(&shutting_down, memory_order_relaxed) || cap->lazy_bh;
}

bool lz_sched_is_spark_thread(LzCap *cap) {
  return cap->tso && ((LzThread *)cap->tso)->kind == LZ_THREAD_SPARK;
}

void lz_sched_wake(LzCap *cap, LzThread *t) {
  LzCap *home = lz_caps[t->cap_no];
  lz_ev_thread_wakeup(cap->rest->ev, t->id, (uint16_t)home->cap_no);
  rq_push(home, t);
  if (home != cap)
    __atomic_store_n(&home->yield, 1, __ATOMIC_RELAXED); /* switch at its next safe point */
  notify(home);
}

/* ---- running alone (Note [Running alone]) -------------------------------------------------- */

/* Before cap runs a thread: count it, then wait while another capability claims with
 * plain stores (its yield flag makes it look at n_running at its next heap check). The
 * count is written before alone_cap is read, and alone_try_enter does the reverse, both
 * sequentially consistent, so one of the two sees the other. */
static void alone_before_run(LzCap *cap) {
  if (!alone_allowed) return; /* -N1: no count, no atomic operation per thread run */
  atomic_fetch_add(&n_running, 1);
  for (int other; (other = atomic_load(&alone_cap)) >= 0;) {
    __atomic_store_n(&lz_caps[other]->yield, 1, __ATOMIC_RELAXED);
    if (atomic_load(&shutting_down)) park_forever(cap);
    sched_yield();
  }
}

static void alone_leave(LzCap *cap) {
  cap->claim_plain = 0;
  atomic_store_explicit(&alone_cap, -1, memory_order_release); /* after its plain stores */
}

/* Stop running alone if cap does (at -N1 claim_plain stays: Note [One capability]). */
static void alone_stop(LzCap *cap) {
  if (alone_allowed && cap->claim_plain) alone_leave(cap);
}

static void alone_after_run(LzCap *cap) {
  if (!alone_allowed) return;
  alone_stop(cap);
  atomic_fetch_sub(&n_running, 1);
}

static void alone_try_enter(LzCap *cap) {
  int none = -1;
  if (!atomic_compare_exchange_strong(&alone_cap, &none, (int)cap->cap_no)) return;
  if (atomic_load(&n_running) == 1)
    cap->claim_plain = 1;
  else
    atomic_store(&alone_cap, -1);
}

#if !LZ_REPLAY
void lz_sched_may_block(void) {
  LzCap *cap = lz_current_cap;
  if (cap) alone_stop(cap);
}
#endif

/* At a heap check whose yield flag was set (a tick, or a capability waiting to run). */
void lz_sched_alone_check(LzCap *cap) {
  if (!alone_allowed) return;
  if (cap->claim_plain) {
    if (atomic_load(&n_running) > 1) alone_leave(cap);
  } else if (atomic_load_explicit(&n_running, memory_order_relaxed) == 1) {
    alone_try_enter(cap);
  }
}

static void run(LzCap *cap, LzThread *volatile t) {
  struct LzSched *s = S(cap);
  alone_before_run(cap);
  s->why = LZ_STOP_FINISHED;
  lz_cap_attach(cap, t);
  t->cap_no = cap->cap_no;
  lz_ev_run_thread(cap->rest->ev, t->id);
  atomic_store_explicit(&s->busy, 1, memory_order_relaxed);
#if LZ_PROF
  lz_prof_thread_run(cap, t->id);
#endif
  if (setjmp(s->died) == 0) {
    /* the saved registers are cleared as they are taken: a stale one would keep what it
       named alive for as long as the thread runs (Note [Stale registers] in
       docs/notes/threaded-rts.md) */
    LzWord r1 = t->r1, r2 = t->r2, r3 = t->r3, r4 = t->r4;
    t->r1 = t->r2 = t->r3 = t->r4 = 0;
    t->next(cap, t->sp, r1, r2, r3, r4);
  } else
    s->why = LZ_STOP_DIED;
#if LZ_PROF
  lz_prof_cap_idle(cap);
#endif
  atomic_store_explicit(&s->busy, 0, memory_order_relaxed);
  cap->tso = NULL;
  alone_after_run(cap);
#if LZ_REPLAY
  lz_replay_slice_end(cap, t, s->why);
#endif
  switch (s->why) {
  case LZ_STOP_FINISHED:
  case LZ_STOP_DIED:
    if (s->why == LZ_STOP_FINISHED) lz_ev_stop_thread(cap->rest->ev, t->id, LZ_EV_STOP_FINISHED, 0);
    if (t->kind == LZ_THREAD_MAIN) lz_exit(0);
    if (!s->spare) {
      /* Note [Stale registers], "The spare spark thread" (docs/notes/threaded-rts.md) */
      t->result = 0;
      lz_thread_clear_stack(t);
      s->spare = t;
    }
    break;
  case LZ_STOP_YIELD: rq_push(cap, t); break;
  case LZ_STOP_BLOCKED: /* the thread belongs to the wait list now: do not touch it */ break;
  }
}

static void *cap_main(void *arg) {
  LzCap *cap = arg;
  lz_current_cap = cap;
  lz_gc_thread_owner(cap->cap_no);
  lz_gc_park_thread(cap);
  for (;;)
    run(cap, find_work(cap));
  return NULL;
}

/* ---- pre-emption timer ------------------------------------------------------------------- */

/* Runs on the timer thread (rts/timer.c), which Boehm does not know: no heap access. */
static void tick(void) {
  for (unsigned i = 0; i < lz_ncaps; i++)
    __atomic_store_n(&lz_caps[i]->yield, 1, __ATOMIC_RELAXED);
}

/* ---- sparks ------------------------------------------------------------------------------ */

/* par#: the closure in the Box's field becomes a spark on this capability's pool. */
LzWord lz_prim_spark(LzCap *cap, LzWord box) {
  LzWord x = LZ_UNTAG(box)[1];
#if LZ_REPLAY
  if (lz_replaying) { /* only sparks the recording takes: Note [Replay] */
    if (lz_replay_spark_new(cap, pools[cap->cap_no], x)) notify(NULL);
    return 0;
  }
#endif
  prune_after_gc(cap);
  /* -lf: name the spark and its par site (spark_sites.h); the site is read first, as a
   * thief may evaluate x as soon as it is pushed */
  LzEvBuf *eb = cap->rest->ev_sparks;
  uint32_t site = eb ? lz_spark_site(eb, x) : 0;
  LzSparkId id;
  LzSparkFate fate = lz_spark_new(pools[cap->cap_no], x, &id);
  if (eb) lz_spark_site_post(eb, id, site);
  if (fate == LZ_SPARK_CREATED) notify(NULL);
  return 0;
}

static void spark_event(uint32_t capno, LzSparkEvent ev, LzSparkId id, uint32_t victim) {
  LzEvBuf *eb = lz_caps[capno]->rest->ev_sparks;
  switch (ev) {
  case LZ_SPARK_EV_CREATE: lz_ev_spark_create(eb); break;
  case LZ_SPARK_EV_DUD: lz_ev_spark_dud(eb); break;
  case LZ_SPARK_EV_OVERFLOW: lz_ev_spark_overflow(eb); break;
  case LZ_SPARK_EV_RUN: lz_ev_spark_run(eb); break;
  case LZ_SPARK_EV_STEAL: lz_ev_spark_steal(eb, (uint16_t)victim); break;
  case LZ_SPARK_EV_FIZZLE: lz_ev_spark_fizzle(eb); break;
  case LZ_SPARK_EV_GC: lz_ev_spark_gc(eb); break;
  }
  if (ev >= LZ_SPARK_EV_RUN && eb) /* creations are named by lz_prim_spark */
    lz_spark_site_post(eb, id, 0);
}

/* ---- errors in spark threads ------------------------------------------------------------- */

_Noreturn void lz_sched_raise_in_spark(LzCap *cap, LzWord msg) {
  LzThread *t = cap->tso;
  LzWord *top = t->stack + t->stack_words;
  for (LzWord *p = t->stack; p + 1 < top; p++) {
    if (p[0] != (LzWord)&lz_update_frame_info || !lz_plausible_closure(p[1])) continue;
    LzWord *thunk = (LzWord *)p[1];
    LzWord info = __atomic_load_n(&thunk[0], __ATOMIC_ACQUIRE), old;
    if (info != (LzWord)&lz_blackhole_info && info != (LzWord)&lz_blackhole_waited_info &&
        !(cap->lazy_bh && ((const LzInfo *)info)->type == LZ_THUNK))
      continue;
#if LZ_REPLAY
    if (lz_replaying) /* like an update: the recorded blockers block on it first */
      lz_replay_before_update(cap, thunk);
#endif
    /* lazy blackholing: another thread may be updating it (Note [Lazy blackholing]) */
    if (!lz_thunk_lock(thunk, &old)) continue;
    thunk[1] = msg;
    __atomic_store_n(&thunk[0], (LzWord)&lz_raise_info, __ATOMIC_RELEASE);
    if (old == (LzWord)&lz_blackhole_waited_info) lz_blackhole_wake(cap, thunk);
  }
  lz_ev_stop_thread(cap->rest->ev, t->id, LZ_EV_STOP_FINISHED, 0);
  longjmp(S(cap)->died, 1);
}

/* ---- start and stop ---------------------------------------------------------------------- */

static LzCap *new_cap(unsigned no) {
  LzCap *cap = no == 0 ? lz_main_cap : GC_MALLOC_UNCOLLECTABLE(sizeof(LzCap));
  if (!cap) lz_heap_exhausted();
  if (no != 0) {
    memset(cap, 0, sizeof *cap);
    cap->rest = GC_MALLOC_UNCOLLECTABLE(sizeof(struct LzCapPriv));
    if (!cap->rest) lz_heap_exhausted();
    memset(cap->rest, 0, sizeof *cap->rest);
  }
  cap->cap_no = no;
  cap->lazy_bh = lz_flags.lazy_bh;
#if !LZ_REPLAY
  /* Note [One capability] (docs/notes/threaded-rts.md): one OS thread runs compiled code */
  cap->claim_plain = lz_ncaps == 1 && !lz_flags.lazy_bh;
#endif
  struct LzSched *s = GC_MALLOC_UNCOLLECTABLE(sizeof(struct LzSched));
  if (!s) lz_heap_exhausted();
  memset(s, 0, sizeof *s);
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->wake, NULL);
  cap->rest->sched = s;
  pools[no] = lz_spark_pool_new(no, lz_flags.spark_pool);
  if (!pools[no]) lz_heap_exhausted();
  return cap;
}

void lz_sched_init(void) {
  unsigned n = lz_flags.ncaps;
  if (n == 0) {
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    n = c > 0 ? (unsigned)c : 1;
  }
  lz_ncaps = n;
#if !LZ_REPLAY
  alone_allowed = n > 1 && !lz_flags.lazy_bh;
#endif
  lz_caps = GC_MALLOC_UNCOLLECTABLE(n * sizeof(LzCap *));
  pools = GC_MALLOC_UNCOLLECTABLE(n * sizeof(LzSparkPool *));
  if (!lz_caps || !pools) lz_heap_exhausted();
  for (unsigned i = 0; i < n; i++)
    lz_caps[i] = new_cap(i);
  lz_gc_park_init();
}

_Noreturn void lz_sched_main(LzCap *cap0, LzWord *main_closure) {
  if (lz_eventlog_is_open() && lz_ev_on(LZ_EVC_SPARKS_FULL)) lz_spark_hook = spark_event;
#if LZ_REPLAY /* the replay takes the recorded sparks, which must still be there */
  lz_spark_pools_drop_evaluated = lz_replay_mode == LZ_RPL_OFF;
#else
  lz_spark_pools_drop_evaluated = true;
#endif
  LzThread *main_thread = cap0->tso;
  main_thread->kind = LZ_THREAD_MAIN;
  main_thread->next = lz_apply_1; /* main realWorld# */
  main_thread->r1 = (LzWord)main_closure;
  main_thread->r2 = 0;
  lz_ev_create_thread(cap0->rest->ev, main_thread->id);
  rq_push(cap0, main_thread);
  pthread_t tid;
  for (unsigned i = 1; i < lz_ncaps; i++)
    if (pthread_create(&tid, NULL, cap_main, lz_caps[i]) != 0)
      lz_die(1, "cannot start the OS thread of capability %u", i);
  uint64_t ns = lz_flags.ctx_switch_ns ? lz_flags.ctx_switch_ns : 20000000u;
  if (!lz_timer_start(ns, tick)) lz_die(1, "cannot start the timer thread");
  cap_main(cap0);
  lz_exit(0);
}

void lz_sched_stop_others(void) {
  if (!lz_caps || atomic_exchange(&shutting_down, 1)) return;
#if LZ_REPLAY
  lz_replay_exiting(); /* replay: the others finish their recorded events, then wait */
  if (lz_replaying) return;
#endif
  for (unsigned i = 0; i < lz_ncaps; i++)
    __atomic_store_n(&lz_caps[i]->yield, 1, __ATOMIC_RELAXED);
  pthread_mutex_lock(&idle_lock);
  for (unsigned i = 0; i < lz_ncaps; i++)
    pthread_cond_signal(&S(lz_caps[i])->wake);
  pthread_mutex_unlock(&idle_lock);
  LzCap *self = lz_current_cap;
  for (int ms = 0; ms < 1000; ms++) {
    bool all = true;
    for (unsigned i = 0; i < lz_ncaps; i++)
      if (lz_caps[i] != self && !atomic_load(&S(lz_caps[i])->parked)) all = false;
    if (all) break;
    struct timespec d = {0, 1000000};
    nanosleep(&d, NULL);
  }
}

/* At exit (others stopped): the remaining sparks are GC'd (Note [GC'd sparks]); the
 * counters are summed for +RTS -s and posted to the event log. */
void lz_sched_final_sparks(LzSparkCounters *sum) {
  for (unsigned i = 0; i < lz_ncaps; i++) {
    lz_spark_pool_prune(pools[i], true, NULL);
    LzEvSparkCounters c = {0};
    const LzSparkCounters *k = &pools[i]->counters;
    c.created = k->created, c.dud = k->dud, c.overflowed = k->overflowed;
    c.converted = k->converted, c.gcd = k->gcd, c.fizzled = k->fizzled;
    lz_ev_spark_counters(lz_ev_class_buf(LZ_EVC_SPARKS, i), &c);
  }
  lz_spark_counters_sum(pools, lz_ncaps, sum);
}

uint64_t lz_sched_alloc_bytes(void) {
  uint64_t n = 0;
  for (unsigned i = 0; i < lz_ncaps; i++)
    n += lz_caps[i]->alloc_bytes;
  return n;
}

#endif

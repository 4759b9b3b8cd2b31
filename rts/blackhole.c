/* blackhole.c — the threaded way's blackholes: blocking on a thunk another thread is
 * evaluating, and waking the waiters when it is updated.
 *
 * Compiled code claims a thunk on entry with a compare-and-swap of its info word to
 * BLACKHOLE (codegen/cg_expr.c, claim_thunk). A thread that then enters the BLACKHOLE is
 * either its owner (the thunk needs its own value: <<loop>>) or another thread, which
 * must wait. Waiting is announced in the thunk itself: under the wait-list lock the
 * waiter swaps BLACKHOLE for BLACKHOLE_WAITED and adds itself to the list; the update
 * frame swaps the info word for IND (or the value's own: Note [Updating in place]) with
 * an atomic exchange and, only when it took a BLACKHOLE_WAITED out, takes the lock and
 * wakes the thunk's waiters. Either the waiter's
 * swap comes first (then the updater sees WAITED and wakes it, after the waiter is in the
 * list, because both hold the lock), or the update does (then the waiter's swap fails, it
 * sees the IND and goes on without sleeping): no lost wake-ups, and an update nobody
 * waits for costs one atomic exchange and no lock. Note [Eager blackholing] in
 * docs/notes/threaded-rts.md.
 *
 * Ownership is found without a field: a thread owns a blackhole exactly when an update
 * frame for it is on the thread's stack (scanned only when a thread is about to block).
 */
#include "rts_priv.h"

#if LZ_THREADED
#include <pthread.h>
#include <stdatomic.h>

#include "eventlog.h"
#if LZ_REPLAY
#include "replay.h"
#endif

LZ_FN(lz_blackhole_entry);
LZ_FN(lz_raise_entry);
LZ_FN(lz_locked_entry);
LZ_FN(lz_yield_enter);

const LzInfo lz_blackhole_waited_info = {lz_blackhole_entry, LZ_BLACKHOLE, 0, 0, 0, 0, "BLACKHOLE"};
/* A thunk whose evaluation raised an error in a spark thread: {info, message}. Typed as a
 * thunk so that every evaluator enters it (and sparks on it are not duds). */
const LzInfo lz_raise_info = {lz_raise_entry, LZ_THUNK, 0, 0, 1, 0, "raise"};

/* Note [Lazy blackholing]: a thunk whose result another thread is writing right now. */
const LzInfo lz_locked_info = {lz_locked_entry, LZ_BLACKHOLE, 0, 0, 0, 0, "BLACKHOLE"};

static pthread_mutex_t wait_lock = PTHREAD_MUTEX_INITIALIZER;
static LzThread *waiters; /* every blocked thread, linked through ->link */

/* Does the thread own `thunk` (an update frame for it is on its stack)? Conservative scan:
 * a false match needs a stack word equal to the update frame's info address followed by
 * this blackhole's address. */
static bool owns(LzThread *t, LzWord *sp, LzWord thunk) {
  LzWord *top = t->stack + t->stack_words;
  for (LzWord *p = sp; p + 1 < top; p++)
    if (p[0] == (LzWord)&lz_update_frame_info && p[1] == thunk) return true;
  return false;
}

LZ_FN(lz_blackhole_entry) {
  LzWord *thunk = LZ_UNTAG(r1);
  LzThread *t = cap->tso;
  if (owns(t, sp, (LzWord)thunk)) lz_loop(cap);
#if LZ_REPLAY
  if (lz_replaying) { /* Note [Replay] */
    int how = lz_replay_may_block(cap, thunk, (size_t)(t->stack + t->stack_words - sp));
    if (how == LZ_RPL_BH_EVAL) LZ_JUMP(lz_eval);
    if (how == LZ_RPL_BH_STOP) LZ_JUMP(lz_yield_enter);
  }
#endif
  if (cap->lazy_bh) /* before the lock: Note [Lazy blackholing] */
    lz_lazy_blackhole_stack(cap, t, sp);
  pthread_mutex_lock(&wait_lock);
  LzWord info = __atomic_load_n(&thunk[0], __ATOMIC_ACQUIRE);
  for (;;) {
    if (info == (LzWord)&lz_blackhole_waited_info) break;
    if (info != (LzWord)&lz_blackhole_info) { /* updated meanwhile: no need to wait */
      pthread_mutex_unlock(&wait_lock);
      LZ_JUMP(lz_eval);
    }
    if (__atomic_compare_exchange_n(&thunk[0], &info, (LzWord)&lz_blackhole_waited_info, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      break;
  }
  t->sp = sp; /* before the block event: the stepper shows this stack at it */
#if LZ_REPLAY
  lz_replay_blocking(cap, thunk); /* the thunk's id: Note [Thunk ids] */
#endif
  t->blocked_on = (LzWord)thunk;
  t->link = waiters;
  waiters = t;
  t->next = lz_eval; /* when woken: look at the thunk again (an IND by then) */
  t->sp = sp;
  t->r1 = (LzWord)thunk;
  /* the stop event is posted before the lock is released: once it is, the thread may be
   * woken and run elsewhere */
  lz_sched_stopping(cap, t, LZ_STOP_BLOCKED, LZ_EV_STOP_BLOCKED_ON_BLACKHOLE);
  pthread_mutex_unlock(&wait_lock);
}

void lz_blackhole_wake(LzCap *cap, LzWord *thunk) {
  pthread_mutex_lock(&wait_lock);
  LzThread **pp = &waiters, *woken = NULL;
  while (*pp) {
    LzThread *t = *pp;
    if (t->blocked_on == (LzWord)thunk) {
      *pp = t->link;
      t->blocked_on = 0;
      t->link = woken;
      woken = t;
    } else {
      pp = &t->link;
    }
  }
  pthread_mutex_unlock(&wait_lock);
#if LZ_REPLAY
  if (lz_replaying) /* in the recorded order, not the order they blocked in here */
    woken = lz_replay_wake_order(cap, woken);
#endif
  while (woken) {
    LzThread *t = woken;
    woken = t->link;
    t->link = NULL;
    lz_sched_wake(cap, t);
  }
}

/* Entering a thunk that raised in a spark thread raises the same error here. */
LZ_FN(lz_raise_entry) {
  LzWord msg = LZ_UNTAG(r1)[1];
  lz_prim_raiseError(cap, msg);
}

/* ---- lazy blackholing (Note [Lazy blackholing] in docs/notes/threaded-rts.md) ---------- */

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

/* The writer holds it for a few stores: wait, then look again. */
LZ_FN(lz_locked_entry) {
  while (__atomic_load_n(&LZ_UNTAG(r1)[0], __ATOMIC_ACQUIRE) == (LzWord)&lz_locked_info)
    CPU_RELAX();
  LZ_JUMP(lz_eval);
}

bool lz_thunk_lock(LzWord *thunk, LzWord *old) {
  LzWord info = __atomic_load_n(&thunk[0], __ATOMIC_ACQUIRE);
  for (;;) {
    if (info == (LzWord)&lz_ind_info) return false;
    if (info == (LzWord)&lz_locked_info) {
      CPU_RELAX();
      info = __atomic_load_n(&thunk[0], __ATOMIC_ACQUIRE);
      continue;
    }
    if (__atomic_compare_exchange_n(&thunk[0], &info, (LzWord)&lz_locked_info, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      *old = info;
      return true;
    }
  }
}

void lz_lazy_blackhole_stack(LzCap *cap, LzThread *t, LzWord *sp) {
  LzWord *top = t->stack + t->stack_words;
  for (LzWord *p = sp; p + 1 < top; p++) {
    if (p[0] != (LzWord)&lz_update_frame_info) continue;
    LzWord x = p[1];
    if (!lz_plausible_closure(x)) continue;
    LzWord *thunk = (LzWord *)x;
    LzWord info = __atomic_load_n(&thunk[0], __ATOMIC_ACQUIRE);
    /* an unclaimed thunk: its own info table (not a raise thunk, whose spare word holds
     * the message; not a BLACKHOLE or IND: another thread has it, or has updated it —
     * then this thread simply goes on: a duplicate evaluation) */
    if (((const LzInfo *)info)->type != LZ_THUNK || info == (LzWord)&lz_raise_info) continue;
#if LZ_REPLAY
    if (lz_replaying) /* the entries that found it unevaluated come first */
      lz_replay_lazy_blackholing(cap, thunk);
#endif
    if (!__atomic_compare_exchange_n(&thunk[0], &info, (LzWord)&lz_blackhole_info, false,
                                     __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      continue;
    /* Boehm scans the blackhole whole: clear its free variables (and -prof's cost-centre
     * word), as the update would, which this thread's code has loaded. A thread that
     * entered the thunk and loads them now finds the info word changed after its loads
     * (the fence pairs with the acquire fence in claim_thunk's lazy path) and re-enters
     * it: Note [Lazy blackholing], "Free variables" */
    atomic_thread_fence(memory_order_release);
    lz_clear_words(thunk, 2, ((const LzInfo *)info)->size);
  }
}

uint64_t lz_lazy_dup_updates(void) {
  uint64_t n = 0;
  for (unsigned i = 0; i < lz_ncaps; i++)
    n += lz_caps[i]->rest->dup_updates;
  return n;
}

#endif

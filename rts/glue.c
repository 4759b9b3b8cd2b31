/* glue.c — the runtime's own "compiled code": frames, indirections, blackholes, PAPs,
 * generic application and evaluation.
 *
 * Every function here has the uniform LzCode type and leaves by a guaranteed tail call
 * (LZ_JUMP, clang's musttail), exactly like generated code, so control never piles up on
 * the C stack; only the stop frame returns, which ends lz_run's call. The decisions of
 * generic application (arity check, PAP building, pushing apply frames for extra
 * arguments) are made by an ordinary C helper that returns the next code to run and its
 * registers (LzNext); the LzCode wrapper then tail-calls it. See Note [Back end and
 * runtime ABI] (docs/notes/backend.md) for the conventions.
 */
#include <string.h>

#include "eventlog.h"
#include "rts_priv.h"
#if LZ_REPLAY
#include "replay.h"
#include "replay_dup.h"
#endif

LZ_FN(lz_update_frame_entry);
LZ_FN(lz_stop_frame_entry);
LZ_FN(lz_ap1_frame_entry);
LZ_FN(lz_ap2_frame_entry);
LZ_FN(lz_ap3_frame_entry);
LZ_FN(lz_ind_entry);
LZ_FN(lz_yield_enter);
LZ_FN(lz_blackhole_entry);

const LzInfo lz_update_frame_info = {lz_update_frame_entry, LZ_FRAME_UPDATE, 0, 0, 1, 0,
                                     "update frame"};
const LzInfo lz_stop_frame_info = {lz_stop_frame_entry, LZ_FRAME_STOP, 0, 0, 0, 0, "stop frame"};
const LzInfo lz_ap1_frame_info = {lz_ap1_frame_entry, LZ_FRAME_AP, 0, 0, 1, 0, "apply 1"};
const LzInfo lz_ap2_frame_info = {lz_ap2_frame_entry, LZ_FRAME_AP, 0, 0, 2, 0, "apply 2"};
const LzInfo lz_ap3_frame_info = {lz_ap3_frame_entry, LZ_FRAME_AP, 0, 0, 3, 0, "apply 3"};
const LzInfo lz_ind_info = {lz_ind_entry, LZ_IND, 0, 0, 0, 0, "IND"};
const LzInfo lz_blackhole_info = {lz_blackhole_entry, LZ_BLACKHOLE, 0, 0, 0, 0, "BLACKHOLE"};
const LzInfo lz_pap_info = {lz_con_entry, LZ_PAP, 0, 0, 0, 0, "PAP"};
const LzInfo lz_integer_small_info = {lz_con_entry, LZ_PRIM, 0, 0, 1, 0, "Integer"};
const LzInfo lz_integer_big_info = {lz_con_entry, LZ_PRIM, 0, 0, 2, 0, "Integer"};
const LzInfo lz_mutvar_info = {lz_con_entry, LZ_MUTVAR, 0, 0, 1, 0, "MutVar#"};

/* The info word of an object another thread may be claiming or updating (Note [Eager
 * blackholing]): an acquire load, so the result word written before an IND is seen. */
#define SHARED_INFO(p)    ((const LzInfo *)__atomic_load_n(&LZ_UNTAG(p)[0], __ATOMIC_ACQUIRE))
#define SET_YIELD(cap, v) __atomic_store_n(&(cap)->yield, (v), __ATOMIC_RELAXED)

static const LzInfo *const ap_frame_info[4] = {NULL, &lz_ap1_frame_info, &lz_ap2_frame_info,
                                               &lz_ap3_frame_info};

static inline LzWord *stack_check(LzCap *cap, LzWord *sp, LzWord need) {
  if (sp - need < cap->sp_lim) sp = lz_stack_grow(cap, sp, need);
  return sp;
}

/* ---- frames ------------------------------------------------------------------------- */

/* Updating: the thunk's free variables are cleared first, since Boehm scans the whole
 * object and an IND that kept them would keep everything they reach alive (a chain of
 * evaluated counters, a list's head...). In the eager ways the claim has cleared them
 * already (Note [Eager blackholing], "Free variables"); clearing here too keeps the update
 * right for every entry (lazy blackholing, -prof's word, the replay's blackholes, code
 * that does not clear) for a few stores to a line the claim wrote. While blackholed, the
 * spare word holds the thunk's own info pointer (its size); code that still stores the
 * owner (cap->tso) there gets the size from Boehm instead. */
/* The words after the info pointer of a claimed thunk: from its own info table, kept in
 * the spare word (-replay: from the thunk id there), else Boehm's size of the object, else
 * 0 (a static CAF whose spare word holds the owner). thunk[2 .. this] are its free
 * variables. */
static size_t thunk_words(LzCap *cap, LzWord *thunk) {
  LzWord saved = thunk[1];
#if LZ_REPLAY
  if (LZ_IS_THUNK_ID(saved)) { /* Note [Thunk ids] (docs/notes/replay.md): size in the id */
    size_t g = LZ_THUNK_ID_GRANULES(saved);
    if (g) return g * (LZ_GRANULE_BYTES / sizeof(LzWord)) - 1;
    saved = 0; /* larger: from Boehm */
  }
#endif
  if (saved != (LzWord)cap->tso && saved != 0) return ((const LzInfo *)saved)->size;
  if (GC_is_heap_ptr(thunk)) return GC_size(thunk) / sizeof(LzWord) - 1;
  return 0;
}

/* Note [Updating in place] (docs/notes/threaded-rts.md): a thunk whose value is a
 * constructor that fits in it becomes a copy of that constructor instead of an IND to
 * it, so the live data holds one object where Boehm, which cannot remove INDs as GHC's
 * collector does, kept two. Returns the info word to publish: the constructor's, or
 * lz_ind_info with the result in the spare word (the free variables cleared either way).
 * Not in the -replay ways (their logs name INDs) nor in -prof (cost-centre words). */
static LzWord write_result(LzCap *cap, LzWord *thunk, LzWord r1) {
  size_t size = thunk_words(cap, thunk);
#if !LZ_REPLAY && !LZ_PROF
  const LzInfo *vi = LZ_TAG(r1) != 0 ? LZ_INFO(r1) : NULL;
  if (vi && vi->type == LZ_CON && vi->size <= size) {
    const LzWord *v = LZ_UNTAG(r1);
    volatile LzWord *w = thunk; /* a few words: stores, not a call to memcpy */
    for (size_t i = 1; i <= vi->size; i++)
      w[i] = v[i];
    lz_clear_words(thunk, vi->size + 1, size);
    return (LzWord)vi;
  }
#endif
  lz_clear_words(thunk, 2, size);
  thunk[1] = r1;
  return (LzWord)&lz_ind_info;
}

#if LZ_THREADED
/* Note [Lazy blackholing] (docs/notes/threaded-rts.md): other threads may be evaluating the
 * thunk too, may have blackholed it, or updated it. The result is written under
 * lz_locked_info, so one value is kept and a reader never sees an IND without it; an
 * update that finds IND lost the race (a duplicate evaluation) and returns the winner's
 * value. Only the winner can take out BLACKHOLE_WAITED, so waiters are woken once. */
static LzWord lazy_update(LzCap *cap, LzWord *thunk, LzWord r1) {
  LzWord old;
  if (!lz_thunk_lock(thunk, &old)) {
    cap->rest->dup_updates++;
    return thunk[1];
  }
#if LZ_REPLAY
  LzWord id = thunk[1]; /* read under the lock: for RPL_WAKE and RPL_WON */
  lz_replay_updating(cap, thunk, id);
#endif
  const LzInfo *info = (const LzInfo *)old;
  if (info->type == LZ_THUNK) /* nobody blackholed it: its own info table has the size */
    lz_clear_words(thunk, 2, info->size);
  else /* blackholed at a stop: the spare word is still the allocation's (0 or an id) */
    lz_clear_words(thunk, 2, thunk_words(cap, thunk));
  thunk[1] = r1;
  __atomic_store_n(&thunk[0], (LzWord)&lz_ind_info, __ATOMIC_RELEASE);
  if (old == (LzWord)&lz_blackhole_waited_info) {
#if LZ_REPLAY
    lz_replay_waking(cap, thunk, id);
#endif
    lz_blackhole_wake(cap, thunk);
  }
  return r1;
}
#endif

LZ_FN(lz_update_frame_entry) {
  LzWord *thunk = (LzWord *)sp[1];
#if LZ_REPLAY
  cap->rest->slice_updates++; /* which heap check a pre-emption was: RPL_YIELD */
  if (lz_replaying)           /* a recorded wake-up: its thread must have blocked first */
    lz_replay_before_update(cap, thunk);
  if (lz_dup_on) /* --dup-report: after the replay's waits, before anything changes */
    lz_dup_update(cap, thunk);
#endif
#if LZ_THREADED
  if (cap->lazy_bh) {
    r1 = lazy_update(cap, thunk, r1);
#if LZ_REPLAY
    if (lz_dup_on) /* the thunk is updated now (by us or the winner): watch it */
      lz_dup_updated(cap, thunk);
#endif
    sp += 2;
    LZ_RETURN();
  }
#endif
#if LZ_REPLAY
  LzWord id = thunk[1]; /* the thunk's id (Note [Thunk ids]), for RPL_WAKE */
#endif
  /* the result first, then the info: a reader never sees IND (or the copy's info)
     without it */
  LzWord done = write_result(cap, thunk, r1);
#if LZ_THREADED
  /* threads may wait for it: Note [Eager blackholing] (rts/blackhole.c); at -N1 they all
     run on this OS thread, so no atomic exchange is needed (Note [One capability]) */
  LzWord old;
  if (cap->claim_plain) {
    old = __atomic_load_n(&thunk[0], __ATOMIC_RELAXED);
    __atomic_store_n(&thunk[0], done, __ATOMIC_RELEASE);
  } else
    old = __atomic_exchange_n(&thunk[0], done, __ATOMIC_ACQ_REL);
  if (old == (LzWord)&lz_blackhole_waited_info) {
#if LZ_REPLAY
    lz_replay_waking(cap, thunk, id); /* which thunk woke them: Note [Replay], wake-ups */
#endif
    lz_blackhole_wake(cap, thunk);
  }
#else
  __atomic_store_n(&thunk[0], done, __ATOMIC_RELEASE);
#endif
#if LZ_REPLAY
  if (lz_dup_on) lz_dup_updated(cap, thunk); /* --dup-report: watch a spark's work */
#endif
  sp += 2;
  LZ_RETURN();
}

LZ_FN(lz_stop_frame_entry) {
  LzThread *t = cap->tso;
  t->sp = sp;
  t->result = r1;
}

LZ_FN(lz_ind_entry) {
#if LZ_REPLAY /* the recorded stop at this thunk's entry (Note [Replay], pre-emption) */
  if (cap->yield && lz_replaying && lz_rpl_stop_at_ind(cap, sp)) LZ_JUMP(lz_yield_enter);
#endif
  r1 = LZ_UNTAG(r1)[1];
  LZ_RETURN();
}

#if !LZ_THREADED
LZ_FN(lz_blackhole_entry) {
  /* Vanilla: one thread, so any blackhole is ours — a thunk that needs its own value.
   * (The threaded way's is in blackhole.c.) */
  lz_loop(cap);
}
#endif

/* Constructors (and PAPs, Integers) entered through an untagged pointer: return them
 * tagged. */
LZ_FN(lz_con_entry) {
  const LzInfo *info = LZ_INFO(r1);
  LzWord p = (LzWord)LZ_UNTAG(r1);
  r1 = p | (info->type == LZ_CON ? LZ_CON_TAG(info->tag) : 1);
  LZ_RETURN();
}

/* ---- evaluation --------------------------------------------------------------------- */

LZ_FN(lz_eval) {
  while (LZ_TAG(r1) == 0) {
    const LzInfo *info = SHARED_INFO(r1);
    switch (info->type) {
    case LZ_IND:
#if LZ_REPLAY
      if (cap->yield && lz_replaying && lz_rpl_stop_at_ind(cap, sp)) LZ_JUMP(lz_yield_enter);
      if (info != &lz_ind_info) lz_dup_ind_read(cap, LZ_UNTAG(r1)); /* --dup-report */
#endif
      r1 = LZ_UNTAG(r1)[1];
      continue;
    case LZ_THUNK:
    case LZ_BLACKHOLE: LZ_JUMP(info->entry);
    case LZ_CON: r1 |= LZ_CON_TAG(info->tag); break;
    default: r1 |= 1; break;
    }
  }
  LZ_RETURN();
}

/* Safe points. The heap check asks lz_yield_check whether to stop. Vanilla: never (nothing
 * to switch to). Threaded: the scheduler decides (sched.c, lz_sched_yield_wanted); then
 * lz_yield_enter/return stop the thread with its registers saved, to resume exactly there. */
uint32_t lz_yield_check(LzCap *cap) {
  SET_YIELD(cap, 0);
#if LZ_THREADED
  /* a collection raised the flag (Note [Parking for collections]): park, and go on as if
   * it had not been raised, so that collections do not move the scheduler's stops (a
   * tick's stop then waits for the next tick) */
  if (lz_gc_park_safe_point(cap)) return 0;
  lz_sched_alone_check(cap);
  return lz_sched_yield_wanted(cap);
#else
  return 0;
#endif
}

LZ_FN(lz_yield_enter) {
#if LZ_THREADED
  LzThread *t = cap->tso;
#if LZ_REPLAY /* which heap check stops: Note [Replay] (docs/notes/replay.md), pre-emption */
  if (!lz_replay_yield_point(cap, SHARED_INFO(r1), LZ_UNTAG(r1),
                             (size_t)(t->stack + t->stack_words - sp))) {
    const LzInfo *info = SHARED_INFO(r1);               /* updated meanwhile: an IND now */
    if (info->type != LZ_THUNK && info->type != LZ_FUN) /* no heap check there to go past */
      lz_rpl_no_recheck(cap);
    LZ_JUMP(info->entry);
  }
#endif
  if (cap->lazy_bh) /* Note [Lazy blackholing] */
    lz_lazy_blackhole_stack(cap, t, sp);
  t->next = SHARED_INFO(r1)->entry; /* a thunk may be updated by another thread meanwhile */
  t->sp = sp, t->r1 = r1, t->r2 = r2, t->r3 = r3, t->r4 = r4;
  lz_sched_stopping(cap, t, LZ_STOP_YIELD, LZ_EV_STOP_YIELDING);
#else
  LZ_ENTER();  /* not reached: vanilla's lz_yield_check never asks for a stop */
#endif
}

LZ_FN(lz_yield_return) {
#if LZ_THREADED
  LzThread *t = cap->tso;
#if LZ_REPLAY
  if (!lz_replay_yield_point(cap, (const void *)sp[0], NULL,
                             (size_t)(t->stack + t->stack_words - sp)))
    LZ_RETURN();
#endif
  if (cap->lazy_bh) lz_lazy_blackhole_stack(cap, t, sp);
  t->next = ((const LzInfo *)sp[0])->entry;
  t->sp = sp, t->r1 = r1;
  lz_sched_stopping(cap, t, LZ_STOP_YIELD, LZ_EV_STOP_YIELDING);
#else
  LZ_RETURN(); /* not reached, as above */
#endif
}

/* ---- generic application ------------------------------------------------------------ */

typedef struct LzNext {
  LzCode code;
  LzWord *sp;
  LzWord r1, r2, r3, r4;
} LzNext;

/* Apply f (any pointer) to k (1..3) arguments. */
static LzNext apply(LzCap *cap, LzWord *sp, LzWord f, const LzWord *args, int k) {
  LzNext n = {0};
  for (;;) {
    if (LZ_TAG(f) != 0) break;
    const LzInfo *info = SHARED_INFO(f);
    if (info->type == LZ_IND) {
#if LZ_REPLAY
      if (info != &lz_ind_info) lz_dup_ind_read(cap, LZ_UNTAG(f)); /* --dup-report */
#endif
      f = LZ_UNTAG(f)[1];
      continue;
    }
    if (info->type == LZ_THUNK || info->type == LZ_BLACKHOLE) {
      /* Evaluate f first, under a frame that applies the result to the arguments. */
      sp = stack_check(cap, sp, (LzWord)k + 1);
      sp -= k + 1;
      sp[0] = (LzWord)ap_frame_info[k];
      memcpy(&sp[1], args, (size_t)k * sizeof(LzWord));
      n.code = info->entry;
      n.sp = sp;
      n.r1 = f;
      return n;
    }
    f |= 1; /* an untagged value: FUN or PAP */
  }
  LzWord *fp = LZ_UNTAG(f);
  const LzInfo *info = (const LzInfo *)fp[0];
  LzWord fun = f;
  const LzWord *held = NULL;
  LzWord m = 0;
  if (info->type == LZ_PAP) {
    fun = fp[1];
    m = fp[2];
    held = &fp[3];
    info = LZ_INFO(fun);
  }
  if (info->type != LZ_FUN)
    lz_internal_error("applying a value that is not a function (%s)",
                      info->name ? info->name : "?");
  LzWord arity = info->arity;
  LzWord total = m + (LzWord)k;
#define ARG(i) ((i) < m ? held[(i)] : args[(i)-m])
  if (total < arity) {
    LzWord *pap = lz_alloc_words(cap, 3 + total);
    pap[0] = (LzWord)&lz_pap_info;
    pap[1] = fun;
    pap[2] = total;
    for (LzWord i = 0; i < total; i++)
      pap[3 + i] = ARG(i);
    n.code = ((const LzInfo *)sp[0])->entry;
    n.sp = sp;
    n.r1 = (LzWord)pap | 1;
    return n;
  }
  LzWord excess = total - arity; /* <= k <= 3 */
  LzWord on_stack = arity > 3 ? arity - 3 : 0;
  sp = stack_check(cap, sp, (excess ? excess + 1 : 0) + on_stack);
  if (excess) {
    sp -= excess + 1;
    sp[0] = (LzWord)ap_frame_info[excess];
    for (LzWord i = 0; i < excess; i++)
      sp[1 + i] = args[(LzWord)k - excess + i];
  }
  for (LzWord i = arity; i-- > 3;)
    *--sp = ARG(i);
  n.code = info->entry;
  n.sp = sp;
  n.r1 = fun;
  n.r2 = arity > 0 ? ARG(0) : 0;
  n.r3 = arity > 1 ? ARG(1) : 0;
  n.r4 = arity > 2 ? ARG(2) : 0;
#undef ARG
  return n;
}

#define GO(next)                                                                                   \
  do {                                                                                             \
    LzNext n_ = (next);                                                                            \
    sp = n_.sp, r1 = n_.r1, r2 = n_.r2, r3 = n_.r3, r4 = n_.r4;                                    \
    LZ_JUMP(n_.code);                                                                              \
  } while (0)

LZ_FN(lz_apply_1) {
  if (LZ_TAG(r1)) { /* fast path: an exact call of a function */
    const LzInfo *info = LZ_INFO(r1);
    if (info->type == LZ_FUN && info->arity == 1) LZ_JUMP(info->entry);
  }
  LzWord a[1] = {r2};
  GO(apply(cap, sp, r1, a, 1));
}

LZ_FN(lz_apply_2) {
  if (LZ_TAG(r1)) { /* fast path: an exact call of a function */
    const LzInfo *info = LZ_INFO(r1);
    if (info->type == LZ_FUN && info->arity == 2) LZ_JUMP(info->entry);
  }
  LzWord a[2] = {r2, r3};
  GO(apply(cap, sp, r1, a, 2));
}

LZ_FN(lz_apply_3) {
  if (LZ_TAG(r1)) { /* fast path: an exact call of a function */
    const LzInfo *info = LZ_INFO(r1);
    if (info->type == LZ_FUN && info->arity == 3) LZ_JUMP(info->entry);
  }
  LzWord a[3] = {r2, r3, r4};
  GO(apply(cap, sp, r1, a, 3));
}

/* Apply frames: r1 is the function just computed; the frame holds the arguments. */
LZ_FN(lz_ap1_frame_entry) {
  LzWord a[1] = {sp[1]};
  GO(apply(cap, sp + 2, r1, a, 1));
}

LZ_FN(lz_ap2_frame_entry) {
  LzWord a[2] = {sp[1], sp[2]};
  GO(apply(cap, sp + 3, r1, a, 2));
}

LZ_FN(lz_ap3_frame_entry) {
  LzWord a[3] = {sp[1], sp[2], sp[3]};
  GO(apply(cap, sp + 4, r1, a, 3));
}

/* ---- running ------------------------------------------------------------------------ */

LzWord lz_run(LzCap *cap, LzCode code, LzWord r1, LzWord r2, LzWord r3, LzWord r4) {
  LzThread *t = cap->tso;
  code(cap, t->sp, r1, r2, r3, r4);
  return t->result;
}

LzWord *lz_thread_sp(LzCap *cap) { return ((LzThread *)cap->tso)->sp; }

/* replay_slice.c — the replay scheduler's decisions while a thread runs: it stops exactly at
 * its recorded stop (a pre-emption at the heap check with the recorded code and stack
 * depth once the capability's allocation count reaches the recorded one, Note [Pre-emption
 * in a loop]; a block only where the recording blocked); an update that woke threads in
 * the recording first waits until they have blocked on it, and wakes them in the recorded
 * order (Note [Replay wake-ups]); and a thunk another capability claimed in the recording
 * is left to it (the claim gate, Note [Thunk ids]). Note [Replay] in docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <link.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_dup.h"
#include "replay_sched_priv.h"
#include "replay_step.h"

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
    w->t = rep && rep < rpl_ntids ? rpl_threads[rep] : NULL;
  }
  if (w->on) return w->t && w->t->blocked_on == w->on;
  if (w->t && w->t->blocked_on != 0) return true;
  /* everyone else waits: the thread cannot block before this update; go on */
  if (rpl_fails >= lz_ncaps) return w->given_up = true;
  return false;
}

void lz_replay_before_update(LzCap *cap, LzWord *thunk) {
  Stream *s = &rpl_streams[cap->cap_no];
  if (cap->lazy_bh) rpl_lazy_before_update(cap, s, thunk);
  /* threads that blocked on it while it was reserved must be woken by this update */
  for (size_t i = 0; rpl_pending_reserved_wakes && i < rpl_ntids; i++)
    if (rpl_threads[i] && rpl_threads[i]->blocked_on == (LzWord)thunk) {
      __atomic_store_n(&thunk[0], (LzWord)&lz_blackhole_waited_info, __ATOMIC_RELEASE);
      rpl_pending_reserved_wakes--;
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
    rpl_wait_until(cap, has_blocked, &w, "a thread to block on the thunk this capability updates");
    e->done = 1;
  }
  /* the others (the recording could not name the thunk): let the next one block first */
  while (s->wake_at < s->slice_at) {
    uint32_t rec = lz_ev_get32(PAY(&s->ev[s->wake_at])), rep = map_tid(rec);
    LzThread *t = rep && rep < rpl_ntids ? rpl_threads[rep] : NULL;
    if (!t || t->blocked_on == 0) {
      BlockWant w = {rec, t, false, 0};
      rpl_wait_until(cap, has_blocked, &w, "a thread to block");
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
    s->wake_at = rpl_next_wakeup(s, s->wake_at + 1);
  }
}

/* The woken threads in the order of the slice's THREAD_WAKEUPs from woke_at on. */
LzThread *lz_replay_wake_order(LzCap *cap, LzThread *woken) {
  Stream *s = &rpl_streams[cap->cap_no];
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
  int who = map_get(&rpl_claims, id);
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
  Stream *s = &rpl_streams[cap->cap_no];
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
  Stream *s = &rpl_streams[cap->cap_no];
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

void lz_rpl_no_recheck(LzCap *cap) { rpl_streams[cap->cap_no].skip_check = false; }

bool lz_replay_yield_wanted(LzCap *cap) {
  Stream *s = &rpl_streams[cap->cap_no];
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
    rpl_diverged(cap->cap_no, &s->ev[s->slice_at], g);
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
      return rpl_block_id(&s->ev[i]);
  return 0;
}

int lz_replay_may_block(LzCap *cap, LzWord *thunk, size_t depth) {
  Stream *s = &rpl_streams[cap->cap_no];
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
  rpl_wait_until(cap, not_blackhole, thunk, "a thunk another thread evaluates");
  return LZ_RPL_BH_EVAL;
}

/* Note [Thunk ids]: a thunk the recording says another capability claimed (RPL_CLAIM,
 * RPL_BLOCK, a stolen spark), or another capability's thunk or a CAF whose claim here is
 * not recorded, is left to the others: entering it waits until it is claimed (a
 * blackhole), then evaluates it again, which blocks or waits for the update as the
 * recording did. */
bool rpl_claimed_meanwhile(void *arg) {
  ClaimWant *w = arg;
  return __atomic_load_n(&w->x[0], __ATOMIC_ACQUIRE) != w->info;
}

static int claim_gate(LzCap *cap, LzWord thunk) {
  LzWord *x = LZ_UNTAG(thunk);
  LzWord id = lz_replay_thunk_id(x);
  if (!id) return 1;
  /* a thread resumed at the thunk's entry after a stop there (lz_yield_enter): claimed or
   * updated since, it evaluates the thunk again, as the recording's did (its claim failed) */
  uint16_t type = ((const LzInfo *)__atomic_load_n(&x[0], __ATOMIC_ACQUIRE))->type;
  if (type == LZ_BLACKHOLE || type == LZ_IND) return 0;
  if (cap->lazy_bh) return rpl_lazy_gate(cap, x, id);
  int who = map_get(&rpl_claims, id);
  /* every claim of another capability's thunk or a CAF is recorded: one this capability
   * did not record was claimed by another (or found evaluated) */
  if (who < 0 ? LZ_THUNK_ID_CAP(id) == cap->cap_no : (unsigned)who == cap->cap_no) {
    if (lz_step_on) lz_step_claiming(cap, x, id); /* its source and owner, for the stepper */
    return 1;
  }
  ClaimWant w = {x, x[0]};
  rpl_debug_gate_id = id;
  TRACE("capability %u: claim gate waits for %llx (%s, claimed by %d) at %llu bytes\n", cap->cap_no,
        (unsigned long long)id, ((const LzInfo *)x[0])->name ? ((const LzInfo *)x[0])->name : "?",
        who, (unsigned long long)cap->alloc_bytes);
  rpl_wait_until(cap, rpl_claimed_meanwhile, &w, "a thunk another capability claims");
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

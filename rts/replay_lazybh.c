/* replay_lazybh.c — replaying lazy blackholing (`+RTS --lazy-blackholing` runs): the recorded
 * entries of thunks (RPL_CLAIM, RPL_JOIN) and wins (RPL_WON) indexed by thunk id at load, what an
 * entry of a thunk waits for (lazy_gate, called by the claim gate in replay_slice.c) and
 * what an update or a blackholing waits for. Note [Lazy blackholing replay] in
 * docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <stdlib.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_sched_priv.h"
#include "replay_step.h"

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

void rpl_index_entries(void) {
  size_t room = 0, wroom = 0;
  for (unsigned c = 0; c < rpl_nstreams; c++) {
    uint32_t tid = 0;
    for (size_t i = 0; i < rpl_streams[c].n; i++) {
      const Ev *x = &rpl_streams[c].ev[i];
      if (x->type == LZ_EVT_RUN_THREAD && x->len >= 4) tid = lz_ev_get32(PAY(x));
      if (x->type == LZ_EVT_RPL_WON && x->len == LZ_RPL_CLAIM_BYTES) {
        wons = rpl_grow(wons, &wroom, nwons + 1, sizeof(Entry));
        wons[nwons++] = (Entry){lz_ev_get64(PAY(x)), c, i, false, tid};
      }
      if ((x->type != LZ_EVT_RPL_CLAIM && x->type != LZ_EVT_RPL_JOIN) ||
          x->len != LZ_RPL_CLAIM_BYTES)
        continue;
      entries = rpl_grow(entries, &room, nentries + 1, sizeof(Entry));
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

static Ev *entry_ev(const Entry *e) { return &rpl_streams[e->cap].ev[e->i]; }

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
  if (id && rpl_streams[cap->cap_no].in_slice)
    rpl_wait_until(cap, others_entered, &ew, "other capabilities to enter the thunk it blackholes");
}

/* Lazy blackholing: before an update, the entries that preceded it in the recording; an
 * update of a shared thunk (or a CAF) that did not win in the recording (no RPL_WON of it
 * in this slice) waits for the winner's. Note [Lazy blackholing replay]. */
void rpl_lazy_before_update(LzCap *cap, Stream *s, LzWord *thunk) {
  if (is_ind(thunk)) return; /* lost already */
  uint64_t id = lz_replay_thunk_id(thunk);
  if (!id || !s->in_slice) return;
  EntriesWant ew = {id, cap->cap_no, thunk};
  if (rpl_tracing && !others_entered(&ew))
    for (size_t k = first_entry(id); k < nentries && entries[k].id == id; k++)
      TRACE("capability %u updates %llx: entry #%llu on capability %u %s\n", cap->cap_no,
            (unsigned long long)id, (unsigned long long)entry_ev(&entries[k])->index,
            entries[k].cap, entry_ev(&entries[k])->done ? "done" : "to come");
  rpl_wait_until(cap, others_entered, &ew, "other capabilities to enter the thunk it updates");
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
    rpl_wait_until(cap, is_ind, thunk, "another capability's update of a thunk (lazy blackholing)");
  }
}

bool lz_rpl_lazy_won(LzCap *cap) {
  Stream *s = &rpl_streams[cap->cap_no];
  bool won = s->won;
  s->won = false;
  return won;
}

/* Lazy blackholing: an entry of a thunk goes on where the recording shows this capability
 * entering it (RPL_CLAIM or RPL_JOIN, posted here), or when it is this capability's own
 * thunk, entered first: no other capability's entry says it came first (an RPL_CLAIM, not
 * a JOIN), and it is not marked entered by this capability already. Otherwise in the
 * recording it found the thunk evaluated or blackholed: wait until it is. Note [Lazy
 * blackholing replay]. */
int rpl_lazy_gate(LzCap *cap, LzWord *x, uint64_t id) {
  Stream *s = &rpl_streams[cap->cap_no];
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
  rpl_debug_gate_id = id;
  TRACE("capability %u: lazy gate waits for %llx at %llu bytes\n", cap->cap_no,
        (unsigned long long)id, (unsigned long long)cap->alloc_bytes);
  rpl_wait_until(cap, rpl_claimed_meanwhile, &w, "a thunk another capability evaluates (lazy)");
  return 0;
}
#endif

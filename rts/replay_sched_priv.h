/* replay_sched_priv.h — between the parts of the replay scheduler: the recording in memory
 * (replay_sched_load.c), the baton, reserved sparks and finding work (replay_sched.c), a
 * running thread's stops, updates and claims (replay_slice.c), lazy blackholing
 * (replay_lazybh.c) and the comparison of the run's event log with the recording
 * (replay_compare.c). Nothing else includes this header. Note [Replay] in
 * docs/notes/replay.md.
 */
#ifndef LZ_REPLAY_SCHED_PRIV_H
#define LZ_REPLAY_SCHED_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay.h"

/* ---- the recording, in memory (replay_sched_load.c) ---------------------------------------- */

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

/* Open-addressing maps from a nonzero id to a capability (0: empty slot): `stolen`, spark
 * id -> the thief; `claims`, thunk id -> the capability that claimed it (RPL_CLAIM, or
 * the allocating one for a thunk blocked on: Note [Thunk ids]). */
typedef struct IdMap {
  uint64_t *key;
  uint16_t *cap;
  size_t mask, n;
  unsigned shift; /* 64 - log2(slots): the slot is the product's top bits */
} IdMap;

extern LzReplayReader *rpl_reader;
/* LZ_REPLAY_TRACE set: the replay's waits and slices on stderr (a debugging aid) */
extern bool rpl_tracing;
#define TRACE(...)                                                                                 \
  do {                                                                                             \
    if (rpl_tracing) fprintf(stderr, "replay: " __VA_ARGS__);                                      \
  } while (0)
extern Stream *rpl_streams;
extern unsigned rpl_nstreams;
extern uint8_t *rpl_arena;
extern IdMap rpl_stolen, rpl_claims, rpl_taken; /* taken: spark ids of every RPL_SPARK */
extern uint32_t *rpl_rec2rep, *rpl_rep2rec;     /* thread ids: recorded <-> this run */
extern uint32_t *rpl_runs;                      /* by this run's id: slices the thread has begun */
extern LzThread **rpl_threads;                  /* by this run's id */
extern size_t rpl_ntids;

void *rpl_grow(void *p, size_t *room, size_t need, size_t elem);
/* The id a thunk a recorded RPL_BLOCK names (see replay_sched_load.c). */
uint64_t rpl_block_id(const Ev *x);

static inline const uint8_t *PAY(const Ev *e) { return rpl_arena + e->off; }

/* Fibonacci hashing takes the product's top bits: its low bits depend only on the id's
 * low bits, which are nearly constant (a thunk id's size and entry bits, Note [Thunk
 * ids]), and linear probing through the resulting clusters made lookups slow. */
static inline size_t slot_of(const IdMap *m, uint64_t id) {
  return (size_t)((id * 0x9E3779B97F4A7C15ull) >> m->shift);
}

static inline int map_get(const IdMap *m, uint64_t id) { /* the capability, or -1 */
  if (!m->key) return -1;
  size_t i = slot_of(m, id);
  while (m->key[i]) {
    if (m->key[i] == id) return m->cap[i];
    i = (i + 1) & m->mask;
  }
  return -1;
}

static inline uint32_t map_tid(uint32_t rec) { return rec < rpl_ntids ? rpl_rec2rep[rec] : 0; }

/* ---- lazy blackholing (replay_lazybh.c) ------------------------------------------------------ */

void rpl_index_entries(void);
void rpl_lazy_before_update(LzCap *cap, Stream *s, LzWord *thunk);
int rpl_lazy_gate(LzCap *cap, LzWord *x, uint64_t id);

/* ---- describing and comparing events (replay_compare.c) ----------------------------------------
 */

void rpl_describe(char *out, size_t n, uint16_t type, const uint8_t *p, uint32_t len);
_Noreturn void rpl_diverged(unsigned cap, const Ev *want, const char *got);
extern volatile int rpl_stuck_closing; /* the log is being closed because the replay is stuck */

/* ---- the baton, reserved sparks, finding work (replay_sched.c) ---------------------------------
 */

extern unsigned rpl_fails;         /* consecutive capabilities that could not go on */
extern uint64_t rpl_debug_gate_id; /* the thunk the last claim gate waited for */
/* blocks on reserved sparks whose wake-up the update has still to arrange (lz_replay_before_update)
 */
extern unsigned rpl_pending_reserved_wakes;
/* Hold the baton with ok(arg) true, letting the other capabilities run meanwhile. */
void rpl_wait_until(LzCap *cap, bool (*ok)(void *), void *arg, const char *what);
/* The next THREAD_WAKEUP of the slice whose thunk the recording does not name. */
size_t rpl_next_wakeup(Stream *s, size_t from);

/* ---- a running thread (replay_slice.c) --------------------------------------------------------
 */

/* What a claim gate waits for: the thunk x's info word no longer info (claimed_meanwhile). */
typedef struct ClaimWant {
  LzWord *x;
  LzWord info;
} ClaimWant;

bool rpl_claimed_meanwhile(void *arg);

#endif

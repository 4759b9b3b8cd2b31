/* replay.h — record and replay of parallel runs (the -replay way), between the runtime's
 * hooks and rts/replay*.c.
 *
 * A program built with `lzc -replay` links liblzrts_rpl.a (threaded + event log +
 * LZ_REPLAY). `+RTS --record[=prog.lzr]` writes the run's event log through the zstd
 * sink of replaylog_write.c, with a few replay events that make the nondeterministic
 * choices explicit; `+RTS --replay[=prog.lzr]` re-executes that run one capability at a
 * time, following the recorded choices, and compares every event it emits with the
 * recorded one. The design, and what is and is not reproduced, is Note [Replay] in
 * docs/notes/replay.md. Every hook below is called only from `#if LZ_REPLAY` code.
 */
#ifndef LZ_REPLAY_H
#define LZ_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "replaylog.h"
#include "rts_priv.h"
#include "sparkpool.h"

/* Replay events (declared, with the recorded-input ones, in logs of the -replay way):
 *   LZ_EVT_RPL_SLICE  tid u32, why u16 (LzStopWhy), alloc u64: a thread returned to the
 *                     scheduler; alloc = the capability's allocated bytes at that moment
 *                     (the deterministic position of a pre-emption);
 *   LZ_EVT_RPL_SPARK  id u64, kind u8 (LzSparkEvent: RUN, STEAL or FIZZLE), pool u16:
 *                     the spark the capability took from `pool` when looking for work;
 *   LZ_EVT_RPL_CLAIM  id u64: the capability claimed (blackholed) the thunk with this id,
 *                     allocated on another capability (Note [Thunk ids]);
 *   LZ_EVT_RPL_BLOCK  id u64: a thread of the capability blocks on the thunk with this id;
 *   LZ_EVT_RPL_YIELD  code u64, depth u32, updates u32, above u16: a thread stops at a
 *                     heap check (pre-empted), in the function of this info table (offset
 *                     from lz_ind_info) with this many stack words in use, after this many
 *                     updates in the slice, this many words above its innermost update
 *                     frame: which of the heap checks passed at one allocation count was
 *                     the stop (Note [Replay], pre-emption; Note [Pre-emption in a loop]);
 *   LZ_EVT_RPL_WAKE   id u64: the update of the thunk with this id (0: none) wakes the
 *                     threads of the THREAD_WAKEUP events that follow it;
 *   LZ_EVT_RPL_WON    id u64: lazy blackholing, the first update of a thunk that another
 *                     capability than its own entered (or of a CAF): the others lose
 *                     (Note [Lazy blackholing replay] in docs/notes/replay.md);
 *   LZ_EVT_RPL_JOIN   id u64: lazy blackholing, as RPL_CLAIM, but the thunk's own
 *                     capability had entered it already (it was evaluating it too). */
/* (numbers, sizes and their encoding in the log: replaylog.h) */

/* Note [Thunk ids] (docs/notes/replay.md): in the -replay way a thunk's spare word holds
 * (allocating capability << 48) | 1 << 47 | (its alloc_bytes at the allocation + offset)
 * | granules << 1 | 1 from allocation to update (bit 47 and bit 0: never a pointer, tagged
 * or not; the allocation count is a multiple of 16, so bits 1..3 hold the thunk's size in
 * granules, 1..7, or 0 when larger, for the update: clear_free_vars); 0 for CAFs and the
 * runtime's own thunks. */
#define LZ_THUNK_ID_CAP(id)      ((uint32_t)((id) >> 48))
#define LZ_THUNK_ID_GRANULES(id) ((size_t)((id) >> 1 & 7))
#define LZ_IS_THUNK_ID(w)        (((w) & ((1ull << 47) | 1)) == ((1ull << 47) | 1))
#define LZ_THUNK_ID_STATIC       0x7fffu /* the "capability" of CAFs' ids */
/* Lazy blackholing: bit 45 of a heap thunk's id says another capability entered it, bit 46
 * that its own did (the allocation count in an id is taken modulo 2^45, so they start
 * clear; bits 1..3 hold the size); ids in events and maps have them cleared. */
#define LZ_THUNK_ID_SHARED (1ull << 45)
#define LZ_THUNK_ID_OWNER  (1ull << 46)
#define LZ_THUNK_ID_MARKS  (3ull << 45)
/* The id of a thunk or blackhole: its spare word's, a CAF's from its address (relative to
 * the executable: the same in every run), else 0 (a thunk the runtime made). */
LzWord lz_replay_thunk_id(const LzWord *x);

typedef enum LzReplayMode { LZ_RPL_OFF, LZ_RPL_RECORD, LZ_RPL_REPLAY } LzReplayMode;
extern LzReplayMode lz_replay_mode;
#define lz_replaying (lz_replay_mode == LZ_RPL_REPLAY)

/* flags.c: "--record[=file]" or "--replay[=file]"; 0, or 1 with a message in err. */
int lz_replay_flag(const char *arg, char *err, size_t errlen);

/* start.c. After the flags are parsed, before the runtime starts: for --replay, open and
 * check the log (exit 3 on any problem) and put the recorded arguments, -N and flags in
 * place. */
void lz_replay_prepare(void);
/* Instead of the -l event log: open the recording (zstd sink) or the replay's
 * comparison log, and give the capabilities their buffers. Returns false when neither
 * --record nor --replay was given. */
bool lz_replay_log_start(int argc, char **argv);
/* After the event log is closed: free the writer (record) or check that the whole
 * recording was reproduced (replay; exit 3 if not). */
void lz_replay_log_end(void);

/* sched.c. */
typedef struct LzReplaySchedOps {
  LzSparkPool **pools;
  LzThread *(*rq_peek)(LzCap *cap);
  LzThread *(*rq_pop)(LzCap *cap);
  LzThread *(*spark_thread)(LzCap *cap);
  LzThread *(*rq_take)(LzCap *cap, uint32_t id); /* that thread, wherever it is queued */
} LzReplaySchedOps;
/* lz_exit is stopping the other capabilities (record: the final pruning of the spark
 * pools is not a choice to log; replay: let the others reach the end of their recorded
 * events first). */
void lz_replay_exiting(void);
/* Replay: the next thread to run on cap, chosen as recorded. */
LzThread *lz_replay_find_work(LzCap *cap, const LzReplaySchedOps *ops);
/* Replay: stop here? (the recorded pre-emption point of the running slice) */
bool lz_replay_yield_wanted(LzCap *cap);
/* Both: a thread came back to run() (record: log RPL_SLICE; replay: the same, and the
 * recording's next slice becomes current). */
void lz_replay_slice_end(LzCap *cap, LzThread *t, LzStopWhy why);
/* Replay: a spark was pushed by par#; a spark another capability steals later is
 * reserved until then (Note [Reserved sparks]). */
void lz_replay_spark_pushed(LzCap *cap, LzWord closure, LzSparkId id);
/* Replay: par# (sched.c). A spark no capability takes in the recording is not pushed
 * (it stayed in the pool or overflowed there; pushing it could make the pool overflow
 * where the recording's did not); the others are pushed and passed to
 * lz_replay_spark_pushed. True when pushed. */
bool lz_replay_spark_new(LzCap *cap, LzSparkPool *pool, LzWord closure);

/* blackhole.c, replay: a thread found a blackhole owned by another thread, with `depth`
 * stack words in use. LZ_RPL_BH_BLOCK: block (the recording blocked here); _EVAL: the
 * blackhole has been updated meanwhile; _STOP: the recorded pre-emption is here (it
 * stopped at the entry of this thunk while another capability claimed it): stop as a
 * heap check would (lz_yield_enter). */
enum { LZ_RPL_BH_EVAL, LZ_RPL_BH_BLOCK, LZ_RPL_BH_STOP };
int lz_replay_may_block(LzCap *cap, LzWord *thunk, size_t depth);

/* Generated code (the -replay way, codegen/cg_expr.c claim_thunk). lz_replay_claimed:
 * the capability won the claim of a thunk whose id names another capability (posts
 * RPL_CLAIM). lz_replay_claim_gate, replay only, before the claim: nonzero when this
 * capability may claim it; 0 after waiting until the capability the recording names has
 * claimed it (the caller then evaluates the thunk again: it is a blackhole by then). */
void lz_replay_claimed(LzCap *cap, LzWord thunk);
/* blackhole.c: the running thread is about to block on `thunk` (posts RPL_BLOCK). */
void lz_replay_blocking(LzCap *cap, LzWord *thunk);
int lz_replay_claim_gate(LzCap *cap, LzWord thunk);
/* Generated code, lazy blackholing: an entry found the thunk unevaluated; `id` its spare
 * word read before the check (0 for a CAF). Marks the id (SHARED or OWNER); record: posts
 * RPL_CLAIM for a CAF, for an own thunk another capability entered first, and (RPL_JOIN if
 * its own capability entered it first) for another capability's thunk. Replay: the claim
 * gate posts them. Note [Lazy blackholing replay]. */
void lz_replay_entered(LzCap *cap, LzWord thunk, LzWord id);
/* glue.c, lazy blackholing, the update's lock taken: `spare` is the thunk's spare word.
 * A shared thunk's or a CAF's update posts RPL_WON. */
void lz_replay_updating(LzCap *cap, LzWord *thunk, LzWord spare);
/* blackhole.c, replay, lazy blackholing: a stopping thread is about to blackhole `thunk`;
 * waits for the other capabilities' recorded entries of it. */
void lz_replay_lazy_blackholing(LzCap *cap, LzWord *thunk);
bool lz_rpl_lazy_won(LzCap *cap); /* replay_lazybh.c: post RPL_WON for this update? (once) */

/* glue.c, lz_yield_enter/_return, both modes: the running thread is about to stop at the heap
 * check of the code of `info` with `depth` stack words in use. Record: posts RPL_YIELD,
 * true. Replay: true when this is the recorded stop (posts RPL_YIELD); false when it is not
 * (another heap check at the same allocation count): the caller re-enters the code, whose
 * heap check then goes on (the next lz_yield_check answers no). `thunk`: the closure
 * entered (lz_yield_enter; NULL at a return), whose info word another capability may
 * change meanwhile (Note [Replay], pre-emption at a thunk's entry). */
bool lz_replay_yield_point(LzCap *cap, const void *info, const LzWord *thunk, size_t depth);
/* glue.c, replay: a thread with cap->yield set enters an IND with sp: is the recorded
 * stop here? (Another capability updated, earlier than in the recording, the thunk at
 * whose entry heap check the recording stopped.) Then the caller jumps to lz_yield_enter. */
bool lz_rpl_stop_at_ind(LzCap *cap, const LzWord *sp);
/* replay_slice.c, for it: is this the recorded stop? If so, *code is what to post. */
bool lz_rpl_yield_here(LzCap *cap, uint64_t *code, uint32_t depth, const LzWord *thunk);
/* After lz_rpl_yield_here said no: the code the thread goes on with does not begin with
 * the heap check it said no at (an IND's entry), so the next check is not to be passed. */
void lz_rpl_no_recheck(LzCap *cap);
/* replay.c, both modes: the running thread's stack words above its innermost update frame
 * when `depth` words are in use (0xfffe at most; 0xffff: none). With the slice's update
 * count (LzCapPriv.slice_updates) it places a stop among heap checks of one code at one
 * depth and allocation count: Note [Pre-emption in a loop] in docs/notes/replay.md. */
uint16_t lz_replay_above_update(const LzCap *cap, size_t depth);

/* glue.c, the update frame, both modes: the update of `thunk`, whose spare word was `id`,
 * wakes threads (posts RPL_WAKE). */
void lz_replay_waking(LzCap *cap, const LzWord *thunk, LzWord id);

/* blackhole.c, replay: the threads an update wakes (a list through ->link), reordered as
 * the recording's THREAD_WAKEUP events of the running slice have them. */
LzThread *lz_replay_wake_order(LzCap *cap, LzThread *woken);

/* glue.c, replay: the update frame is about to update `thunk`. If the recording wakes a
 * thread in this slice that has not blocked yet, let it block first. */
void lz_replay_before_update(LzCap *cap, LzWord *thunk);

/* io.c: read(2) of a handle (record: logs stdin bytes; replay: serves them). */
long lz_replay_io_read(int fd, void *buf, size_t n);

/* Shared by replay.c and the replay scheduler (replay_sched*.c, replay_slice.c). */
void lz_replay_spark_hook(uint32_t cap, LzSparkEvent ev, LzSparkId id, uint32_t victim);
void lz_replay_post_spark(LzCap *cap, LzSparkId id, LzSparkEvent kind, uint32_t pool);
void lz_replay_post_slice(LzCap *cap, uint32_t tid, LzStopWhy why, uint64_t alloc);
extern const LzEvType lz_rpl_types[];
extern const size_t lz_rpl_ntypes;

/* The replay scheduler, for replay.c: loading (replay_sched_load.c), comparing
 * (replay_compare.c), the scheduler (replay_sched.c). */
void lz_rpl_load(const char *path); /* open, check, read every event */
const struct LzReplayHeader *lz_rpl_header(void);
bool lz_rpl_open_compare_log(int argc, char **argv);
void lz_rpl_finish(void);
void lz_rpl_slice_done(LzCap *cap);
void lz_rpl_exiting(void);
void lz_rpl_baton_pass(unsigned to);  /* replay_baton.c: `to` may run now */
void lz_rpl_baton_await(unsigned me); /* until capability `me` may run */
long lz_rpl_stdin(void *buf, size_t n);
_Noreturn void lz_rpl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* replay_sched.c, for the stepper (replay_step*.c): the recording, by capability. */
typedef struct LzRplEvent {
  uint16_t type;
  uint32_t len;
  const uint8_t *payload; /* big-endian, as in the file */
  uint64_t time;          /* the original run's clock, ns */
  uint64_t index;         /* the event's number in the file */
} LzRplEvent;
unsigned lz_rpl_ncaps(void);
size_t lz_rpl_cap_events(unsigned cap);
bool lz_rpl_event(unsigned cap, size_t i, LzRplEvent *out);
const char *lz_rpl_type_desc(uint16_t type);
LzThread *lz_rpl_thread(uint32_t rec_tid); /* this run's thread of a recorded id, once it ran */
uint32_t lz_rpl_rec_tid(uint32_t rep_tid); /* the recorded id of this run's thread (0: none) */
LzSparkPool **lz_rpl_pools(void);          /* the spark pools (NULL before any looked for work) */

#endif

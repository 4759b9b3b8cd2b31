/* replay_dup.h — the duplicate-work report of a replay (`+RTS --replay=LOG
 * --dup-report=FILE`, read by `lzprof dup PROG LOG`).
 *
 * While replaying with the flag, hooks in the replay scheduler, the claim gate and the
 * update frame tell the detector who entered which thunk, which thread runs which spark,
 * and every update. It finds two kinds of wasted evaluation: a thunk updated when it was
 * already updated (another thread evaluated it too: with lazy blackholing) and a converted
 * spark whose evaluation nobody else used (no other thread entered, waited for or read
 * the thunks it updated). Times are on the original run's clock. At exit it writes FILE
 * (format and definitions: Note [Duplicate work] in docs/notes/lzprof.md, "dup").
 *
 * The detector proper (lz_dup_core_*) knows nothing of capabilities' structures, so a unit
 * test can feed it synthetic sequences (tests/unit/test_replay_dup.c); the hooks
 * (lz_dup_*) translate the runtime's state into its calls. All of it is replay-only and
 * runs one capability at a time (the replay's baton), so nothing here is locked.
 */
#ifndef LZ_REPLAY_DUP_H
#define LZ_REPLAY_DUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rts.h"

/* The first line of a report; lzprof also looks for it in a binary to tell a runtime that
 * can write reports (the -replay way) from one that cannot. */
#define LZ_DUP_MAGIC "lz-dup-report 1"

/* ---- the detector ------------------------------------------------------------------------ */

/* A new replay of `ncaps` capabilities whose recording ends at run_ns (original clock). */
void lz_dup_core_reset(unsigned ncaps, uint64_t run_ns);
/* Capability `cap` begins a recorded slice of thread `tid`: it starts at t0 (recorded time)
 * with the capability's allocation count a0 and ends at t1 with a1 (has_end false: the
 * recording stops during it; t1 is then the recording's end, a1 the count at exit). */
void lz_dup_core_slice(unsigned cap, uint32_t tid, uint64_t t0, uint64_t a0, uint64_t t1,
                       uint64_t a1, bool has_end);
/* Thread tid on cap starts evaluating the thunk at obj (its id, or 0; its info table). */
void lz_dup_core_enter(unsigned cap, uint32_t tid, uintptr_t obj, uint64_t id, const LzInfo *info,
                       uint64_t alloc);
/* Thread tid did not start evaluating obj after all (the replay's claim gate sent it to
 * look at the thunk again: another thread had claimed or updated it). */
void lz_dup_core_unenter(uint32_t tid, uintptr_t obj);
/* At exit: every evaluation still running whose thunk another thread has updated
 * (updated(obj)) is duplicate work cut off by the exit, its time up to its thread's last
 * slice (lazy blackholing: the spark thread of `x `par` (x `pseq` ...)` still evaluating x
 * when the main thread, done with it, exits). */
void lz_dup_core_cut_off(bool (*updated)(uintptr_t obj));
/* Thread tid on cap runs the spark `spark` whose closure is obj. */
void lz_dup_core_spark(unsigned cap, uint32_t tid, uintptr_t obj, uint64_t spark, uint64_t id,
                       const LzInfo *info, uint64_t alloc);
/* Thread tid on cap is about to update obj. already: it is updated (an IND): this
 * evaluation was duplicate work; waited: threads wait for it (a blackhole with waiters).
 * True: watch the thunk once updated (it belongs to a spark's work: lz_dup_core_hit). */
bool lz_dup_core_update(unsigned cap, uint32_t tid, uintptr_t obj, bool already, bool waited,
                        uint64_t alloc);
/* A thread (tid, 0 if unknown) reads the value of the watched thunk obj. True: stop
 * watching it (its spark's work has been used). */
bool lz_dup_core_hit(uint32_t tid, uintptr_t obj);
/* The report; final_alloc[c]: capability c's allocation count at exit. 0, or -1 (errno). */
int lz_dup_core_write(FILE *f, const char *prog, const uint64_t *final_alloc);
/* For the unit test: how many of each kind were found so far (sparks: done and unused). */
void lz_dup_core_counts(size_t *dups, size_t *sparks_wasted);

/* ---- flags and hooks (the -replay way) --------------------------------------------------- */

/* flags.c: "--dup-report=FILE". 0, or 1 with a message in err. */
int lz_dup_flag(const char *arg, char *err, size_t errlen);
bool lz_dup_wanted(void);
/* On while replaying with --dup-report (set by lz_dup_start). */
extern bool lz_dup_on;
/* replay.c, after the recording is loaded: check the flags' combination, switch on. */
void lz_dup_start(void);
/* replay.c, at exit after the replay was checked: write the report. */
void lz_dup_finish(void);

#if LZ_REPLAY
/* replay_sched.c begin_slice: cap starts the recorded slice [t0, t1] of thread t, which
 * ends with the capability's allocation count at a1 (has_end false: cut off). */
void lz_dup_slice(LzCap *cap, const void *t, uint64_t t0, uint64_t t1, uint64_t a1, bool has_end);
/* replay_sched.c: cap's spark thread t runs the spark `id` (closure). */
void lz_dup_spark_run(LzCap *cap, const void *t, LzWord closure, uint64_t id);
/* replay_slice.c lz_replay_claim_gate: the running thread enters the thunk; unenter: the
 * gate sent it to look at the thunk again. */
void lz_dup_enter(LzCap *cap, LzWord thunk);
void lz_dup_unenter(LzCap *cap, LzWord thunk);
/* glue.c, the update frame: after the replay's waits (nothing changed yet), and after the
 * update. */
void lz_dup_update(LzCap *cap, LzWord *thunk);
void lz_dup_updated(LzCap *cap, LzWord *thunk);
/* glue.c/values.c: an indirection whose info is not lz_ind_info was followed (a watched
 * one; cap NULL: thread unknown). */
void lz_dup_ind_read(LzCap *cap, LzWord *x);
#endif

#endif

/* replay_dup_hooks.c — `+RTS --dup-report=FILE` (with --replay): the flag, and the hooks
 * that give the duplicate-work detector (replay_dup.c) the runtime's state: the thread a
 * capability runs, thunk ids, info words, allocation counts and the recorded slices.
 *
 * To learn whether a spark's work was used, the thunks a spark thread updates are
 * *watched*: after the update their info word is watched_ind_info, an IND with its own
 * entry. Generated code compares an info word with lz_ind_info before following an
 * indirection inline, so a watched one is entered; lz_eval, apply and lz_whnf follow INDs
 * by type and call lz_dup_ind_read for one that is not lz_ind_info. The first read by
 * another thread marks the spark's work used and puts lz_ind_info back. Only while
 * replaying with the flag: a replay runs one capability at a time. Note [Duplicate work]
 * in docs/notes/lzprof.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_dup.h"
#include "replay_step.h"

bool lz_dup_on;
static const char *report_path;
static LzWord **to_watch; /* by capability: the thunk its update frame is updating, to watch */
static unsigned n_watch;

int lz_dup_flag(const char *a, char *err, size_t errlen) {
  if (strncmp(a, "--dup-report=", 13) != 0 || !a[13]) {
    snprintf(err, errlen, "bad RTS option: %s (use --dup-report=<file>, with --replay)", a);
    return 1;
  }
  report_path = a + 13;
  return 0;
}

bool lz_dup_wanted(void) { return report_path != NULL; }

void lz_dup_start(void) {
  if (!report_path) return;
  if (lz_replay_mode != LZ_RPL_REPLAY)
    lz_die(1, "--dup-report=FILE reports on a replay: give --replay[=file] too");
  if (lz_step_wanted()) lz_die(1, "--dup-report cannot be combined with --step");
  unsigned n = lz_rpl_ncaps();
  uint64_t end = 0;
  for (unsigned c = 0; c < n; c++) {
    LzRplEvent e;
    size_t k = lz_rpl_cap_events(c);
    if (k && lz_rpl_event(c, k - 1, &e) && e.time > end) end = e.time;
  }
  lz_dup_core_reset(n, end);
  to_watch = calloc(n ? n : 1, sizeof *to_watch);
  if (!to_watch) lz_die(3, "--dup-report: out of memory");
  n_watch = n;
  lz_dup_on = true;
}

/* The detector's tables live in malloc'd memory, which the collector may scan (Boehm
 * conservative roots): objects are given to it complemented, so that a table never keeps
 * a thunk alive (an address may then be reused: the detector allows for that). */
#define HIDE(p) (~(uintptr_t)(p))

/* the running thread's recorded id (what the log and lzprof call it) */
static uint32_t tid_of(const LzThread *t) {
  if (!t) return 0;
  uint32_t rec = lz_rpl_rec_tid(t->id);
  return rec ? rec : t->id;
}

void lz_dup_slice(LzCap *cap, const void *t, uint64_t t0, uint64_t t1, uint64_t a1, bool has_end) {
  lz_dup_core_slice(cap->cap_no, tid_of(t), t0, cap->alloc_bytes, has_end ? t1 : 0, a1, has_end);
}

void lz_dup_spark_run(LzCap *cap, const void *t, LzWord closure, uint64_t id) {
  LzWord *x = LZ_UNTAG(closure);
  const LzInfo *info = (const LzInfo *)x[0];
  lz_dup_core_spark(cap->cap_no, tid_of(t), HIDE(x), id, lz_replay_thunk_id(x),
                    info->type == LZ_THUNK ? info : NULL, cap->alloc_bytes);
}

void lz_dup_enter(LzCap *cap, LzWord thunk) {
  LzWord *x = LZ_UNTAG(thunk);
  const LzInfo *info = (const LzInfo *)x[0];
  lz_dup_core_enter(cap->cap_no, tid_of(cap->tso), HIDE(x), lz_replay_thunk_id(x),
                    info->type == LZ_THUNK ? info : NULL, cap->alloc_bytes);
}

void lz_dup_unenter(LzCap *cap, LzWord thunk) {
  lz_dup_core_unenter(tid_of(cap->tso), HIDE(LZ_UNTAG(thunk)));
}

LZ_FN(lz_dup_watched_entry);
static const LzInfo watched_ind_info = {lz_dup_watched_entry,           LZ_IND, 0, 0, 0, 0,
                                        "IND (watched by --dup-report)"};

void lz_dup_update(LzCap *cap, LzWord *thunk) {
  LzWord info = thunk[0];
  bool already = info == (LzWord)&lz_ind_info || info == (LzWord)&watched_ind_info;
  if (info == (LzWord)&watched_ind_info) /* the update code below sees a plain IND */
    thunk[0] = (LzWord)&lz_ind_info;
  bool watch = lz_dup_core_update(cap->cap_no, tid_of(cap->tso), HIDE(thunk), already,
                                  info == (LzWord)&lz_blackhole_waited_info, cap->alloc_bytes);
  if (cap->cap_no < n_watch) to_watch[cap->cap_no] = watch ? thunk : NULL;
}

void lz_dup_updated(LzCap *cap, LzWord *thunk) {
  if (cap->cap_no >= n_watch || to_watch[cap->cap_no] != thunk) return;
  to_watch[cap->cap_no] = NULL;
  if (thunk[0] == (LzWord)&lz_ind_info) thunk[0] = (LzWord)&watched_ind_info;
}

void lz_dup_ind_read(LzCap *cap, LzWord *x) {
  if (x[0] != (LzWord)&watched_ind_info) return;
  if (!cap) cap = lz_current_cap;
  if (lz_dup_core_hit(cap ? tid_of(cap->tso) : 0, HIDE(x))) x[0] = (LzWord)&lz_ind_info;
}

LZ_FN(lz_dup_watched_entry) {
  LzWord *x = LZ_UNTAG(r1);
  lz_dup_ind_read(cap, x);
  r1 = x[1];
  LZ_RETURN();
}

/* At exit, for lz_dup_core_cut_off: has the thunk been updated? A pending entry's object
 * is alive while its thread evaluates it; the info word is compared, never followed, so
 * that an address the collector reused cannot mislead the check into a crash. */
static bool updated_now(uintptr_t hidden) {
  LzWord *x = (LzWord *)HIDE(hidden);
  if (!lz_plausible_closure((LzWord)x)) return false;
  return x[0] == (LzWord)&lz_ind_info || x[0] == (LzWord)&watched_ind_info;
}

void lz_dup_finish(void) {
  if (!lz_dup_on) return;
  lz_dup_on = false;
  lz_dup_core_cut_off(updated_now);
  uint64_t *alloc = calloc(lz_ncaps ? lz_ncaps : 1, sizeof *alloc);
  for (unsigned c = 0; alloc && c < lz_ncaps; c++)
    alloc[c] = lz_caps[c]->alloc_bytes;
  FILE *f = fopen(report_path, "w");
  int bad = !f || !alloc || lz_dup_core_write(f, lz_prog_name, alloc) != 0;
  if (f && fclose(f) != 0) bad = 1;
  free(alloc);
  if (bad) lz_message("--dup-report: cannot write %s", report_path);
}
#endif

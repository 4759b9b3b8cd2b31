/* replay.c — recording a parallel run (`+RTS --record`), and the parts of replay that are
 * about flags and start-up.
 *
 * Recording is the ordinary event log (thread and user classes) written through the
 * zstd sink of replaylog_write.c into `prog.lzr`, whose header ties it to this binary
 * (SHA-256), its command line, -N and environment. Three things are added to what the
 * scheduler logs anyway, each where the nondeterministic choice is made: after every
 * slice (a thread returning to the scheduler) an RPL_SLICE event with the capability's
 * allocation count, which is where a pre-emption happened in terms replay can find
 * again; for every spark a capability takes when looking for work an RPL_SPARK event
 * with its id (run, stolen, or fizzled); and the bytes every read of stdin returned.
 * Hooks elsewhere add claims and blocks by thunk id (RPL_CLAIM, RPL_BLOCK), which heap
 * check a pre-emption stopped at (RPL_YIELD) and which update woke threads (RPL_WAKE).
 * Replay itself is replay_sched.c. Note [Replay] in docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_dup.h"
#include "replay_step.h"
#include "replaylog.h"
#if LZ_PROF
#include "prof.h"
#endif

extern char **environ;

LzReplayMode lz_replay_mode;
static const char *log_path; /* NULL: <prog>.lzr */
static LzReplayWriter *writer;
/* Recording: each capability's encoder of the replay events (Note [Replay log encoding] in
 * docs/notes/replay-log.md), padded so that two capabilities never share a cache line.
 * NULL when not recording: replay posts plain values, as the reader returns them. */
typedef union {
  LzRplCodec c;
  char pad[(sizeof(LzRplCodec) + 63) / 64 * 64];
} CapCodec;
static CapCodec *codecs;
/* recordings' timestamps: Note [Replay log encoding] */
#define RECORD_TIME_UNIT_NS   256  /* the events replay orders by time (below) */
#define RECORD_COARSE_UNIT_NS 4096 /* all others */
static const uint16_t fine_types[] = {LZ_EVT_THREAD_WAKEUP, LZ_EVT_MIGRATE_THREAD, LZ_EVT_RPL_BLOCK,
                                      LZ_EVT_RPL_INPUT};

const LzEvType lz_rpl_types[] = {
    {LZ_EVT_RPL_INPUT, LZ_EV_VAR, "Lz replay: input bytes"},
    {LZ_EVT_RPL_IO_RESULT, LZ_EV_VAR, "Lz replay: IO result"},
    /* the stored encoding of each field (format version 2): Note [Replay log encoding] */
    {LZ_EVT_RPL_SLICE, LZ_RPL_SLICE_BYTES,
     "Lz replay: slice end (tid, why, allocation since the last slice end)"},
    {LZ_EVT_RPL_SPARK, LZ_RPL_SPARK_BYTES,
     "Lz replay: spark taken (id as a difference, kind, pool)"},
    {LZ_EVT_RPL_CLAIM, LZ_RPL_CLAIM_BYTES,
     "Lz replay: thunk of another capability claimed (id as a difference)"},
    {LZ_EVT_RPL_BLOCK, LZ_RPL_CLAIM_BYTES, "Lz replay: blocking on a thunk (id as a difference)"},
    {LZ_EVT_RPL_YIELD, LZ_RPL_YIELD_BYTES,
     "Lz replay: pre-empted at (code, stack depth, updates in the slice, words above an "
     "update frame)"},
    {LZ_EVT_RPL_WAKE, LZ_RPL_CLAIM_BYTES,
     "Lz replay: update of a thunk waking threads (id as a difference)"},
    {LZ_EVT_RPL_WON, LZ_RPL_CLAIM_BYTES,
     "Lz replay: first update of a shared thunk, lazy (id as a difference)"},
    {LZ_EVT_RPL_JOIN, LZ_RPL_CLAIM_BYTES,
     "Lz replay: thunk its capability evaluates entered, lazy (id as a difference)"},
};
const size_t lz_rpl_ntypes = sizeof lz_rpl_types / sizeof lz_rpl_types[0];

int lz_replay_flag(const char *a, char *err, size_t errlen) {
  LzReplayMode m = !strncmp(a, "--record", 8) ? LZ_RPL_RECORD : LZ_RPL_REPLAY;
  const char *rest = a + 8;
  if (*rest && (*rest != '=' || !rest[1])) {
    snprintf(err, errlen, "bad RTS option: %s (use %.8s or %.8s=<file>)", a, a, a);
    return 1;
  }
  if (lz_replay_mode != LZ_RPL_OFF && lz_replay_mode != m) {
    snprintf(err, errlen, "--record and --replay cannot be given together");
    return 1;
  }
  lz_replay_mode = m;
  log_path = *rest ? rest + 1 : NULL;
  return 0;
}

static const char *path_or_default(char *buf, size_t n) {
  if (log_path) return log_path;
  snprintf(buf, n, "%s.lzr", lz_prog_name);
  return buf;
}

void lz_replay_prepare(void) {
  if (lz_dup_wanted() && lz_replay_mode != LZ_RPL_REPLAY)
    lz_die(1, "--dup-report=FILE reports on a replay: give --replay[=file] too");
  if (lz_step_wanted() && lz_replay_mode != LZ_RPL_REPLAY)
    lz_die(1, "--step and --step-script step through a replay: give --replay[=file] too");
  if (lz_replay_mode != LZ_RPL_REPLAY) return;
  char name[4096];
  lz_rpl_load(path_or_default(name, sizeof name));
  const LzReplayHeader *h = lz_rpl_header();
  /* the recorded command line gives the arguments and the RTS flags; parsing it must not
   * change the mode */
  LzReplayMode mode = lz_replay_mode;
  const char *path = log_path;
  lz_replay_mode = LZ_RPL_OFF;
#if LZ_PROF
  lz_prof_flags_keep(0); /* the replay's -p and -V, not the recording's */
#endif
  LzFlags f;
  int argc = 0;
  char **args = malloc(((size_t)h->argc + 1) * sizeof(char *));
  char err[512];
  if (!args || lz_parse_rts_flags(h->argc, (char **)h->argv, &f, &argc, args, err, sizeof err) == 1)
    lz_rpl_fail("the recorded command line does not parse: %s", args ? err : "out of memory");
  lz_replay_mode = mode;
#if LZ_PROF
  lz_prof_flags_keep(1);
#endif
  log_path = path;
  f.stats = lz_flags.stats;
  f.stats_file = lz_flags.stats_file;
  f.eventlog = lz_flags.eventlog; /* the replay's own event log (Note [Replay's event log]) */
  f.eventlog_file = lz_flags.eventlog_file;
  f.ncaps = h->ncaps;
  lz_flags = f;
  lz_prog_argc = argc;
  lz_prog_argv = args;
  lz_dup_start();  /* --dup-report: the duplicate-work detector (replay_dup.h) */
  lz_step_start(); /* --step: this process becomes the stepper's controller (replay_step.h) */
}

/* ---- recording -------------------------------------------------------------------------- */

static char **rts_opts(int *n) {
  static char buf[5][64];
  static char *v[5];
  snprintf(buf[0], sizeof buf[0], "-N%u", lz_ncaps);
  snprintf(buf[1], sizeof buf[1], "-C%g", (double)lz_flags.ctx_switch_ns / 1e9);
  snprintf(buf[2], sizeof buf[2], "-e%zu", lz_flags.spark_pool);
  snprintf(buf[3], sizeof buf[3], "-A%zu", lz_flags.initial_heap_bytes);
  snprintf(buf[4], sizeof buf[4], "%s", lz_flags.lazy_bh ? "--lazy-blackholing" : "");
  for (int i = 0; i < 5; i++)
    v[i] = buf[i];
  *n = lz_flags.lazy_bh ? 5 : 4;
  return v;
}

static void record_start(int argc, char **argv) {
  char name[4096], err[1024], exe[4096];
  const char *path = path_or_default(name, sizeof name);
  LzReplayHeader h;
  memset(&h, 0, sizeof h);
  if (lz_exe_identity(h.exe_hash, err, sizeof err) != 0) lz_die(1, "--record: %s", err);
  ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
  exe[k > 0 ? k : 0] = 0;
  int n_env = 0;
  while (environ && environ[n_env])
    n_env++;
  h.ncaps = lz_ncaps;
  h.exe_path = exe;
  h.argc = argc;
  h.argv = argv;
  h.rts_opts = rts_opts(&h.n_rts_opts);
  h.n_env = n_env;
  h.env = environ;
  writer = lz_replay_writer_open(path, &h, 0, err, sizeof err);
  if (!writer) lz_die(1, "--record: %s", err);
  LzEvOptions o = {0};
  o.classes = LZ_EVC_SCHED | LZ_EVC_USER;
  o.types = lz_rpl_types;
  o.ntypes = lz_rpl_ntypes;
  o.sink = lz_replay_sink;
  o.sink_ctx = writer;
  o.rts_id = "Lz-0.1 rts_rpl";
  o.time_unit_ns = RECORD_TIME_UNIT_NS;
  o.coarse_unit_ns = RECORD_COARSE_UNIT_NS;
  o.fine_types = fine_types;
  o.nfine = sizeof fine_types / sizeof fine_types[0];
  o.terse_types = true; /* 480 bytes less, compressed: Note [Replay log encoding] */
  codecs = aligned_alloc(64, sizeof(CapCodec) * lz_ncaps);
  if (!codecs) lz_die(1, "--record: out of memory");
  memset(codecs, 0, sizeof(CapCodec) * lz_ncaps);
  if (lz_eventlog_open(NULL, lz_ncaps, argc, argv, &o) != 0)
    lz_die(1, "--record: cannot start the event log: %s", strerror(errno));
  for (unsigned i = 0; i < lz_ncaps; i++) {
    lz_caps[i]->rest->ev = lz_ev_cap_buf(i);
    lz_caps[i]->rest->ev_sparks = NULL;
  }
  lz_spark_hook = lz_replay_spark_hook;
}

bool lz_replay_log_start(int argc, char **argv) {
  if (lz_replay_mode == LZ_RPL_RECORD) {
    record_start(argc, argv);
    return true;
  }
  if (lz_replay_mode == LZ_RPL_REPLAY) return lz_rpl_open_compare_log(argc, argv);
  return false;
}

void lz_replay_log_end(void) {
  if (lz_replay_mode == LZ_RPL_RECORD && writer) {
    const char *why = lz_replay_writer_error(writer);
    if (why && *why) lz_message("--record: %s", why);
    lz_replay_writer_free(writer, NULL);
    writer = NULL;
    free(codecs);
    codecs = NULL;
  } else if (lz_replay_mode == LZ_RPL_REPLAY) {
    lz_rpl_finish();
    lz_dup_finish(); /* --dup-report: the replay was exact, write the report */
  }
}

/* ---- the replay events ------------------------------------------------------------------ */

/* The capability's encoder when recording, else NULL (plain values). */
static inline LzRplCodec *codec(const LzCap *cap) { return codecs ? &codecs[cap->cap_no].c : NULL; }

/* A thunk id as the log stores it. */
static inline uint64_t id_field(const LzCap *cap, uint64_t id) {
  LzRplCodec *c = codec(cap);
  return c ? lz_rpl_encode_diff48(c->id, id) : id;
}

void lz_replay_post_spark(LzCap *cap, LzSparkId id, LzSparkEvent kind, uint32_t pool) {
  LzEvBuf *eb = cap->rest->ev;
  if (!eb) return;
  LzRplCodec *c = codec(cap);
  uint8_t *p = lz_ev_begin(eb, LZ_EVT_RPL_SPARK, LZ_RPL_SPARK_BYTES);
  p = lz_ev_put64(p, c ? lz_rpl_encode_diff48(c->spark, id) : id);
  p = lz_ev_put8(p, (uint8_t)kind);
  lz_ev_put16(p, (uint16_t)pool);
}

void lz_replay_post_slice(LzCap *cap, uint32_t tid, LzStopWhy why, uint64_t alloc) {
  LzEvBuf *eb = cap->rest->ev;
  if (!eb) return;
  LzRplCodec *c = codec(cap);
  uint8_t *p = lz_ev_begin(eb, LZ_EVT_RPL_SLICE, LZ_RPL_SLICE_BYTES);
  p = lz_ev_put32(p, tid);
  p = lz_ev_put16(p, (uint16_t)why);
  lz_ev_put64(p, c ? lz_rpl_encode_alloc(c, alloc) : alloc);
}

static LzWord caf_id(const LzWord *x) { /* Note [Thunk ids] */
  LzWord off = (LzWord)((uintptr_t)x - (uintptr_t)&lz_ind_info) & ((1ull << 46) - 1);
  return (LzWord)LZ_THUNK_ID_STATIC << 48 | 1ull << 47 | off << 1 | 1;
}

LzWord lz_replay_thunk_id(const LzWord *x) {
  if (LZ_IS_THUNK_ID(x[1])) return x[1] & ~(LzWord)LZ_THUNK_ID_MARKS;
  if (x[1] != 0 || GC_is_heap_ptr((void *)x)) return 0;
  return caf_id(x);
}

/* The id of a thunk being blocked on or updated, whose spare word may hold its value
 * already (read as `spare`): a CAF is named by its address all the same (slow paths). */
static LzWord named_id(const LzWord *x, LzWord spare) {
  if (LZ_IS_THUNK_ID(spare)) return spare & ~(LzWord)LZ_THUNK_ID_MARKS;
  return GC_is_heap_ptr((void *)x) ? 0 : caf_id(x);
}

void lz_replay_claimed(LzCap *cap, LzWord thunk) {
  LzEvBuf *eb = cap->rest->ev;
  if (!eb || lz_replay_mode == LZ_RPL_OFF) return;
  LzWord id = lz_replay_thunk_id(LZ_UNTAG(thunk));
  if (id) lz_ev_put64(lz_ev_begin(eb, LZ_EVT_RPL_CLAIM, LZ_RPL_CLAIM_BYTES), id_field(cap, id));
}

void lz_replay_entered(LzCap *cap, LzWord thunk, LzWord id) {
  LzWord *x = LZ_UNTAG(thunk);
  uint16_t type = LZ_EVT_RPL_CLAIM;
  if (!id) {
    id = lz_replay_thunk_id(x); /* a CAF (0: a thunk the runtime made): always recorded */
  } else if (LZ_IS_THUNK_ID(id)) {
    /* mark who entered, and learn who did before (the marks are ordered by the CAS); the
     * CAS fails for good when another thread has written its result there meanwhile */
    bool own = LZ_THUNK_ID_CAP(id) == cap->cap_no;
    LzWord mark = own ? LZ_THUNK_ID_OWNER : LZ_THUNK_ID_SHARED;
    LzWord cur = __atomic_load_n(&x[1], __ATOMIC_RELAXED);
    while (LZ_IS_THUNK_ID(cur) && !(cur & mark) &&
           !__atomic_compare_exchange_n(&x[1], &cur, cur | mark, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
      ;
    bool updated = !LZ_IS_THUNK_ID(cur);
    if (own && !updated && !(cur & LZ_THUNK_ID_SHARED))
      return; /* the first to enter it: not recorded */
    if (!own && (updated || (cur & LZ_THUNK_ID_OWNER))) type = LZ_EVT_RPL_JOIN;
    id &= ~(LzWord)LZ_THUNK_ID_MARKS;
  } else {
    return;
  }
  LzEvBuf *eb = cap->rest->ev;
  if (!id || !eb || lz_replay_mode != LZ_RPL_RECORD) return;
  lz_ev_put64(lz_ev_begin(eb, type, LZ_RPL_CLAIM_BYTES), id_field(cap, id));
}

void lz_replay_updating(LzCap *cap, LzWord *thunk, LzWord spare) {
  LzEvBuf *eb = cap->rest->ev;
  if (lz_replay_mode == LZ_RPL_REPLAY) { /* as recorded (lz_replay_before_update) */
    if (lz_rpl_lazy_won(cap) && eb)
      lz_ev_put64(lz_ev_begin(eb, LZ_EVT_RPL_WON, LZ_RPL_CLAIM_BYTES),
                  id_field(cap, lz_replay_thunk_id(thunk)));
    return;
  }
  if (!eb || lz_replay_mode == LZ_RPL_OFF) return;
  LzWord id = 0;
  if (LZ_IS_THUNK_ID(spare) && (spare & LZ_THUNK_ID_SHARED))
    id = spare & ~(LzWord)LZ_THUNK_ID_MARKS;
  else if (spare == 0)
    id = lz_replay_thunk_id(thunk); /* a CAF's (0: a thunk the runtime made) */
  if (id) lz_ev_put64(lz_ev_begin(eb, LZ_EVT_RPL_WON, LZ_RPL_CLAIM_BYTES), id_field(cap, id));
}

void lz_replay_blocking(LzCap *cap, LzWord *thunk) {
  LzEvBuf *eb = cap->rest->ev;
  if (!eb || lz_replay_mode == LZ_RPL_OFF) return;
  /* 0 when the thunk has no id, or when its owner is updating it (not a CAF): the update
   * writes the result into the spare word before the info word (glue.c), and this thread
   * may still announce its wait in between; replay accepts any thunk for a 0 */
  lz_ev_put64(lz_ev_begin(eb, LZ_EVT_RPL_BLOCK, LZ_RPL_CLAIM_BYTES),
              id_field(cap, named_id(thunk, __atomic_load_n(&thunk[1], __ATOMIC_RELAXED))));
}

uint16_t lz_replay_above_update(const LzCap *cap, size_t depth) {
  const LzThread *t = cap->tso;
  if (!t || depth > t->stack_words) return 0xffff;
  const LzWord *top = t->stack + t->stack_words, *sp = top - depth;
  for (const LzWord *p = sp; p + 1 < top && p - sp < 0xfffe; p++)
    if (p[0] == (LzWord)&lz_update_frame_info) return (uint16_t)(p - sp);
  return depth >= 0xfffe ? 0xfffe : 0xffff;
}

bool lz_replay_yield_point(LzCap *cap, const void *info, const LzWord *thunk, size_t depth) {
  if (lz_replay_mode == LZ_RPL_OFF) return true;
  uint64_t code = (uint64_t)((uintptr_t)info - (uintptr_t)&lz_ind_info);
  if (lz_replay_mode == LZ_RPL_REPLAY && !lz_rpl_yield_here(cap, &code, (uint32_t)depth, thunk))
    return false;
  LzEvBuf *eb = cap->rest->ev;
  if (eb) { /* Note [Pre-emption in a loop]: which of the checks of one code and depth */
    uint8_t *p = lz_ev_begin(eb, LZ_EVT_RPL_YIELD, LZ_RPL_YIELD_BYTES);
    p = lz_ev_put32(lz_ev_put64(p, code), (uint32_t)depth);
    lz_ev_put16(lz_ev_put32(p, cap->rest->slice_updates), lz_replay_above_update(cap, depth));
  }
  return true;
}

void lz_replay_waking(LzCap *cap, const LzWord *thunk, LzWord id) {
  LzEvBuf *eb = cap->rest->ev;
  if (!eb || lz_replay_mode == LZ_RPL_OFF) return;
  lz_ev_put64(lz_ev_begin(eb, LZ_EVT_RPL_WAKE, LZ_RPL_CLAIM_BYTES),
              id_field(cap, named_id(thunk, id)));
}

static __thread bool exiting; /* this OS thread runs lz_exit */

void lz_replay_exiting(void) {
  exiting = true;
  if (lz_replay_mode == LZ_RPL_REPLAY) lz_rpl_exiting();
}

/* Recording: lz_spark_find's choices, with the spark ids (not the final pruning's). */
void lz_replay_spark_hook(uint32_t capno, LzSparkEvent ev, LzSparkId id, uint32_t victim) {
  if (exiting) return;
  if (ev == LZ_SPARK_EV_RUN || ev == LZ_SPARK_EV_STEAL || ev == LZ_SPARK_EV_FIZZLE)
    lz_replay_post_spark(lz_caps[capno], id, ev, (uint32_t)LZ_SPARK_ID_CAP(id)); /* its pool */
}

void lz_replay_slice_end(LzCap *cap, LzThread *t, LzStopWhy why) {
  cap->rest->slice_updates = 0; /* RPL_YIELD counts a slice's updates */
  if (lz_replay_mode != LZ_RPL_OFF) lz_replay_post_slice(cap, t->id, why, cap->alloc_bytes);
  if (lz_replay_mode == LZ_RPL_REPLAY) lz_rpl_slice_done(cap);
}

/* ---- stdin ---------------------------------------------------------------------------------- */

long lz_replay_io_read(int fd, void *buf, size_t n) {
  if (fd == 0 && lz_replay_mode == LZ_RPL_REPLAY) {
    long got = lz_rpl_stdin(buf, n);
    LzCap *cap = lz_current_cap;
    if (cap && cap->rest->ev) lz_replay_post_input(cap->rest->ev, 0, buf, (size_t)got);
    return got;
  }
  ssize_t got = read(fd, buf, n);
  if (fd == 0 && got >= 0 && lz_replay_mode == LZ_RPL_RECORD) {
    LzCap *cap = lz_current_cap;
    if (cap && cap->rest->ev) lz_replay_post_input(cap->rest->ev, 0, buf, (size_t)got);
  }
  return got;
}

#endif

/* eventlog.h — the runtime's event log: GHC's binary format, written without locks.
 *
 * An event log is a header (the list of event types with their sizes) followed by
 * events, each `type u16, timestamp u64, payload`, all big-endian, in blocks: every
 * block starts with a BLOCK_MARKER event giving its size, end time and capability, so
 * the events inside need not repeat the capability. That is GHC's format
 * (includes/rts/EventLogFormat.h), read as it is by ghc-events and ThreadScope.
 *
 * The idea: each capability owns an LzEvBuf and appends to it with plain stores, no
 * lock and no atomic; only when its block (a "chunk") is full does it take a lock, to
 * hand the chunk to a background writer thread through a small queue and take an
 * empty one back. The writer thread does all the file output. Logging off is a NULL
 * buffer pointer: every lz_ev_* function starts with one test of it.
 *
 * Ownership rule: a capability's LzEvBuf is written by one OS thread at a time (the
 * one running the capability); events that belong to no capability go to the global
 * buffer, taken with lz_ev_global_begin/end (locked). lz_eventlog_close requires that
 * no capability is running any more. Note [Event log] in docs/notes/eventlog.md has
 * the design, the numbers and how the scheduler and the flag parser hook in.
 *
 * This file, eventlog.c and eventlog_writer.c depend on nothing else in the runtime
 * (no Boehm, no rts_priv.h), so the writer is testable alone.
 */
#ifndef LZ_EVENTLOG_H
#define LZ_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* ---- event types ---------------------------------------------------------------------- */

#define LZ_EV_VAR        0xffff /* size of a variable-size event type (as in the header) */
#define LZ_EV_LZ_BASE    1000   /* first number of Lz's own event types (Note [Event numbers]) */
#define LZ_EV_MAX_TYPE   2047   /* largest event type number the writer accepts */
#define LZ_EV_MAX_FIXED  256    /* largest payload of a fixed-size event type */
#define LZ_EV_CAP_GLOBAL 0xffff /* capability number of global blocks (GHC: (EventCapNo)-1) */

enum {
#define LZ_EVENT(name, num, size, desc) LZ_EVT_##name = (num),
#include "eventlog_types.def"
#undef LZ_EVENT
};

/* STOP_THREAD status codes, GHC's (includes/rts/Constants.h + EventLogFormat.h): 1..6
 * are the ways a thread returns to the scheduler, 7.. are "blocked on ...", which GHC
 * writes as 6 + why_blocked. Lz: pre-emption by the yield flag is YIELDING; a thread
 * stopped because its capability must collect is HEAP_OVERFLOW (as GHC). */
enum {
  LZ_EV_STOP_HEAP_OVERFLOW = 1,
  LZ_EV_STOP_STACK_OVERFLOW = 2,
  LZ_EV_STOP_YIELDING = 3,
  LZ_EV_STOP_BLOCKED = 4,
  LZ_EV_STOP_FINISHED = 5,
  LZ_EV_STOP_FOREIGN_CALL = 6,
  LZ_EV_STOP_BLOCKED_ON_MVAR = 7,
  LZ_EV_STOP_BLOCKED_ON_BLACKHOLE = 8, /* blocked_on = the owner thread's id */
  LZ_EV_STOP_BLOCKED_ON_READ = 9,
  LZ_EV_STOP_BLOCKED_ON_WRITE = 10,
  LZ_EV_STOP_BLOCKED_ON_DELAY = 11,
  LZ_EV_STOP_BLOCKED_ON_STM = 12,
  LZ_EV_STOP_BLOCKED_ON_DO_PROC = 13,
  LZ_EV_STOP_BLOCKED_ON_MSG_THROW_TO = 16,
  LZ_EV_STOP_BLOCKED_ON_MVAR_READ = 20,
};

/* Capability sets made at open: 0 is the OS process (also the heap capset of the
 * HEAP_* events), 1 the clock domain (WALL_CLOCK_TIME), as GHC does. */
#define LZ_EV_CAPSET_PROCESS 0u
#define LZ_EV_CAPSET_CLOCK   1u

/* Event classes, GHC's `+RTS -l<classes>` letters; call sites of optional events test
 * lz_ev_on(LZ_EVC_...). The defaults are GHC's (s, g, p, u). */
enum {
  LZ_EVC_SCHED = 1u << 0,       /* s: thread create/run/stop/runnable/migrate/wakeup */
  LZ_EVC_GC = 1u << 1,          /* g: GC start/end/request, heap sizes */
  LZ_EVC_SPARKS = 1u << 2,      /* p: SPARK_COUNTERS (sampled) */
  LZ_EVC_SPARKS_FULL = 1u << 3, /* f: one event per spark (create/run/steal/...) */
  LZ_EVC_USER = 1u << 4,        /* u: user messages and markers */
  LZ_EVC_DEFAULT = LZ_EVC_SCHED | LZ_EVC_GC | LZ_EVC_SPARKS | LZ_EVC_USER,
  LZ_EVC_ALL = 0x1f,
};
extern uint32_t lz_ev_classes; /* classes of the open log; 0 while closed */
static inline bool lz_ev_on(uint32_t cls) { return (lz_ev_classes & cls) != 0; }

/* ---- buffers ------------------------------------------------------------------------- */

typedef struct LzEvChunk LzEvChunk;

/* A capability's event buffer: the current block being filled. Padded to a cache
 * line so that two capabilities never share one. */
typedef struct LzEvBuf {
  _Alignas(64) uint8_t *pos; /* next free byte */
  uint8_t *lim;              /* end of the current chunk's space */
  LzEvChunk *chunk;          /* the chunk being filled; its first event is the block marker */
  uint16_t cap;              /* capability number (LZ_EV_CAP_GLOBAL for the global buffer) */
  uint64_t last;             /* the last timestamp written here (lz_ev_stamp_in) */
} LzEvBuf;

/* A sink receives the log's bytes in order, from one thread at a time (the opener for
 * the header, then the writer thread, then the closer); it returns the number of bytes
 * it took (n on success). Called with bytes == NULL, n == 0 at the end (close files;
 * return 0 on success). The default sink writes the file named at open. */
typedef size_t (*LzEvSink)(void *ctx, const void *bytes, size_t n);

typedef struct LzEvType {
  uint16_t num;  /* LZ_EV_LZ_BASE .. LZ_EV_MAX_TYPE, not in eventlog_types.def */
  uint16_t size; /* payload bytes (<= LZ_EV_MAX_FIXED), or LZ_EV_VAR */
  const char *desc;
} LzEvType;

typedef struct LzEvOptions {
  size_t chunk_bytes;    /* block size; 0: 256 KiB (minimum 1 KiB) */
  unsigned max_chunks;   /* chunks allocated at most (a capability waits for the
                            writer beyond); 0: 4 per capability + 8 */
  uint32_t classes;      /* LZ_EVC_* mask; 0: LZ_EVC_DEFAULT */
  const LzEvType *types; /* extra event types declared in the header */
  size_t ntypes;
  char *const *envp;  /* written as PROGRAM_ENV if not NULL */
  const char *rts_id; /* RTS_IDENTIFIER; NULL: "Lz-0.1 rts_thr_l" */
  LzEvSink sink;      /* NULL: write the file `path` */
  void *sink_ctx;
  uint32_t time_unit_ns;      /* timestamps rounded down to a multiple of this power of
                                 two (0, 1: ns); recordings: Note [Replay log encoding] */
  uint32_t coarse_unit_ns;    /* the same for every type but fine_types (0: time_unit_ns) */
  const uint16_t *fine_types; /* types whose times keep time_unit_ns */
  size_t nfine;
  bool terse_types; /* GHC's types declared without their descriptions (readers know
                       them by number; lz_replay_type_desc fills them in): recordings */
} LzEvOptions;

/* Start the log: writes the header and the process events (capsets, RTS identifier,
 * arguments, environment, pid, parent pid, wall-clock time, CAP_CREATE for each of the
 * `ncaps` capabilities, 1 <= ncaps < 0xffff) and starts the writer thread. `argv` has
 * `argc` entries: the whole command line, as GHC logs it. opt may be NULL. Returns 0,
 * or -1 with errno set (file not writable: the caller reports it; bad options:
 * EINVAL; already open: EBUSY). */
int lz_eventlog_open(const char *path, unsigned ncaps, int argc, char *const argv[],
                     const LzEvOptions *opt);
/* End the log: CAP_DELETE/CAPSET_REMOVE_CAP/CAPSET_DELETE, hand every buffer to the
 * writer, wait for it, write EVENT_DATA_END. No capability may be running. Every
 * LzEvBuf pointer becomes invalid. Returns 0, or -1 if writing failed (disk full). */
int lz_eventlog_close(void);
bool lz_eventlog_is_open(void);

/* Capability `cap`'s buffer, or NULL when logging is off or cap >= ncaps. The
 * scheduler keeps it in its capability (LzCapPriv.ev) and passes it to lz_ev_*. */
LzEvBuf *lz_ev_cap_buf(unsigned cap);
/* The same only when the class `cls` (LZ_EVC_*) is logged: for the events that are not
 * scheduler events (GC, spark counters, user messages), which the scheduler's LzCapPriv.ev
 * does not cover. */
static inline LzEvBuf *lz_ev_class_buf(uint32_t cls, unsigned cap) {
  return lz_ev_on(cls) ? lz_ev_cap_buf(cap) : NULL;
}
/* The global buffer, locked; NULL (and nothing locked) when logging is off. */
LzEvBuf *lz_ev_global_begin(void);
void lz_ev_global_end(LzEvBuf *g);
/* Hand the current block to the writer now (an idle capability, or before a risky
 * operation) and start a new one. */
void lz_ev_flush(LzEvBuf *eb);
/* The same when the capability goes idle, but only once the block's first event is
 * LZ_EV_IDLE_FLUSH_NS old: a capability idle for a moment between bursts would otherwise
 * hand over a tiny block each time (a replay log's tiny zstd frames compress badly:
 * Note [Small frames] in docs/notes/replay-log.md). An idle capability calls it again at
 * least every 100 ms (sched.c), so its events still reach the file. */
#define LZ_EV_IDLE_FLUSH_NS ((uint64_t)100 * 1000 * 1000)
void lz_ev_flush_idle(LzEvBuf *eb);

typedef struct LzEvStats {
  uint64_t chunks; /* blocks written */
  uint64_t bytes;  /* bytes written, header included */
  uint64_t waits;  /* times a capability waited for the writer (no free chunk) */
} LzEvStats;
LzEvStats lz_eventlog_stats(void); /* of the open log, or of the last one closed */

/* "sgpfua" with "-x" to remove x, as GHC's -l; adds to/removes from *mask. Returns
 * false on an unknown letter. */
bool lz_eventlog_parse_classes(const char *letters, uint32_t *mask);

/* ---- clock ------------------------------------------------------------------------------
 * Timestamps are CLOCK_MONOTONIC nanoseconds since lz_ev_clock_start (the runtime calls
 * it first thing; lz_eventlog_open calls it if nobody did). */
extern uint64_t lz_ev_t0;
void lz_ev_clock_start(void);
static inline uint64_t lz_ev_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec - lz_ev_t0;
}
/* An event's timestamp: lz_ev_now rounded down to the open log's time unit (1 unless
 * LzEvOptions.time_unit_ns says otherwise). Rounding down keeps each capability's times
 * non-decreasing and never before its block's start. */
extern uint64_t lz_ev_time_mask; /* ~(unit - 1) */
static inline uint64_t lz_ev_stamp(void) { return lz_ev_now() & lz_ev_time_mask; }
/* The timestamp of an event of `type` in eb (type 0xffff: a block marker): lz_ev_now
 * rounded down to the coarse unit, or for LzEvOptions.fine_types to the fine one, and
 * never below eb's previous timestamp, so each buffer's times stay non-decreasing (an
 * event after a fine one in the same coarse unit repeats its time). Note [Replay log
 * encoding] in docs/notes/replay-log.md. */
extern uint64_t lz_ev_coarse_mask;
extern uint8_t lz_ev_fine_bits[(LZ_EV_MAX_TYPE + 8) / 8];
static inline uint64_t lz_ev_stamp_in(LzEvBuf *eb, uint16_t type) {
  bool fine = type <= LZ_EV_MAX_TYPE && (lz_ev_fine_bits[type >> 3] >> (type & 7) & 1);
  uint64_t t = lz_ev_now() & (fine ? lz_ev_time_mask : lz_ev_coarse_mask);
  if (t < eb->last) t = eb->last;
  eb->last = t;
  return t;
}

/* ---- encoding helpers (big-endian, unaligned) ------------------------------------------ */

static inline uint8_t *lz_ev_put8(uint8_t *p, uint8_t v) {
  *p = v;
  return p + 1;
}
static inline uint8_t *lz_ev_put16(uint8_t *p, uint16_t v) {
  v = __builtin_bswap16(v);
  memcpy(p, &v, 2);
  return p + 2;
}
static inline uint8_t *lz_ev_put32(uint8_t *p, uint32_t v) {
  v = __builtin_bswap32(v);
  memcpy(p, &v, 4);
  return p + 4;
}
static inline uint8_t *lz_ev_put64(uint8_t *p, uint64_t v) {
  v = __builtin_bswap64(v);
  memcpy(p, &v, 8);
  return p + 8;
}
static inline uint16_t lz_ev_get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t lz_ev_get32(const uint8_t *p) {
  return (uint32_t)lz_ev_get16(p) << 16 | lz_ev_get16(p + 2);
}
static inline uint64_t lz_ev_get64(const uint8_t *p) {
  return (uint64_t)lz_ev_get32(p) << 32 | lz_ev_get32(p + 4);
}
/* The words for a STOP_THREAD status (replay messages, the stepper). */
static inline const char *lz_ev_stop_status_name(uint16_t s) {
  switch (s) {
  case LZ_EV_STOP_HEAP_OVERFLOW: return "heap overflow";
  case LZ_EV_STOP_YIELDING: return "yielding";
  case LZ_EV_STOP_FINISHED: return "finished";
  case LZ_EV_STOP_BLOCKED_ON_BLACKHOLE: return "blocked on a blackhole";
  default: return "other";
  }
}
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "eventlog.h: the put helpers assume a little-endian host"
#endif

#define LZ_EV_HEADER_BYTES 10 /* type u16 + timestamp u64 */

/* Slow path: the current block is full; hand it over and start a new one. */
void lz_ev__refill(LzEvBuf *eb, size_t need);

/* Start a fixed-size event of `payload` bytes in eb (not NULL): reserves the room,
 * writes the type and the timestamp (taken after the room is secured, so it is never
 * earlier than its block's start) and returns where the payload goes. For Lz's own
 * fixed-size types on hot paths (no check of the size against the declaration; use
 * lz_event_custom where speed does not matter). */
#if LZ_REPLAY
extern bool lz_step_on; /* replay_step.h */
void lz_step_event(LzEvBuf *eb, uint16_t type);
#endif
static inline uint8_t *lz_ev_begin(LzEvBuf *eb, uint16_t type, size_t payload) {
#if LZ_REPLAY
  if (__builtin_expect(lz_step_on, 0)) lz_step_event(eb, type); /* stepping a replay */
#endif
  size_t n = LZ_EV_HEADER_BYTES + payload;
  if (__builtin_expect((size_t)(eb->lim - eb->pos) < n, 0)) lz_ev__refill(eb, n);
  uint8_t *p = eb->pos;
  eb->pos = p + n;
  p = lz_ev_put16(p, type);
  return lz_ev_put64(p, lz_ev_stamp_in(eb, type));
}

/* Logging off: the buffer pointer is NULL. Each lz_ev_* function below is that one
 * test inline and, when the pointer is set, a call to the out-of-line poster: the off
 * path adds no register pressure or stack frame to the caller (the hint only places the
 * call out of line; the branch predictor learns either way), the on path costs one
 * more call next to the clock read. */
#define LZ_EV_OFF(eb) __builtin_expect((eb) == NULL, 1)

void lz_ev__post_tid(LzEvBuf *eb, uint16_t type, uint32_t tid);
void lz_ev__post_tid_cap(LzEvBuf *eb, uint16_t type, uint32_t tid, uint16_t cap);
void lz_ev__post_empty(LzEvBuf *eb, uint16_t type);
void lz_ev__post_cap(LzEvBuf *eb, uint16_t type, uint16_t cap);
void lz_ev__post_capset_u64(LzEvBuf *eb, uint16_t type, uint32_t capset, uint64_t v);
void lz_ev__post_stop(LzEvBuf *eb, uint32_t tid, uint16_t status, uint32_t blocked_on);

/* ---- events: one function each; `eb` is the capability's buffer (NULL: off) ------------- */

static inline void lz_ev__tid(LzEvBuf *eb, uint16_t type, uint32_t tid) {
  if (!LZ_EV_OFF(eb)) lz_ev__post_tid(eb, type, tid);
}
static inline void lz_ev__tid_cap(LzEvBuf *eb, uint16_t type, uint32_t tid, uint16_t cap) {
  if (!LZ_EV_OFF(eb)) lz_ev__post_tid_cap(eb, type, tid, cap);
}
static inline void lz_ev__empty(LzEvBuf *eb, uint16_t type) {
  if (!LZ_EV_OFF(eb)) lz_ev__post_empty(eb, type);
}
static inline void lz_ev__cap(LzEvBuf *eb, uint16_t type, uint16_t cap) {
  if (!LZ_EV_OFF(eb)) lz_ev__post_cap(eb, type, cap);
}
static inline void lz_ev__capset_u64(LzEvBuf *eb, uint16_t type, uint32_t capset, uint64_t v) {
  if (!LZ_EV_OFF(eb)) lz_ev__post_capset_u64(eb, type, capset, v);
}

/* threads (class s) */
static inline void lz_ev_create_thread(LzEvBuf *eb, uint32_t tid) {
  lz_ev__tid(eb, LZ_EVT_CREATE_THREAD, tid);
}
static inline void lz_ev_run_thread(LzEvBuf *eb, uint32_t tid) {
  lz_ev__tid(eb, LZ_EVT_RUN_THREAD, tid);
}
/* status: LZ_EV_STOP_*; blocked_on: the blackhole owner's id for
 * LZ_EV_STOP_BLOCKED_ON_BLACKHOLE, else 0. */
static inline void lz_ev_stop_thread(LzEvBuf *eb, uint32_t tid, uint16_t status,
                                     uint32_t blocked_on) {
  if (!LZ_EV_OFF(eb)) lz_ev__post_stop(eb, tid, status, blocked_on);
}
static inline void lz_ev_thread_runnable(LzEvBuf *eb, uint32_t tid) {
  lz_ev__tid(eb, LZ_EVT_THREAD_RUNNABLE, tid);
}
static inline void lz_ev_migrate_thread(LzEvBuf *eb, uint32_t tid, uint16_t new_cap) {
  lz_ev__tid_cap(eb, LZ_EVT_MIGRATE_THREAD, tid, new_cap);
}
/* Posted by the waking capability; other_cap is where the thread lives. */
static inline void lz_ev_thread_wakeup(LzEvBuf *eb, uint32_t tid, uint16_t other_cap) {
  lz_ev__tid_cap(eb, LZ_EVT_THREAD_WAKEUP, tid, other_cap);
}
static inline void lz_ev_create_spark_thread(LzEvBuf *eb, uint32_t tid) {
  lz_ev__tid(eb, LZ_EVT_CREATE_SPARK_THREAD, tid);
}
void lz_ev_thread_label(LzEvBuf *eb, uint32_t tid, const char *label);

/* sparks: counters (class p), one event per spark (class f) */
typedef struct LzEvSparkCounters {
  uint64_t created, dud, overflowed, converted, gcd, fizzled, remaining;
} LzEvSparkCounters;
void lz_ev_spark_counters(LzEvBuf *eb, const LzEvSparkCounters *c);
static inline void lz_ev_spark_create(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_SPARK_CREATE); }
static inline void lz_ev_spark_dud(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_SPARK_DUD); }
static inline void lz_ev_spark_overflow(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_SPARK_OVERFLOW); }
static inline void lz_ev_spark_run(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_SPARK_RUN); }
static inline void lz_ev_spark_steal(LzEvBuf *eb, uint16_t victim_cap) {
  lz_ev__cap(eb, LZ_EVT_SPARK_STEAL, victim_cap);
}
static inline void lz_ev_spark_fizzle(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_SPARK_FIZZLE); }
static inline void lz_ev_spark_gc(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_SPARK_GC); }

/* GC (class g) */
static inline void lz_ev_gc_start(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_GC_START); }
static inline void lz_ev_gc_end(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_GC_END); }
static inline void lz_ev_request_seq_gc(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_REQUEST_SEQ_GC); }
static inline void lz_ev_request_par_gc(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_REQUEST_PAR_GC); }
static inline void lz_ev_gc_idle(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_GC_IDLE); }
static inline void lz_ev_gc_work(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_GC_WORK); }
static inline void lz_ev_gc_done(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_GC_DONE); }
static inline void lz_ev_gc_global_sync(LzEvBuf *eb) { lz_ev__empty(eb, LZ_EVT_GC_GLOBAL_SYNC); }
/* Heap figures of the heap capset (LZ_EV_CAPSET_PROCESS), in bytes. */
static inline void lz_ev_heap_allocated(LzEvBuf *eb, uint64_t total_bytes) {
  lz_ev__capset_u64(eb, LZ_EVT_HEAP_ALLOCATED, LZ_EV_CAPSET_PROCESS, total_bytes);
}
static inline void lz_ev_heap_size(LzEvBuf *eb, uint64_t bytes) {
  lz_ev__capset_u64(eb, LZ_EVT_HEAP_SIZE, LZ_EV_CAPSET_PROCESS, bytes);
}
static inline void lz_ev_heap_live(LzEvBuf *eb, uint64_t bytes) {
  lz_ev__capset_u64(eb, LZ_EVT_HEAP_LIVE, LZ_EV_CAPSET_PROCESS, bytes);
}
void lz_ev_heap_info(LzEvBuf *eb, uint16_t generations, uint64_t max_heap, uint64_t alloc_area,
                     uint64_t mblock, uint64_t block);

/* capabilities and capability sets (open and close post the usual ones) */
static inline void lz_ev_cap_create(LzEvBuf *eb, uint16_t cap) {
  lz_ev__cap(eb, LZ_EVT_CAP_CREATE, cap);
}
static inline void lz_ev_cap_delete(LzEvBuf *eb, uint16_t cap) {
  lz_ev__cap(eb, LZ_EVT_CAP_DELETE, cap);
}
static inline void lz_ev_cap_disable(LzEvBuf *eb, uint16_t cap) {
  lz_ev__cap(eb, LZ_EVT_CAP_DISABLE, cap);
}
static inline void lz_ev_cap_enable(LzEvBuf *eb, uint16_t cap) {
  lz_ev__cap(eb, LZ_EVT_CAP_ENABLE, cap);
}
void lz_ev_capset_create(LzEvBuf *eb, uint32_t capset, uint16_t type);
void lz_ev_capset_assign_cap(LzEvBuf *eb, uint32_t capset, uint16_t cap);
void lz_ev_capset_remove_cap(LzEvBuf *eb, uint32_t capset, uint16_t cap);
void lz_ev_capset_delete(LzEvBuf *eb, uint32_t capset);

/* messages (class u for the user ones): UTF-8 text of n bytes (NUL not needed).
 * Invalid UTF-8 is replaced by '?', and text longer than a block allows (or 65535
 * bytes) is cut at a character boundary, so that readers never reject the log. */
void lz_ev_user_msg(LzEvBuf *eb, const char *text, size_t n);
void lz_ev_user_marker(LzEvBuf *eb, const char *text, size_t n);
void lz_ev_log_msg(LzEvBuf *eb, const char *text, size_t n);

/* Any declared type: checks that `type` is declared (eventlog_types.def or
 * LzEvOptions.types) and, for a fixed-size type, that len is its size; a variable-size
 * payload longer than a block allows is refused. The payload is copied as given (encode
 * numbers with lz_ev_put*). Returns 0, or -1 (nothing written) on a mismatch or when
 * eb is NULL. */
int lz_event_custom(LzEvBuf *eb, uint16_t type, const void *payload, size_t len);
/* Largest variable-size payload the open log accepts (depends on chunk_bytes). */
size_t lz_ev_max_var_payload(void);

#endif

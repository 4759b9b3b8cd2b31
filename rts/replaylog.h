/* replaylog.h — the replay log `prog.lzr`: the event log, zstd-compressed, behind a header
 * that says which binary, arguments, environment and RTS configuration it was recorded with.
 *
 * A .lzr file is a sequence of zstd frames. The first is a *skippable* frame (which
 * `zstd -d` passes over) holding the Lz header; every other frame is ordinary zstd data
 * whose decompressed bytes, concatenated, are the GHC-format event log the run wrote. So
 * `zstd -dc prog.lzr > prog.eventlog` gives a file ThreadScope and ghc-events read, and
 * the runtime reads the same file back for replay. The byte layout and the reasons are in
 * Note [Replay log] in docs/notes/replay-log.md.
 *
 * Writing: the replay writer is a *sink* of the event-log writer (eventlog.h,
 * LzEvOptions.sink). Every piece of the log the writer hands over (the header, then one
 * block at a time from the background writer thread, then the end marker) becomes one
 * complete zstd frame with a content checksum, written to the file at once: if the
 * program dies without closing the log, everything handed over is still readable.
 *
 *   LzReplayHeader h = {...};                 // lz_sha256_file("/proc/self/exe", h.exe_hash)
 *   LzReplayWriter *w = lz_replay_writer_open("prog.lzr", &h, 0, err, sizeof err);
 *   LzEvOptions o = {.sink = lz_replay_sink, .sink_ctx = w,
 *                    .types = lz_replay_event_types, .ntypes = LZ_REPLAY_N_EVENT_TYPES};
 *   lz_eventlog_open(NULL, ncaps, argc, argv, &o); ... lz_eventlog_close();
 *   lz_replay_writer_free(w, &stats);
 *
 * Reading: lz_replay_open checks the header (and the binary's hash), then
 * lz_replay_next_event returns the events one by one with the capability of their block,
 * or lz_replay_read returns the raw event-log bytes. Every problem — missing file, not a
 * replay log, truncated or corrupted data, an event the header does not declare — is an
 * error message with the byte offsets (in the file and in the event log); nothing
 * crashes. The runtime prints the message and exits with status 3.
 *
 * Nondeterministic input (stdin bytes, other IO results) is recorded as events of the
 * types below, posted where the runtime reads them, so replay meets them in order.
 */
#ifndef LZ_REPLAYLOG_H
#define LZ_REPLAYLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"

/* ---- SHA-256 (replaylog_sha256.c) ------------------------------------------------------ */

#define LZ_SHA256_BYTES 32
typedef struct LzSha256 {
  uint32_t h[8];
  uint64_t total;
  uint8_t block[64];
  size_t fill;
} LzSha256;
void lz_sha256_init(LzSha256 *s);
void lz_sha256_update(LzSha256 *s, const void *data, size_t n);
void lz_sha256_final(LzSha256 *s, uint8_t out[LZ_SHA256_BYTES]);
void lz_sha256(const void *data, size_t n, uint8_t out[LZ_SHA256_BYTES]);
/* Hash of a whole file (e.g. "/proc/self/exe"), what `sha256sum` prints. Returns 0, or -1
 * with a message "PATH: cannot open: ..." in err. */
int lz_sha256_file(const char *path, uint8_t out[LZ_SHA256_BYTES], char *err, size_t errlen);
/* What a replay log identifies the running executable by: its ELF build id (the linker's
 * hash of the linked bytes, read from memory), zero-padded; without one, the SHA-256 of
 * /proc/self/exe. Reading and hashing the file cost 4-7 ms at every start (-replay way). */
int lz_exe_identity(uint8_t out[LZ_SHA256_BYTES], char *err, size_t errlen);
/* The same for an executable file (lzprof checking a program against a log). */
int lz_exe_identity_file(const char *path, uint8_t out[LZ_SHA256_BYTES], char *err, size_t errlen);
/* 64 lower-case hex digits and a NUL. */
void lz_sha256_hex(const uint8_t hash[LZ_SHA256_BYTES], char hex[2 * LZ_SHA256_BYTES + 1]);

/* ---- the header ---------------------------------------------------------------------------- */

/* 3: the header's records compressed; 2: the replay events' encoding below; 1: plain */
#define LZ_REPLAY_VERSION     3
#define LZ_REPLAY_FRAME_MAGIC 0x184D2A5Cu /* zstd skippable frame, nibble C */

/* What a recording is tied to. String lists are `n` pointers to NUL-terminated strings.
 * In a header returned by the reader everything points into the reader's memory. */
typedef struct LzReplayHeader {
  uint8_t exe_hash[LZ_SHA256_BYTES]; /* the recorded executable's lz_exe_identity */
  uint32_t ncaps;                    /* number of capabilities (-N) */
  const char *exe_path;              /* where the executable was (for messages); may be NULL */
  int argc;                          /* the whole command line, as the event log's */
  char *const *argv;                 /* PROGRAM_ARGS: argv[0], arguments, +RTS options */
  int n_rts_opts;                    /* the RTS configuration in force, as flags */
  char *const *rts_opts;             /* (e.g. "-N4", "-A1m", "-lsgpu"), GHCRTS included */
  int n_env;                         /* the environment, "NAME=value" */
  char *const *env;
} LzReplayHeader;

/* ---- writing (replaylog_write.c) ------------------------------------------------------------ */

typedef struct LzReplayWriter LzReplayWriter;

/* Create `path` (truncating it) and write the header frame. level: zstd level, 0 for the
 * default (LZ_REPLAY_DEFAULT_LEVEL, and a stronger compressor for small pieces within a
 * CPU budget: Note [Small frames]). Returns NULL with a message in err if the file cannot
 * be created or written. */
#define LZ_REPLAY_DEFAULT_LEVEL 1
LzReplayWriter *lz_replay_writer_open(const char *path, const LzReplayHeader *h, int level,
                                      char *err, size_t errlen);
/* The LzEvSink: ctx is the writer. Each call compresses `bytes` into one zstd frame and
 * writes it; the final call (bytes == NULL) closes the file. Returns n (0 when the
 * final call succeeds); on failure the event-log writer reports "error writing the event
 * log" and lz_replay_writer_error says why. */
size_t lz_replay_sink(void *ctx, const void *bytes, size_t n);
/* Why the last write failed ("" if none). */
const char *lz_replay_writer_error(const LzReplayWriter *w);

typedef struct LzReplayWriteStats {
  uint64_t frames;     /* zstd frames written, the header frame included */
  uint64_t log_bytes;  /* event-log bytes compressed */
  uint64_t file_bytes; /* bytes in the file */
} LzReplayWriteStats;
/* Free the writer (closing the file if the sink's final call did not come, e.g. when
 * lz_eventlog_open was never called). stats may be NULL. */
void lz_replay_writer_free(LzReplayWriter *w, LzReplayWriteStats *stats);

/* ---- recorded input: event types and posting --------------------------------------------
 * Declared in the recording's event log by passing lz_replay_event_types in
 * LzEvOptions.types (numbers in Lz's range, Note [Event numbers] in eventlog.md).
 *   LZ_EVT_RPL_INPUT      u32 fd, then the bytes a read(fd) returned (stdin: fd 0); a read
 *                         of more than one event holds is split over consecutive events;
 *   LZ_EVT_RPL_IO_RESULT  u32 kind, then the bytes of a nondeterministic IO result
 *                         (kinds are the runtime's: clock, CPU time, ...). */
enum { LZ_EVT_RPL_INPUT = 1900, LZ_EVT_RPL_IO_RESULT = 1901 };
#define LZ_REPLAY_N_EVENT_TYPES 2
extern const LzEvType lz_replay_event_types[LZ_REPLAY_N_EVENT_TYPES];
/* Post the n bytes read from fd (any n, split as needed; n == 0 records an end of file). 0, or -1
 * if eb is NULL or the type is not declared in the open log. */
int lz_replay_post_input(LzEvBuf *eb, uint32_t fd, const void *bytes, size_t n);
/* Post one IO result (n <= lz_ev_max_var_payload() - 4). 0, or -1. */
int lz_replay_post_io_result(LzEvBuf *eb, uint32_t kind, const void *bytes, size_t n);

/* ---- the replay events and their encoding -------------------------------------------------
 * Event types of the -replay runtime (rts/replay.h says what each means). Format version 2
 * stores some of their fields as differences from earlier values of the same capability's
 * events, so that zstd finds them small and repeated: Note [Replay log encoding] in
 * docs/notes/replay-log.md. The reader decodes them (lz_replay_next_event returns the plain
 * values); the recorder encodes with the functions below, one LzRplCodec per capability,
 * in the order the capability posts its events.
 *   LZ_EVT_RPL_SLICE  tid u32, why u16, alloc u64: alloc as its difference from the
 *                     capability's previous RPL_SLICE alloc (the first: from 0);
 *   LZ_EVT_RPL_SPARK  id u64, kind u8, pool u16: id by lz_rpl_encode_diff48 (slots `spark`);
 *   LZ_EVT_RPL_CLAIM, _BLOCK, _WAKE, _WON, _JOIN  id u64: by lz_rpl_encode_diff48 (slots
 *                     `id`, shared by the five types). */
enum {
  LZ_EVT_RPL_SLICE = 1910,
  LZ_EVT_RPL_SPARK = 1911,
  LZ_EVT_RPL_CLAIM = 1912,
  LZ_EVT_RPL_BLOCK = 1913,
  LZ_EVT_RPL_YIELD = 1914,
  LZ_EVT_RPL_WAKE = 1915,
  LZ_EVT_RPL_WON = 1916,
  LZ_EVT_RPL_JOIN = 1917
};
#define LZ_RPL_SLICE_BYTES 14

/* Comparing a run's events with a recording's (the replay itself, `lzprof compare`):
 * collections, heap sizes and spark counters depend on when Boehm collects, not on where
 * the program is, so they are not compared; */
static inline bool lz_rpl_timing_dependent(uint16_t type) {
  return (type >= LZ_EVT_GC_START && type <= LZ_EVT_REQUEST_PAR_GC) ||
         (type >= LZ_EVT_GC_IDLE && type <= LZ_EVT_GC_DONE) ||
         (type >= LZ_EVT_HEAP_ALLOCATED && type <= LZ_EVT_HEAP_INFO_GHC) ||
         type == LZ_EVT_GC_GLOBAL_SYNC || type == LZ_EVT_SPARK_COUNTERS;
}
/* and the thread ids in these events' first word are renamed to the recording's. */
static inline bool lz_rpl_has_tid(uint16_t type) {
  return type == LZ_EVT_CREATE_THREAD || type == LZ_EVT_RUN_THREAD || type == LZ_EVT_STOP_THREAD ||
         type == LZ_EVT_THREAD_RUNNABLE || type == LZ_EVT_MIGRATE_THREAD ||
         type == LZ_EVT_THREAD_WAKEUP || type == LZ_EVT_CREATE_SPARK_THREAD ||
         type == LZ_EVT_THREAD_LABEL || type == LZ_EVT_RPL_SLICE;
}
#define LZ_RPL_SPARK_BYTES 11
#define LZ_RPL_CLAIM_BYTES 8
#define LZ_RPL_YIELD_BYTES 18

#define LZ_RPL_SLOTS 16 /* previous ids kept per capability, by their top 16 bits mod 16 */
#define LZ_RPL_LOW48 ((UINT64_C(1) << 48) - 1)
/* One capability's state (all zero to start). */
typedef struct LzRplCodec {
  uint64_t alloc;               /* the last RPL_SLICE's */
  uint64_t id[LZ_RPL_SLOTS];    /* the last thunk id of each slot */
  uint64_t spark[LZ_RPL_SLOTS]; /* the last spark id of each slot */
} LzRplCodec;

/* v's top 16 bits (a thunk or spark id's capability) as they are; its low 48 bits as the
 * zigzag of their difference (mod 2^48) from those of the previous value with the same top
 * bits (slot), so nearby ids of one capability give a few low bytes and leading zeros. */
static inline uint64_t lz_rpl_encode_diff48(uint64_t *slots, uint64_t v) {
  uint64_t *prev = &slots[(v >> 48) % LZ_RPL_SLOTS];
  int64_t d = (int64_t)((v - *prev) << 16) >> 16; /* the 48-bit difference, signed */
  *prev = v;
  return (v & ~LZ_RPL_LOW48) | (((uint64_t)d << 1 ^ (uint64_t)(d >> 63)) & LZ_RPL_LOW48);
}
static inline uint64_t lz_rpl_decode_diff48(uint64_t *slots, uint64_t e) {
  uint64_t *prev = &slots[(e >> 48) % LZ_RPL_SLOTS];
  uint64_t z = e & LZ_RPL_LOW48;
  uint64_t d = (z >> 1) ^ -(z & 1);
  *prev = (e & ~LZ_RPL_LOW48) | ((*prev + d) & LZ_RPL_LOW48);
  return *prev;
}
static inline uint64_t lz_rpl_encode_alloc(LzRplCodec *c, uint64_t alloc) {
  uint64_t d = alloc - c->alloc;
  c->alloc = alloc;
  return d;
}
/* Decode the payload of an event of this capability in place (the one decoder: the
 * reader, replaylog_events.c, calls it for every event it returns). */
void lz_rpl_decode(LzRplCodec *c, uint16_t type, uint8_t *payload, uint32_t len);

/* ---- reading (replaylog_read.c, replaylog_events.c) ------------------------------------- */

typedef struct LzReplayReader LzReplayReader;

/* Open a replay log and check its header. expect_hash: the SHA-256 of the binary that
 * wants to replay it (NULL: accept any, e.g. a profiler reading someone's log). Returns
 * NULL with a message in err: cannot open, not a replay log, truncated or corrupted
 * header, unknown format version, recorded by a different binary (both hashes named). */
LzReplayReader *lz_replay_open(const char *path, const uint8_t *expect_hash, char *err,
                               size_t errlen);
const LzReplayHeader *lz_replay_header(const LzReplayReader *r);
void lz_replay_close(LzReplayReader *r);

/* The last error's message (sticky: after an error every call fails the same way). */
const char *lz_replay_error(const LzReplayReader *r);

/* One event. Block markers are not returned: they give `cap`. */
typedef struct LzReplayEvent {
  uint16_t type;
  uint16_t cap;           /* capability of its block; LZ_EV_CAP_GLOBAL for global blocks */
  uint64_t time;          /* ns */
  const uint8_t *payload; /* valid until the next call; a variable-size event's payload */
  uint32_t len;           /*   starts after its u16 length */
  uint64_t index;         /* 0, 1, 2, ... in file order */
  uint64_t log_offset;    /* offset of its first byte in the event log */
  uint64_t file_offset;   /* offset in the .lzr of the zstd frame holding that byte */
} LzReplayEvent;

enum { LZ_REPLAY_ERROR = -1, LZ_REPLAY_END = 0, LZ_REPLAY_EVENT = 1 };
/* The next event: LZ_REPLAY_EVENT, LZ_REPLAY_END after the last one, or LZ_REPLAY_ERROR
 * (message in lz_replay_error). The first call reads the event log's header. */
int lz_replay_next_event(LzReplayReader *r, LzReplayEvent *ev);
/* After LZ_REPLAY_END: true if the log ended with EVENT_DATA_END (the run closed its log);
 * false if it stops earlier at a frame boundary (the recorded program was killed). */
bool lz_replay_complete(const LzReplayReader *r);
/* After the event log's header has been read (by the first lz_replay_next_event): the
 * declared payload size of `type` (LZ_EV_VAR for variable size), or -1 if undeclared,
 * and its description (NULL if undeclared). */
int lz_replay_type_size(const LzReplayReader *r, uint16_t type);
const char *lz_replay_type_desc(const LzReplayReader *r, uint16_t type);

/* The raw event-log bytes instead of events (do not mix the two on one reader): up to n
 * bytes into buf; returns the count, 0 at the end, -1 on an error. */
long lz_replay_read(LzReplayReader *r, void *buf, size_t n);

#endif

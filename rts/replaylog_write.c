/* replaylog_write.c — writing a replay log: the header frame, then the event log as zstd
 * frames, from the event-log writer's sink.
 *
 * lz_replay_writer_open writes the Lz header in a zstd skippable frame. The event-log
 * writer (eventlog_writer.c) then calls lz_replay_sink with its bytes: the log's header
 * from the opening thread, each finished block from its background writer thread, the
 * end marker from the closing thread — one thread at a time, so the writer needs no lock.
 * Each call becomes one complete zstd frame (level 1 by default, with a content checksum
 * and the content size) written straight to the file descriptor: a block is about 256 KiB,
 * large enough to compress well alone, and a program killed at any moment leaves a file
 * whose every frame is whole, short of the one being written. Recorded input (stdin bytes,
 * IO results) is posted as events with the helpers at the end. Note [Replay log] in
 * docs/notes/replay-log.md has the byte layout and the measurements behind the choices.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "replaylog_priv.h"

struct LzReplayWriter {
  int fd;
  ZSTD_CCtx *cctx;
  ZSTD_CCtx *small; /* frames of small pieces (NULL: level given): Note [Small frames] */
  uint64_t small_bytes;
  struct timespec start;
  uint8_t *out;
  size_t out_cap;
  LzReplayWriteStats stats;
  char err[256];
};

static bool write_all(LzReplayWriter *w, const uint8_t *p, size_t n) {
  while (n > 0) {
    ssize_t k = write(w->fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      snprintf(w->err, sizeof w->err, "cannot write the replay log: %s",
               k < 0 ? strerror(errno) : "no progress");
      return false;
    }
    p += k;
    n -= (size_t)k;
    w->stats.file_bytes += (uint64_t)k;
  }
  return true;
}

/* ---- the header ------------------------------------------------------------------------ */

typedef struct HdrBuf {
  uint8_t *p;
  size_t n, cap;
  bool oom;
} HdrBuf;

static uint8_t *hdr_room(HdrBuf *b, size_t k) {
  if (b->oom) return NULL;
  if (b->n + k > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap < b->n + k)
      cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      return NULL;
    }
    b->p = q;
    b->cap = cap;
  }
  uint8_t *r = b->p + b->n;
  b->n += k;
  return r;
}

/* A record: tag, length, the strings each followed by NUL (nul_ended) or one string. */
static void hdr_record(HdrBuf *b, uint16_t tag, int n, char *const *v, bool nul_ended) {
  size_t len = 0;
  for (int i = 0; i < n; i++)
    len += strlen(v[i]) + (nul_ended ? 1 : 0);
  uint8_t *p = hdr_room(b, 6 + len);
  if (!p) return;
  rpl_put16le(p, tag);
  rpl_put32le(p + 2, (uint32_t)len);
  p += 6;
  for (int i = 0; i < n; i++) {
    size_t k = strlen(v[i]) + (nul_ended ? 1 : 0);
    memcpy(p, v[i], k);
    p += k;
  }
}

/* Replace the records (b->p[8 + RPL_FIXED_BYTES ...]) by one zstd frame holding them
 * (format version 3): mostly the environment, 1-2 kB that compress to about half (level 5:
 * 0.03 ms; higher levels cost more and gain nothing at this size); no checksum, the header's check
 * value covers these bytes. */
static int compress_records(HdrBuf *b) {
  size_t off = 8 + RPL_FIXED_BYTES, n = b->n - off;
  size_t bound = ZSTD_compressBound(n);
  uint8_t *z = malloc(bound);
  if (!z) return -1;
  size_t k = ZSTD_compress(z, bound, b->p + off, n, RPL_RECORDS_LVL);
  if (ZSTD_isError(k)) {
    free(z);
    return -1;
  }
  b->n = off;
  uint8_t *p = hdr_room(b, k);
  if (p) memcpy(p, z, k);
  free(z);
  return p ? 0 : -1;
}

/* The skippable frame: magic, size, then the Lz header. */
static HdrBuf encode_header(const LzReplayHeader *h) {
  HdrBuf b = {0};
  uint8_t *p = hdr_room(&b, 8 + RPL_FIXED_BYTES);
  if (!p) return b;
  memset(p, 0, 8 + RPL_FIXED_BYTES);
  uint8_t *hd = p + 8;
  memcpy(hd, RPL_MAGIC, 8);
  rpl_put16le(hd + RPL_OFF_VERSION, LZ_REPLAY_VERSION);
  memcpy(hd + RPL_OFF_HASH, h->exe_hash, LZ_SHA256_BYTES);
  rpl_put32le(hd + RPL_OFF_NCAPS, h->ncaps);
  if (h->exe_path) {
    char *const path[1] = {(char *)h->exe_path};
    hdr_record(&b, RPL_TAG_EXE_PATH, 1, path, false);
  }
  hdr_record(&b, RPL_TAG_ARGS, h->argv ? h->argc : 0, h->argv, true);
  hdr_record(&b, RPL_TAG_RTS_OPTS, h->rts_opts ? h->n_rts_opts : 0, h->rts_opts, true);
  hdr_record(&b, RPL_TAG_ENV, h->env ? h->n_env : 0, h->env, true);
  if (b.oom || b.n - 8 > RPL_MAX_HEADER || compress_records(&b) != 0) {
    b.oom = true;
    return b;
  }
  hd = b.p + 8;
  rpl_put32le(b.p, LZ_REPLAY_FRAME_MAGIC);
  rpl_put32le(b.p + 4, (uint32_t)(b.n - 8));
  rpl_put32le(hd + RPL_OFF_CHECK, rpl_header_check(hd, b.n - 8));
  return b;
}

/* ---- the writer ------------------------------------------------------------------------- */

/* Note [Small frames] (docs/notes/replay-log.md): a piece smaller than a full block (the
 * log's header, an idle capability's flush, the last blocks at exit) is all a sparse
 * program's log has, and zstd's level 1 leaves much of it; these go through a slower
 * compressor (optimal parsing, small tables: about 12 MB/s against 300 here, 7-14 %
 * smaller), within a budget of CPU time: SMALL_FREE bytes, plus SMALL_PER_SEC for each
 * second since the log was opened (at most about 0.5 % of one CPU, plus 0.7 ms). */
#define SMALL_MAX     ((size_t)64 << 10)
#define SMALL_FREE    ((uint64_t)8 << 10)
#define SMALL_PER_SEC ((uint64_t)64 << 10)

static ZSTD_CCtx *small_cctx(void) {
  ZSTD_CCtx *c = ZSTD_createCCtx();
  if (!c || ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_strategy, ZSTD_btopt)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, 17)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_chainLog, 14)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_hashLog, 14)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_searchLog, 2)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_targetLength, 32)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1))) {
    ZSTD_freeCCtx(c);
    return NULL;
  }
  return c;
}

/* The context for a piece of n bytes. */
static ZSTD_CCtx *pick_cctx(LzReplayWriter *w, size_t n) {
  if (!w->small || n > SMALL_MAX) return w->cctx;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  double secs = (double)(now.tv_sec - w->start.tv_sec) + (now.tv_nsec - w->start.tv_nsec) * 1e-9;
  if (w->small_bytes + n > SMALL_FREE + (uint64_t)(secs * (double)SMALL_PER_SEC)) return w->cctx;
  w->small_bytes += n;
  return w->small;
}

LzReplayWriter *lz_replay_writer_open(const char *path, const LzReplayHeader *h, int level,
                                      char *err, size_t errlen) {
  LzReplayWriter *w = calloc(1, sizeof *w);
  if (!w) {
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  w->fd = -1;
  HdrBuf hb = encode_header(h);
  w->cctx = ZSTD_createCCtx();
  if (hb.oom || !w->cctx ||
      ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
                                          level ? level : LZ_REPLAY_DEFAULT_LEVEL)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1))) {
    snprintf(err, errlen, "%s: cannot set up the replay log (out of memory or bad level %d)", path,
             level);
    goto fail;
  }
  if (!level && !(w->small = small_cctx())) {
    snprintf(err, errlen, "%s: cannot set up the replay log: out of memory", path);
    goto fail;
  }
  clock_gettime(CLOCK_MONOTONIC, &w->start);
  w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (w->fd < 0) {
    snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
    goto fail;
  }
  if (!write_all(w, hb.p, hb.n)) {
    snprintf(err, errlen, "%s: %s", path, w->err);
    goto fail;
  }
  w->stats.frames = 1;
  free(hb.p);
  return w;
fail:
  free(hb.p);
  lz_replay_writer_free(w, NULL);
  return NULL;
}

size_t lz_replay_sink(void *ctx, const void *bytes, size_t n) {
  LzReplayWriter *w = ctx;
  if (!bytes) {
    int fd = w->fd;
    w->fd = -1;
    if (fd >= 0 && close(fd) != 0) {
      snprintf(w->err, sizeof w->err, "cannot close the replay log: %s", strerror(errno));
      return 1;
    }
    return 0;
  }
  if (w->fd < 0) return 0;
  size_t bound = ZSTD_compressBound(n);
  if (bound > w->out_cap) {
    uint8_t *q = realloc(w->out, bound);
    if (!q) {
      snprintf(w->err, sizeof w->err, "out of memory compressing the replay log");
      return 0;
    }
    w->out = q;
    w->out_cap = bound;
  }
  size_t k = ZSTD_compress2(pick_cctx(w, n), w->out, w->out_cap, bytes, n);
  if (ZSTD_isError(k)) {
    snprintf(w->err, sizeof w->err, "zstd: %s", ZSTD_getErrorName(k));
    return 0;
  }
  if (!write_all(w, w->out, k)) return 0;
  w->stats.frames++;
  w->stats.log_bytes += n;
  return n;
}

const char *lz_replay_writer_error(const LzReplayWriter *w) { return w->err; }

void lz_replay_writer_free(LzReplayWriter *w, LzReplayWriteStats *stats) {
  if (!w) return;
  if (stats) *stats = w->stats;
  if (w->fd >= 0) close(w->fd);
  ZSTD_freeCCtx(w->cctx);
  ZSTD_freeCCtx(w->small);
  free(w->out);
  free(w);
}

/* ---- recorded input ------------------------------------------------------------------- */

const LzEvType lz_replay_event_types[LZ_REPLAY_N_EVENT_TYPES] = {
    {LZ_EVT_RPL_INPUT, LZ_EV_VAR, "Lz: input bytes"},
    {LZ_EVT_RPL_IO_RESULT, LZ_EV_VAR, "Lz: IO result"},
};

#define POST_PIECE 4096 /* payload bytes per event at most: a small stack buffer */

static int post_tagged(LzEvBuf *eb, uint16_t type, uint32_t tag, const void *bytes, size_t n) {
  uint8_t buf[POST_PIECE];
  lz_ev_put32(buf, tag);
  if (n) memcpy(buf + 4, bytes, n);
  return lz_event_custom(eb, type, buf, 4 + n);
}

int lz_replay_post_input(LzEvBuf *eb, uint32_t fd, const void *bytes, size_t n) {
  if (!eb) return -1;
  size_t piece = lz_ev_max_var_payload();
  piece = (piece < POST_PIECE ? piece : POST_PIECE) - 4;
  const uint8_t *p = bytes;
  do {
    size_t k = n < piece ? n : piece;
    if (post_tagged(eb, LZ_EVT_RPL_INPUT, fd, p, k) != 0) return -1;
    p += k;
    n -= k;
  } while (n > 0);
  return 0;
}

int lz_replay_post_io_result(LzEvBuf *eb, uint32_t kind, const void *bytes, size_t n) {
  if (!eb) return -1;
  if (n + 4 <= POST_PIECE) return post_tagged(eb, LZ_EVT_RPL_IO_RESULT, kind, bytes, n);
  uint8_t *buf = malloc(4 + n);
  if (!buf) return -1;
  lz_ev_put32(buf, kind);
  memcpy(buf + 4, bytes, n);
  int r = lz_event_custom(eb, LZ_EVT_RPL_IO_RESULT, buf, 4 + n);
  free(buf);
  return r;
}

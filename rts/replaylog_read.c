/* replaylog_read.c — reading a replay log: the header, then the event log's bytes, frame
 * by frame.
 *
 * lz_replay_open reads the skippable frame at the start and checks everything in it in
 * an order that gives the most telling message first: is it a replay log at all (or a
 * plain event log, or some other zstd file), is it whole, is it a version we read, does
 * its check value match, and was it recorded by the binary that asks. The event log's
 * bytes then come from the zstd frames that follow. A frame's bytes are handed on only
 * once the whole frame has been decoded and its content checksum verified, so replay
 * never acts on corrupted events; frames are one event-log block each (about 256 KiB), so
 * this costs one block of memory. The buffer keeps, for the frames whose bytes it holds,
 * where each began in the file, so every error names the offset in the event log and in
 * the file. The event parser on top of these bytes is replaylog_events.c. Note [Replay
 * log] in docs/notes/replay-log.md.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "replaylog_priv.h"

#define IN_BYTES        ((size_t)1 << 16)
#define MAX_FRAME_BYTES ((size_t)1 << 30) /* decompressed; Lz writes blocks of <= 1 GiB */

static int fail(LzReplayReader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(LzReplayReader *r, const char *fmt, ...) {
  if (r->state == RPL_ST_FAILED) return -1; /* keep the first message */
  int k = snprintf(r->err, sizeof r->err, "%s: ", r->path);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + k, sizeof r->err - (size_t)k, fmt, ap);
  va_end(ap);
  r->state = RPL_ST_FAILED;
  return -1;
}

uint64_t rpl_frame_of(const LzReplayReader *r, uint64_t log_off) {
  uint64_t f = r->frame_file_off;
  for (size_t i = 0; i < r->nframes && r->frames[i].log_off <= log_off; i++)
    f = r->frames[i].file_off;
  return f;
}

int rpl_fail_at(LzReplayReader *r, uint64_t log_off, const char *fmt, ...) {
  if (r->state == RPL_ST_FAILED) return -1;
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return fail(r, "%s (event log byte %llu, zstd frame at file byte %llu)", msg,
              (unsigned long long)log_off, (unsigned long long)rpl_frame_of(r, log_off));
}

/* ---- the header --------------------------------------------------------------------------- */

/* The first bytes do not start a replay log: say what the file seems to be. */
static void not_a_replay_log(LzReplayReader *r, const uint8_t *b, size_t n) {
  if (n >= 4 && memcmp(b, "hdrb", 4) == 0)
    fail(r, "not a replay log: this is a plain event log (a replay log is made by +RTS "
            "--record)");
  else if (n >= 4 && rpl_get_le(b, 4) == 0xFD2FB528u)
    fail(r, "not a replay log: a zstd-compressed file without the replay log's header");
  else if (n == 0)
    fail(r, "not a replay log: the file is empty");
  else
    fail(r, "not a replay log: it does not start with the replay log's magic number");
}

/* Split a record of NUL-ended strings into r->hdr_strings[*next...]. */
static int split_strings(LzReplayReader *r, uint8_t *p, uint32_t len, int *count, char *const **out,
                         size_t *next) {
  if (len > 0 && p[len - 1] != 0)
    return fail(r, "corrupted header: a string list does not end with NUL");
  *out = r->hdr_strings + *next;
  *count = 0;
  for (uint32_t i = 0; i < len; i += (uint32_t)strlen((char *)p + i) + 1) {
    r->hdr_strings[(*next)++] = (char *)p + i;
    ++*count;
  }
  return 0;
}

static int parse_records(LzReplayReader *r, uint8_t *h, uint32_t n) {
  size_t nstr = 0; /* NULs bound the number of strings */
  for (uint32_t i = RPL_FIXED_BYTES; i < n; i++)
    nstr += h[i] == 0;
  r->hdr_strings = calloc(nstr + 1, sizeof(char *));
  if (!r->hdr_strings) return fail(r, "out of memory");
  size_t next = 0;
  for (uint32_t off = RPL_FIXED_BYTES; off < n;) {
    if (n - off < 6)
      return fail(r, "corrupted header: a record at header byte %u is cut short", off);
    uint16_t tag = (uint16_t)rpl_get_le(h + off, 2);
    uint32_t len = rpl_get_le(h + off + 2, 4);
    if (len > n - off - 6)
      return fail(r, "corrupted header: a record at header byte %u runs past its end", off);
    uint8_t *p = h + off + 6;
    int err = 0;
    switch (tag) {
    case RPL_TAG_EXE_PATH: {
      /* stored without NUL: move it one byte back, over the length field (already read) */
      char *path = (char *)p - 1;
      memmove(path, p, len);
      path[len] = 0;
      r->hdr.exe_path = path;
      break;
    }
    case RPL_TAG_ARGS: err = split_strings(r, p, len, &r->hdr.argc, &r->hdr.argv, &next); break;
    case RPL_TAG_RTS_OPTS:
      err = split_strings(r, p, len, &r->hdr.n_rts_opts, &r->hdr.rts_opts, &next);
      break;
    case RPL_TAG_ENV: err = split_strings(r, p, len, &r->hdr.n_env, &r->hdr.env, &next); break;
    default: break; /* a later minor addition: skipped */
    }
    if (err) return -1;
    off += 6 + len;
  }
  return 0;
}

/* The records are one zstd frame after the fixed part (version 3): replace r->hdr_bytes
 * (n bytes) by the fixed part and the decompressed records (*plain_n bytes in all). */
static int decompress_records(LzReplayReader *r, uint32_t n, uint32_t *plain_n) {
  const uint8_t *z = r->hdr_bytes + RPL_FIXED_BYTES;
  size_t zn = n - RPL_FIXED_BYTES;
  unsigned long long k = zn ? ZSTD_getFrameContentSize(z, zn) : 0;
  if (k == ZSTD_CONTENTSIZE_ERROR || k == ZSTD_CONTENTSIZE_UNKNOWN ||
      k > RPL_MAX_HEADER - RPL_FIXED_BYTES)
    return fail(r, "corrupted header: its records are not a zstd frame of at most %u bytes",
                RPL_MAX_HEADER);
  uint8_t *h = malloc(RPL_FIXED_BYTES + k + 1);
  if (!h) return fail(r, "out of memory");
  memcpy(h, r->hdr_bytes, RPL_FIXED_BYTES);
  size_t got = ZSTD_decompress(h + RPL_FIXED_BYTES, k + 1, z, zn);
  free(r->hdr_bytes);
  r->hdr_bytes = h;
  if (ZSTD_isError(got) || got != k)
    return fail(r, "corrupted header: its records do not decompress (%s)",
                ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
  *plain_n = (uint32_t)(RPL_FIXED_BYTES + k);
  return 0;
}

static int read_header(LzReplayReader *r, const uint8_t *expect_hash) {
  uint8_t pre[8];
  size_t got = fread(pre, 1, 8, r->f);
  if (got < 8 && ferror(r->f)) return fail(r, "cannot read: %s", strerror(errno));
  uint8_t magic[4];
  rpl_put32le(magic, LZ_REPLAY_FRAME_MAGIC);
  if (memcmp(pre, magic, got < 4 ? got : 4) != 0 || got == 0) {
    not_a_replay_log(r, pre, got);
    return -1;
  }
  if (got < 8) return fail(r, "truncated header: the file ends at byte %zu", got);
  uint32_t n = rpl_get_le(pre + 4, 4);
  if (n < RPL_FIXED_BYTES || n > RPL_MAX_HEADER)
    return fail(r, "corrupted header: impossible header size %u", n);
  r->hdr_bytes = malloc(n);
  if (!r->hdr_bytes) return fail(r, "out of memory");
  uint8_t *h = r->hdr_bytes;
  got = fread(h, 1, n, r->f);
  if (got < 8 && memcmp(h, RPL_MAGIC, got) != 0)
    return fail(r, "not a replay log: a zstd skippable frame that is not Lz's header");
  if (got < n) {
    if (ferror(r->f)) return fail(r, "cannot read: %s", strerror(errno));
    return fail(r, "truncated header: it needs %llu bytes, the file ends at byte %llu",
                (unsigned long long)n + 8, (unsigned long long)got + 8);
  }
  if (memcmp(h, RPL_MAGIC, 8) != 0)
    return fail(r, "not a replay log: a zstd skippable frame that is not Lz's header");
  uint16_t version = (uint16_t)rpl_get_le(h + RPL_OFF_VERSION, 2);
  if (version != LZ_REPLAY_VERSION) /* the check value does not cover the version */
    return fail(r, "replay log format version %u (bytes %d-%d); this runtime reads version %d (%s)",
                version, 8 + RPL_OFF_VERSION, 9 + RPL_OFF_VERSION, LZ_REPLAY_VERSION,
                version < LZ_REPLAY_VERSION ? "recorded by an older runtime: record it again"
                                            : "recorded by a newer runtime, or damaged");
  if (rpl_get_le(h + RPL_OFF_CHECK, 4) != rpl_header_check(h, n))
    return fail(r, "corrupted header: its check value does not match its contents");
  memcpy(r->hdr.exe_hash, h + RPL_OFF_HASH, LZ_SHA256_BYTES);
  r->hdr.ncaps = rpl_get_le(h + RPL_OFF_NCAPS, 4);
  uint32_t plain_n = 0;
  if (decompress_records(r, n, &plain_n) != 0) return -1;
  if (parse_records(r, r->hdr_bytes, plain_n) != 0) return -1;
  if (expect_hash && memcmp(expect_hash, r->hdr.exe_hash, LZ_SHA256_BYTES) != 0) {
    char mine[2 * LZ_SHA256_BYTES + 1], theirs[2 * LZ_SHA256_BYTES + 1];
    lz_sha256_hex(r->hdr.exe_hash, theirs);
    lz_sha256_hex(expect_hash, mine);
    return fail(r,
                "recorded by a different binary: the log's executable%s%s has identity "
                "(build id or SHA-256) %s, this one has %s",
                r->hdr.exe_path ? " " : "", r->hdr.exe_path ? r->hdr.exe_path : "", theirs, mine);
  }
  r->in_file_off = r->frame_file_off = 8 + (uint64_t)n;
  return 0;
}

LzReplayReader *lz_replay_open(const char *path, const uint8_t *expect_hash, char *err,
                               size_t errlen) {
  LzReplayReader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path))) {
    free(r);
    snprintf(err, errlen, "%s: out of memory", path);
    return NULL;
  }
  r->state = RPL_ST_HEADER;
  r->f = fopen(path, "rb");
  if (!r->f)
    fail(r, "cannot open: %s", strerror(errno));
  else if (read_header(r, expect_hash) == 0) {
    r->dctx = ZSTD_createDCtx();
    r->in = malloc(IN_BYTES);
    if (r->dctx && r->in) return r;
    fail(r, "out of memory");
  }
  snprintf(err, errlen, "%s", r->err);
  lz_replay_close(r);
  return NULL;
}

const LzReplayHeader *lz_replay_header(const LzReplayReader *r) { return &r->hdr; }
const char *lz_replay_error(const LzReplayReader *r) { return r->err; }

void lz_replay_close(LzReplayReader *r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  ZSTD_freeDCtx(r->dctx);
  rpl_free_types(r);
  free(r->codecs);
  free(r->in);
  free(r->buf);
  free(r->frames);
  free(r->hdr_strings);
  free(r->hdr_bytes);
  free(r->path);
  free(r);
}

/* ---- frames ------------------------------------------------------------------------------ */

/* More compressed input; false at the end of the file or on a read error (failed). */
static bool refill(LzReplayReader *r) {
  if (r->in_eof) return false;
  r->in_file_off += r->in_len;
  r->in_pos = r->in_len = 0;
  r->in_len = fread(r->in, 1, IN_BYTES, r->f);
  if (r->in_len == 0) {
    if (ferror(r->f)) fail(r, "cannot read: %s", strerror(errno));
    r->in_eof = true;
    return false;
  }
  return true;
}

/* Drop consumed bytes (and the starts of frames entirely consumed). */
static void compact(LzReplayReader *r) {
  if (r->pos == 0) return;
  memmove(r->buf, r->buf + r->pos, r->len - r->pos);
  r->buf_log_off += r->pos;
  r->len -= r->pos;
  r->pos = 0;
  size_t keep = 0;
  while (keep + 1 < r->nframes && r->frames[keep + 1].log_off <= r->buf_log_off)
    keep++;
  memmove(r->frames, r->frames + keep, (r->nframes - keep) * sizeof *r->frames);
  r->nframes -= keep;
}

static bool note_frame(LzReplayReader *r) {
  if (r->nframes == r->frames_cap) {
    size_t cap = r->frames_cap ? 2 * r->frames_cap : 8;
    RplFrameStart *f = realloc(r->frames, cap * sizeof *f);
    if (!f) return false;
    r->frames = f;
    r->frames_cap = cap;
  }
  r->frames[r->nframes++] = (RplFrameStart){r->buf_log_off + r->len, r->frame_file_off};
  return true;
}

/* Decode the next frame whole into buf. 1: done; 0: no more frames; -1: error. */
static int decode_frame(LzReplayReader *r) {
  compact(r);
  if (r->in_pos == r->in_len && !refill(r)) return r->state == RPL_ST_FAILED ? -1 : 0;
  r->frame_file_off = r->in_file_off + r->in_pos;
  if (!note_frame(r)) return fail(r, "out of memory");
  size_t start = r->len;
  size_t room = ZSTD_DStreamOutSize();
  for (;;) {
    if (r->cap - r->len < room) {
      if (r->len - start > MAX_FRAME_BYTES)
        return rpl_fail_at(r, r->buf_log_off + start,
                           "a zstd frame decompresses to more than %zu bytes", MAX_FRAME_BYTES);
      size_t cap = r->cap ? 2 * r->cap : 4 * room;
      uint8_t *b = realloc(r->buf, cap);
      if (!b) return fail(r, "out of memory");
      r->buf = b;
      r->cap = cap;
    }
    if (r->in_pos == r->in_len && !refill(r)) {
      if (r->state == RPL_ST_FAILED) return -1;
      return fail(r,
                  "truncated: the zstd frame at file byte %llu is cut off at the end of the "
                  "file (byte %llu)",
                  (unsigned long long)r->frame_file_off, (unsigned long long)r->in_file_off);
    }
    ZSTD_inBuffer ib = {r->in, r->in_len, r->in_pos};
    ZSTD_outBuffer ob = {r->buf, r->cap, r->len};
    size_t ret = ZSTD_decompressStream(r->dctx, &ob, &ib);
    r->in_pos = ib.pos;
    r->len = ob.pos;
    if (ZSTD_isError(ret))
      return fail(r,
                  "corrupted zstd data in the frame at file byte %llu (%s; read up to file "
                  "byte %llu)",
                  (unsigned long long)r->frame_file_off, ZSTD_getErrorName(ret),
                  (unsigned long long)(r->in_file_off + r->in_pos));
    if (ret == 0) return 1;
  }
}

int rpl_need(LzReplayReader *r, size_t k) {
  while (r->len - r->pos < k) {
    if (r->stream_end) return 0;
    int d = decode_frame(r);
    if (d < 0) return -1;
    if (d == 0) r->stream_end = true;
  }
  return 1;
}

long lz_replay_read(LzReplayReader *r, void *buf, size_t n) {
  if (r->state == RPL_ST_FAILED) return -1;
  if (r->state != RPL_ST_HEADER && r->state != RPL_ST_RAW)
    return fail(r, "internal error: lz_replay_read after lz_replay_next_event");
  r->state = RPL_ST_RAW;
  int k = rpl_need(r, 1);
  if (k <= 0) return k;
  size_t avail = r->len - r->pos;
  if (n > avail) n = avail;
  if (n > (size_t)1 << 30) n = (size_t)1 << 30;
  memcpy(buf, r->buf + r->pos, n);
  r->pos += n;
  return (long)n;
}

/* replaylog_priv.h — between the parts of the replay log: the header's byte layout
 * (written by replaylog_write.c, read by replaylog_read.c) and the reader's state (the
 * container and byte stream in replaylog_read.c, the event parser in replaylog_events.c).
 * Nothing else includes this header. Layout: Note [Replay log] in docs/notes/replay-log.md.
 */
#ifndef LZ_REPLAYLOG_PRIV_H
#define LZ_REPLAYLOG_PRIV_H

#include <stdio.h>
#include <zstd.h>

#include "replaylog.h"

/* The Lz header, inside the skippable frame (offsets from its first byte). */
#define RPL_MAGIC       "LZRPLAY" /* 8 bytes with its NUL */
#define RPL_OFF_VERSION 8         /* u16le */
#define RPL_OFF_FLAGS   10        /* u16le, 0 */
#define RPL_OFF_CHECK   12        /* u32le: SHA-256 of bytes [16, end), first 4 bytes, LE */
#define RPL_OFF_HASH    16        /* 32 bytes */
#define RPL_OFF_NCAPS   48        /* u32le */
#define RPL_FIXED_BYTES 52        /* then the records (tag u16le, len u32le, bytes) */
#define RPL_RECORDS_LVL 5         /*   as one zstd frame of this level (version 3) */
#define RPL_MAX_HEADER  ((uint32_t)64 << 20)
enum { RPL_TAG_EXE_PATH = 1, RPL_TAG_ARGS = 2, RPL_TAG_RTS_OPTS = 3, RPL_TAG_ENV = 4 };

static inline void rpl_put16le(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static inline void rpl_put32le(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> 8 * i);
}
static inline uint32_t rpl_get_le(const uint8_t *p, int n) {
  uint32_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}
static inline uint64_t rpl_get_be(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}
/* The header's check value over its bytes [16, n). */
static inline uint32_t rpl_header_check(const uint8_t *hdr, size_t n) {
  uint8_t h[LZ_SHA256_BYTES];
  lz_sha256(hdr + RPL_OFF_HASH, n - RPL_OFF_HASH, h);
  return rpl_get_le(h, 4);
}

/* Where each zstd frame whose bytes are in the buffer starts: log offset -> file offset. */
typedef struct RplFrameStart {
  uint64_t log_off, file_off;
} RplFrameStart;

typedef struct RplTypeDecl {
  uint16_t num;
  char *desc;
} RplTypeDecl;

enum { RPL_ST_HEADER, RPL_ST_DATA, RPL_ST_END, RPL_ST_FAILED, RPL_ST_RAW };

struct LzReplayReader {
  char *path;
  FILE *f;
  char err[512];
  int state;

  /* the Lz header */
  uint8_t *hdr_bytes;
  char **hdr_strings;
  LzReplayHeader hdr;

  /* compressed input: in[in_pos, in_len) unread; in[0] is at file offset in_file_off */
  ZSTD_DCtx *dctx;
  uint8_t *in;
  size_t in_pos, in_len;
  uint64_t in_file_off;
  bool in_eof;
  uint64_t frame_file_off; /* where the frame being decoded (or the next one) starts */

  /* decompressed bytes: buf[pos, len) not consumed yet; buf[0] is at log offset buf_log_off */
  uint8_t *buf;
  size_t pos, len, cap;
  uint64_t buf_log_off;
  bool stream_end; /* no more frames */
  RplFrameStart *frames;
  size_t nframes, frames_cap;

  /* the event parser */
  int32_t *type_size; /* 65536 entries once the log's header is read: payload bytes,
                         LZ_EV_VAR, or -1 (undeclared) */
  RplTypeDecl *decls; /* the declared types' descriptions */
  size_t ndecls, decls_cap;
  bool in_block;
  uint64_t block_end; /* log offset */
  uint16_t block_cap;
  uint64_t nevents;
  bool complete;
  LzRplCodec *codecs; /* per capability: decoding the replay events (lz_rpl_decode) */
  size_t ncodecs;
  uint8_t decoded[16]; /* the payload of the last event returned, when decoded */
};

/* replaylog_read.c: make sure at least k unconsumed bytes are in buf (decoding frames as
 * needed). 1: yes; 0: the log ends before (r->len - r->pos bytes left); -1: error (set). */
int rpl_need(LzReplayReader *r, size_t k);
/* Offset in the file of the frame holding log offset `log_off` (in the buffer). */
uint64_t rpl_frame_of(const LzReplayReader *r, uint64_t log_off);
/* Fail with "PATH: <msg> (event log byte L, zstd frame at file byte F)". */
int rpl_fail_at(LzReplayReader *r, uint64_t log_off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* replaylog_events.c */
void rpl_free_types(LzReplayReader *r);

#endif

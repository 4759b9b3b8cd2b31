/* replaylog_events.c — the events of a replay log: GHC's event-log format, parsed strictly.
 *
 * On top of the byte stream of replaylog_read.c: first the log's header (the list of event
 * types with their payload sizes: "hdrb" "hetb", per type "etb\0" num size desc_len desc
 * extra_len extra "ete\0", then "hete" "hdre" "datb"), then the events (type u16, time u64,
 * a u16 length for variable-size types, payload; all big-endian) in blocks opened by
 * BLOCK_MARKER events, until EVENT_DATA_END (0xffff). Each event is returned with the
 * capability of its block. The parser is strict where a damaged log would otherwise be
 * misread: an undeclared type, an event outside a block or running past its block's end,
 * a marker inside a block, bytes after the end marker, and a log that stops in the middle
 * of an event or a block are errors with the event log's and the file's offsets. A log
 * that stops at a block boundary without the end marker (a recorded program that was
 * killed) is not an error: lz_replay_complete says so. Note [Replay log] in
 * docs/notes/replay-log.md.
 */
#include <stdlib.h>
#include <string.h>

#include "replaylog_priv.h"

#define HEADER_BEGIN      0x68647262u /* "hdrb" */
#define HEADER_END        0x68647265u /* "hdre" */
#define DATA_BEGIN        0x64617462u /* "datb" */
#define HET_BEGIN         0x68657462u /* "hetb" */
#define HET_END           0x68657465u /* "hete" */
#define ET_BEGIN          0x65746200u /* "etb\0" */
#define ET_END            0x65746500u /* "ete\0" */
#define DATA_END          0xffffu
#define BLOCK_MARKER      18
#define BLOCK_MARKER_SIZE 14
#define MAX_DECL_TEXT     ((uint32_t)1 << 20) /* description or extra info of one type */

static uint64_t log_pos(const LzReplayReader *r) { return r->buf_log_off + r->pos; }

/* Ensure k bytes; a log that ends first is truncated, `what` says where. */
static int need_or_truncated(LzReplayReader *r, size_t k, uint64_t at, const char *what) {
  int n = rpl_need(r, k);
  if (n > 0) return 0;
  if (n < 0) return -1;
  if (r->buf_log_off + r->len == 0)
    return rpl_fail_at(r, 0,
                       "truncated: the file ends after the replay header, before the "
                       "event log");
  return rpl_fail_at(r, at, "truncated: the event log ends inside %s (%zu of %zu bytes)", what,
                     r->len - r->pos, k);
}

/* A big-endian number of n bytes at the read position, consumed. */
static int get(LzReplayReader *r, int n, uint64_t *v, const char *what) {
  if (need_or_truncated(r, (size_t)n, log_pos(r), what) != 0) return -1;
  *v = rpl_get_be(r->buf + r->pos, n);
  r->pos += (size_t)n;
  return 0;
}

static int expect(LzReplayReader *r, uint32_t marker, const char *name) {
  uint64_t at = log_pos(r), v;
  if (get(r, 4, &v, "its header") != 0) return -1;
  if (v != marker) return rpl_fail_at(r, at, "not a GHC event log: expected \"%s\"", name);
  return 0;
}

void rpl_free_types(LzReplayReader *r) {
  for (size_t i = 0; i < r->ndecls; i++)
    free(r->decls[i].desc);
  free(r->decls);
  free(r->type_size);
  r->decls = NULL;
  r->type_size = NULL;
  r->ndecls = 0;
}

static int declare(LzReplayReader *r, uint64_t at, uint16_t num, uint16_t size, const uint8_t *desc,
                   uint32_t dlen) {
  if (r->type_size[num] != -1) return rpl_fail_at(r, at, "event type %u is declared twice", num);
  if (num == BLOCK_MARKER && size != BLOCK_MARKER_SIZE)
    return rpl_fail_at(r, at, "the block marker (type 18) is declared with size %u, not 14", size);
  if (r->ndecls == r->decls_cap) {
    size_t cap = r->decls_cap ? 2 * r->decls_cap : 64;
    RplTypeDecl *d = realloc(r->decls, cap * sizeof *d);
    if (!d) return rpl_fail_at(r, at, "out of memory");
    r->decls = d;
    r->decls_cap = cap;
  }
  char *text = malloc(dlen + 1);
  if (!text) return rpl_fail_at(r, at, "out of memory");
  memcpy(text, desc, dlen);
  text[dlen] = 0;
  r->decls[r->ndecls++] = (RplTypeDecl){num, text};
  r->type_size[num] = size;
  return 0;
}

static int read_log_header(LzReplayReader *r) {
  r->type_size = malloc(sizeof(int32_t) * 65536);
  if (!r->type_size) return rpl_fail_at(r, 0, "out of memory");
  for (size_t i = 0; i < 65536; i++)
    r->type_size[i] = -1;
  if (expect(r, HEADER_BEGIN, "hdrb") != 0 || expect(r, HET_BEGIN, "hetb") != 0) return -1;
  for (;;) {
    uint64_t at = log_pos(r), v, num, size, dlen, xlen;
    if (get(r, 4, &v, "its header") != 0) return -1;
    if (v == HET_END) break;
    if (v != ET_BEGIN)
      return rpl_fail_at(r, at, "not a GHC event log: expected \"etb\" or \"hete\"");
    if (get(r, 2, &num, "its header") != 0 || get(r, 2, &size, "its header") != 0 ||
        get(r, 4, &dlen, "its header") != 0)
      return -1;
    if (dlen > MAX_DECL_TEXT)
      return rpl_fail_at(r, at, "event type %u has a description of %llu bytes", (unsigned)num,
                         (unsigned long long)dlen);
    if (need_or_truncated(r, dlen + 4, at, "its header") != 0) return -1;
    if (declare(r, at, (uint16_t)num, (uint16_t)size, r->buf + r->pos, (uint32_t)dlen) != 0)
      return -1;
    r->pos += dlen;
    if (get(r, 4, &xlen, "its header") != 0) return -1;
    if (xlen > MAX_DECL_TEXT)
      return rpl_fail_at(r, at, "event type %u has %llu bytes of extra information", (unsigned)num,
                         (unsigned long long)xlen);
    if (need_or_truncated(r, xlen, at, "its header") != 0) return -1;
    r->pos += xlen;
    if (expect(r, ET_END, "ete") != 0) return -1;
  }
  if (expect(r, HEADER_END, "hdre") != 0 || expect(r, DATA_BEGIN, "datb") != 0) return -1;
  r->state = RPL_ST_DATA;
  return 0;
}

/* The stream ended cleanly at `at`, between two events. */
static int log_ends(LzReplayReader *r, uint64_t at) {
  if (r->in_block && at < r->block_end)
    return rpl_fail_at(r, at,
                       "truncated: the event log ends inside a block that should go on to "
                       "log byte %llu",
                       (unsigned long long)r->block_end);
  r->state = RPL_ST_END;
  r->complete = false;
  return LZ_REPLAY_END;
}

static int data_end(LzReplayReader *r, uint64_t at) {
  if (r->in_block && at < r->block_end)
    return rpl_fail_at(r, at,
                       "the end-of-data marker is inside a block (which ends at log "
                       "byte %llu)",
                       (unsigned long long)r->block_end);
  r->pos += 2;
  int more = rpl_need(r, 1);
  if (more < 0) return -1;
  if (more > 0) return rpl_fail_at(r, log_pos(r), "bytes after the end-of-data marker");
  r->state = RPL_ST_END;
  r->complete = true;
  return LZ_REPLAY_END;
}

/* ---- the replay events' encoding (Note [Replay log encoding]) ------------------------------ */

void lz_rpl_decode(LzRplCodec *c, uint16_t type, uint8_t *p, uint32_t len) {
  if (type == LZ_EVT_RPL_SLICE && len == LZ_RPL_SLICE_BYTES) {
    c->alloc += lz_ev_get64(p + 6);
    lz_ev_put64(p + 6, c->alloc);
  } else if (type == LZ_EVT_RPL_SPARK && len == LZ_RPL_SPARK_BYTES) {
    lz_ev_put64(p, lz_rpl_decode_diff48(c->spark, lz_ev_get64(p)));
  } else if ((type == LZ_EVT_RPL_CLAIM || type == LZ_EVT_RPL_BLOCK || type == LZ_EVT_RPL_WAKE ||
              type == LZ_EVT_RPL_WON || type == LZ_EVT_RPL_JOIN) &&
             len == LZ_RPL_CLAIM_BYTES) {
    lz_ev_put64(p, lz_rpl_decode_diff48(c->id, lz_ev_get64(p)));
  }
}

static LzRplCodec *codec_of(LzReplayReader *r, uint16_t cap) {
  if (cap >= r->ncodecs) {
    size_t n = (size_t)cap + 1;
    LzRplCodec *c = realloc(r->codecs, n * sizeof *c);
    if (!c) return NULL;
    memset(c + r->ncodecs, 0, (n - r->ncodecs) * sizeof *c);
    r->codecs = c;
    r->ncodecs = n;
  }
  return &r->codecs[cap];
}

int lz_replay_next_event(LzReplayReader *r, LzReplayEvent *ev) {
  if (r->state == RPL_ST_FAILED) return LZ_REPLAY_ERROR;
  if (r->state == RPL_ST_END) return LZ_REPLAY_END;
  if (r->state == RPL_ST_RAW)
    return rpl_fail_at(r, log_pos(r),
                       "internal error: lz_replay_next_event after "
                       "lz_replay_read");
  if (r->state == RPL_ST_HEADER && read_log_header(r) != 0) return LZ_REPLAY_ERROR;
  for (;;) {
    uint64_t at = log_pos(r);
    int k = rpl_need(r, 2);
    if (k < 0) return LZ_REPLAY_ERROR;
    if (k == 0 && r->len == r->pos) return log_ends(r, at);
    if (k == 0) return need_or_truncated(r, 2, at, "an event");
    uint16_t type = (uint16_t)rpl_get_be(r->buf + r->pos, 2);
    if (type == DATA_END) return data_end(r, at);
    if (need_or_truncated(r, LZ_EV_HEADER_BYTES, at, "an event") != 0) return LZ_REPLAY_ERROR;
    int32_t size = r->type_size[type];
    if (size < 0) return rpl_fail_at(r, at, "event of undeclared type %u", type);
    size_t head = LZ_EV_HEADER_BYTES;
    uint32_t len = (uint32_t)size;
    if (size == LZ_EV_VAR) {
      head += 2;
      if (need_or_truncated(r, head, at, "an event") != 0) return LZ_REPLAY_ERROR;
      len = (uint32_t)rpl_get_be(r->buf + r->pos + LZ_EV_HEADER_BYTES, 2);
    }
    if (need_or_truncated(r, head + len, at, "an event") != 0) return LZ_REPLAY_ERROR;
    const uint8_t *p = r->buf + r->pos;
    uint64_t end = at + head + len;
    if (type == BLOCK_MARKER) {
      if (r->in_block && at < r->block_end)
        return rpl_fail_at(r, at, "a block marker inside a block (which ends at log byte %llu)",
                           (unsigned long long)r->block_end);
      uint64_t block_end = at + rpl_get_be(p + head, 4);
      if (block_end < end)
        return rpl_fail_at(r, at, "a block marker declares a block shorter than itself");
      r->in_block = true;
      r->block_end = block_end;
      r->block_cap = (uint16_t)rpl_get_be(p + head + 12, 2);
      r->pos += head + len;
      continue;
    }
    if (!r->in_block || at >= r->block_end)
      return rpl_fail_at(r, at, "an event of type %u outside any block", type);
    if (end > r->block_end)
      return rpl_fail_at(r, at,
                         "an event of type %u runs past the end of its block (log byte %llu)", type,
                         (unsigned long long)r->block_end);
    const uint8_t *payload = p + head;
    if (type >= LZ_EVT_RPL_SLICE && type <= LZ_EVT_RPL_JOIN && len <= sizeof r->decoded) {
      LzRplCodec *c = codec_of(r, r->block_cap);
      if (!c) return rpl_fail_at(r, at, "out of memory");
      memcpy(r->decoded, payload, len);
      lz_rpl_decode(c, type, r->decoded, len);
      payload = r->decoded;
    }
    *ev = (LzReplayEvent){.type = type,
                          .cap = r->block_cap,
                          .time = rpl_get_be(p + 2, 8),
                          .payload = payload,
                          .len = len,
                          .index = r->nevents++,
                          .log_offset = at,
                          .file_offset = rpl_frame_of(r, at)};
    r->pos += head + len;
    return LZ_REPLAY_EVENT;
  }
}

bool lz_replay_complete(const LzReplayReader *r) { return r->complete; }

int lz_replay_type_size(const LzReplayReader *r, uint16_t type) {
  return r->type_size ? r->type_size[type] : -1;
}

/* The runtime's description of a type of eventlog_types.def (NULL for others). */
static const char *builtin_desc(uint16_t type) {
  switch (type) {
#define LZ_EVENT(name, num, size, desc)                                                            \
  case num:                                                                                        \
    return desc;
#include "eventlog_types.def"
#undef LZ_EVENT
  default: return NULL;
  }
}

const char *lz_replay_type_desc(const LzReplayReader *r, uint16_t type) {
  for (size_t i = 0; i < r->ndecls; i++)
    if (r->decls[i].num == type) {
      /* a recording declares GHC's types without descriptions (terse_types) */
      const char *d = r->decls[i].desc;
      return d[0] || !builtin_desc(type) ? d : builtin_desc(type);
    }
  return NULL;
}

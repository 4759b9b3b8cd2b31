/* eventlog_decode.h — a strict, independent reader of GHC-format event logs, for tests.
 *
 * It does not share code with the writer (rts/eventlog.c): it parses the header's
 * event-type list, then walks the events using the declared sizes, and checks the
 * block structure on the way — every event lies inside a block, blocks follow each
 * other without gaps, a block's events are timed between its start and end time, the
 * log ends with EVENT_DATA_END exactly at the end of the bytes. Each event is returned
 * with the capability of its block (-1 for global blocks). Errors carry the byte
 * offset. Header-only: included by the tests that need it.
 */
#ifndef LZ_EVENTLOG_DECODE_H
#define LZ_EVENTLOG_DECODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEC_MAX_TYPE 65535

typedef struct DecEvent {
  uint16_t type;
  uint64_t ts;
  int cap;                /* block's capability; -1: global block */
  const uint8_t *payload; /* into the decoded bytes */
  size_t len;
} DecEvent;

typedef struct DecLog {
  int32_t size[DEC_MAX_TYPE + 1]; /* declared payload size, 0xffff variable, -1 undeclared */
  char *desc[DEC_MAX_TYPE + 1];
  size_t ntypes;
  DecEvent *ev;
  size_t nev, cap;
  size_t nblocks;
  bool data_end;
  char err[256];
} DecLog;

static inline uint64_t dec_be(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

typedef struct DecCursor {
  const uint8_t *b;
  size_t n, pos;
  DecLog *log;
} DecCursor;

static inline bool dec_fail(DecCursor *c, const char *what) {
  snprintf(c->log->err, sizeof c->log->err, "%s at byte %zu", what, c->pos);
  return false;
}

static inline bool dec_get(DecCursor *c, int n, uint64_t *v) {
  if (c->pos + (size_t)n > c->n) return dec_fail(c, "truncated");
  *v = dec_be(c->b + c->pos, n);
  c->pos += (size_t)n;
  return true;
}

static inline bool dec_expect(DecCursor *c, uint32_t marker, const char *what) {
  uint64_t v;
  if (!dec_get(c, 4, &v)) return false;
  if (v != marker) {
    c->pos -= 4;
    return dec_fail(c, what);
  }
  return true;
}

static inline void dec_free(DecLog *log) {
  for (size_t i = 0; i <= DEC_MAX_TYPE; i++)
    free(log->desc[i]);
  free(log->ev);
  free(log);
}

/* Decode b[0..n). Returns the log (err[0] == 0 on success); free with dec_free. */
static inline DecLog *dec_log(const uint8_t *b, size_t n) {
  DecLog *log = calloc(1, sizeof *log);
  DecCursor c = {b, n, 0, log};
  uint64_t v, num, size, dlen, extra;
  for (size_t i = 0; i <= DEC_MAX_TYPE; i++)
    log->size[i] = -1;
  if (!dec_expect(&c, 0x68647262, "no header begin") ||
      !dec_expect(&c, 0x68657462, "no event-type list"))
    return log;
  for (;;) {
    if (!dec_get(&c, 4, &v)) return log;
    if (v == 0x68657465) break;
    if (v != 0x65746200) {
      c.pos -= 4;
      dec_fail(&c, "bad event-type marker");
      return log;
    }
    if (!dec_get(&c, 2, &num) || !dec_get(&c, 2, &size) || !dec_get(&c, 4, &dlen)) return log;
    if (c.pos + dlen > n) {
      dec_fail(&c, "truncated description");
      return log;
    }
    if (log->size[num] != -1) {
      dec_fail(&c, "event type declared twice");
      return log;
    }
    log->size[num] = (int32_t)size;
    log->desc[num] = strndup((const char *)b + c.pos, dlen);
    log->ntypes++;
    c.pos += dlen;
    if (!dec_get(&c, 4, &extra)) return log;
    c.pos += extra;
    if (!dec_expect(&c, 0x65746500, "no event-type end")) return log;
  }
  if (!dec_expect(&c, 0x68647265, "no header end") || !dec_expect(&c, 0x64617462, "no data begin"))
    return log;

  size_t block_end = c.pos; /* no block yet: the first event must be a marker */
  int block_cap = -2;
  uint64_t block_t0 = 0, block_t1 = 0;
  for (;;) {
    size_t start = c.pos;
    uint64_t type, ts, len;
    if (!dec_get(&c, 2, &type)) return log;
    if (type == 0xffff) {
      if (start < block_end) {
        dec_fail(&c, "data end inside a block");
        return log;
      }
      if (c.pos != n) {
        dec_fail(&c, "bytes after data end");
        return log;
      }
      log->data_end = true;
      return log;
    }
    if (!dec_get(&c, 8, &ts)) return log;
    if (log->size[type] < 0) {
      dec_fail(&c, "undeclared event type");
      return log;
    }
    len = (uint64_t)log->size[type];
    if (len == 0xffff && !dec_get(&c, 2, &len)) return log;
    if (c.pos + len > n) {
      dec_fail(&c, "truncated event");
      return log;
    }
    const uint8_t *payload = b + c.pos;
    c.pos += len;
    if (type == 18) { /* BLOCK_MARKER */
      if (start != block_end) {
        dec_fail(&c, "block marker inside a block");
        return log;
      }
      if (len != 14) {
        dec_fail(&c, "block marker of wrong size");
        return log;
      }
      block_end = start + dec_be(payload, 4);
      block_t0 = ts;
      block_t1 = dec_be(payload + 4, 8);
      block_cap = (int)dec_be(payload + 12, 2);
      if (block_cap == 0xffff) block_cap = -1;
      if (block_end > n || block_end < c.pos || block_t1 < block_t0) {
        dec_fail(&c, "bad block marker");
        return log;
      }
      log->nblocks++;
      continue;
    }
    if (c.pos > block_end) {
      dec_fail(&c, start >= block_end ? "event outside a block" : "event crosses its block's end");
      return log;
    }
    if (ts < block_t0 || ts > block_t1) {
      dec_fail(&c, "event timed outside its block");
      return log;
    }
    if (log->nev == log->cap) {
      log->cap = log->cap ? log->cap * 2 : 1024;
      log->ev = realloc(log->ev, log->cap * sizeof *log->ev);
    }
    log->ev[log->nev++] = (DecEvent){(uint16_t)type, ts, block_cap, payload, (size_t)len};
  }
}

/* Number of events of `type` (on capability `cap`; cap == -2: any). */
static inline size_t dec_count(const DecLog *log, uint16_t type, int cap) {
  size_t k = 0;
  for (size_t i = 0; i < log->nev; i++)
    if (log->ev[i].type == type && (cap == -2 || log->ev[i].cap == cap)) k++;
  return k;
}

/* The i-th (0-based) event of `type`, or NULL. */
static inline const DecEvent *dec_find(const DecLog *log, uint16_t type, size_t i) {
  for (size_t j = 0; j < log->nev; j++)
    if (log->ev[j].type == type && i-- == 0) return &log->ev[j];
  return NULL;
}

#endif

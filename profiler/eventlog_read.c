/* eventlog_read.c — lzprof's own reader of GHC-format event logs.
 *
 * The file is read whole into memory. The header's event-type declarations give each
 * type's payload size (or "variable": a u16 length precedes the payload); events are
 * then walked using those sizes, so types lzprof does not know are skipped exactly as
 * ghc-events skips them. Block markers give the capability of the events inside their
 * block (global blocks: no capability). The events are indexed (time, type, payload
 * offset, capability) and the index is sorted by time, keeping file order among equal
 * times; the payloads stay in the file buffer. Anything that does not parse — a bad
 * magic word, an undeclared event type, an event or block running past the end of the
 * file — is an error naming the byte offset; a log that simply stops between two events
 * (the program was killed before it wrote EVENT_DATA_END) is read with a warning, as
 * ThreadScope reads it. A replay log (.lzr, recognised by its first bytes) is first
 * decompressed (replay_input.c); offsets are then in the event log. See
 * docs/notes/lzprof.md.
 */
#include "lzprof.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

typedef struct {
  const uint8_t *p;
  size_t size, pos;
  char *err;
  size_t errlen;
  const char *path;
  const char *where; /* "byte", or "event log byte" in a replay log */
} Reader;

static int fail(Reader *r, size_t off, const char *fmt, ...) {
  int n = snprintf(r->err, r->errlen, "lzprof: %s: %s %zu: ", r->path, r->where, off);
  if (n < 0 || (size_t)n >= r->errlen) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

static int need(Reader *r, size_t n, const char *what) {
  if (r->size - r->pos < n)
    return fail(r, r->pos, "truncated: %s needs %zu bytes, the file ends after %zu", what, n,
                r->size - r->pos);
  return 0;
}

static uint64_t be(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

static uint32_t get32(Reader *r) {
  uint32_t v = (uint32_t)be(r->p + r->pos, 4);
  r->pos += 4;
  return v;
}
static uint16_t get16(Reader *r) {
  uint16_t v = (uint16_t)be(r->p + r->pos, 2);
  r->pos += 2;
  return v;
}

#define MAGIC(s)                                                                                   \
  ((uint32_t)(s)[0] << 24 | (uint32_t)(s)[1] << 16 | (uint32_t)(s)[2] << 8 | (uint32_t)(s)[3])

static int expect_magic(Reader *r, const char *m, const char *what) {
  if (need(r, 4, what) < 0) return -1;
  size_t at = r->pos;
  if (get32(r) != MAGIC(m))
    return fail(r, at, "not a GHC event log: expected \"%.4s\" (%s)", m, what);
  return 0;
}

static int read_header(Reader *r, LzpLog *log) {
  if (expect_magic(r, "hdrb", "header begin") < 0 ||
      expect_magic(r, "hetb", "event types begin") < 0)
    return -1;
  for (;;) {
    if (need(r, 4, "event type declaration") < 0) return -1;
    size_t at = r->pos;
    uint32_t m = get32(r);
    if (m == MAGIC("hete")) break;
    if (m != MAGIC("etb\0"))
      return fail(r, at,
                  "corrupt header: expected an event type declaration (\"etb\") or \"hete\"");
    if (need(r, 8, "event type declaration") < 0) return -1;
    uint16_t num = get16(r);
    uint16_t size = get16(r);
    uint32_t dlen = get32(r);
    if (need(r, (size_t)dlen + 4, "event type description") < 0) return -1;
    if (log->types[num].desc)
      return fail(r, at, "corrupt header: event type %u declared twice", num);
    log->types[num].size = size == 0xffff ? -1 : size;
    log->types[num].desc = strndup((const char *)r->p + r->pos, dlen);
    if (!log->types[num].desc) return fail(r, at, "out of memory");
    r->pos += dlen;
    uint32_t elen = get32(r);
    if (need(r, (size_t)elen + 4, "event type extra data") < 0) return -1;
    r->pos += elen;
    if (expect_magic(r, "ete\0", "event type end") < 0) return -1;
    if (num == LZP_DATA_END)
      return fail(r, at, "corrupt header: event type 65535 is reserved for the end marker");
  }
  if (expect_magic(r, "hdre", "header end") < 0 || expect_magic(r, "datb", "data begin") < 0)
    return -1;
  /* the types lzprof reads must have at least the payload it reads */
  static const struct {
    uint16_t num, min;
  } known[] = {{LZP_CREATE_THREAD, 4},   {LZP_RUN_THREAD, 4},    {LZP_STOP_THREAD, 6},
               {LZP_MIGRATE_THREAD, 6},  {LZP_THREAD_WAKEUP, 4}, {LZP_BLOCK_MARKER, 14},
               {LZP_SPARK_COUNTERS, 56}, {LZP_SPARK_STEAL, 2},   {LZP_CREATE_SPARK_THREAD, 4}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
    const LzpEventType *t = &log->types[known[i].num];
    if (t->desc && t->size >= 0 && t->size < known[i].min)
      return fail(r, 0, "corrupt header: event type %u declared with %d payload bytes, expected %u",
                  known[i].num, t->size, known[i].min);
  }
  log->spark_site_type = log->spark_info_type = -1;
  for (int n = 1000; n <= 2047; n++) {
    const LzpEventType *t = &log->types[n];
    if (t->desc && !strcmp(t->desc, LZP_DESC_SPARK_SITE) && t->size < 0) log->spark_site_type = n;
    if (t->desc && !strcmp(t->desc, LZP_DESC_SPARK_INFO) && t->size >= 12) log->spark_info_type = n;
  }
  return 0;
}

/* Adds the event at [at, end) to its stream (extending the stream's last range when it
 * follows it) and checks the stream's time order. */
static int stream_add(LzpLog *log, int32_t cap, size_t at, size_t end, uint64_t time) {
  LzpStream *st = &log->streams[cap + 1];
  if (cap + 2 > log->n_streams) log->n_streams = cap + 2;
  if (time < st->last_time) log->unsorted = 1;
  st->last_time = time;
  if (st->n_seg && st->seg[st->n_seg - 1].end == at) {
    st->seg[st->n_seg - 1].end = (uint32_t)end;
    return 0;
  }
  if (st->n_seg == st->cap_seg) {
    size_t nc = st->cap_seg ? st->cap_seg * 2 : 16;
    LzpSeg *ns = realloc(st->seg, nc * sizeof *ns);
    if (!ns) return -1;
    st->seg = ns;
    st->cap_seg = nc;
  }
  st->seg[st->n_seg++] = (LzpSeg){(uint32_t)at, (uint32_t)end};
  return 0;
}

static int read_events(Reader *r, LzpLog *log, FILE *warn) {
  log->streams = calloc(LZP_MAX_CAPS + 1, sizeof *log->streams);
  if (!log->streams) return fail(r, r->pos, "out of memory");
  for (int i = 0; i <= LZP_MAX_CAPS; i++)
    log->streams[i].cap = i - 1;
  if (r->size > UINT32_MAX) return fail(r, 0, "file too large (lzprof reads logs up to 4 GiB)");
  size_t block_end = 0, dropped = 0;
  int32_t block_cap = LZP_NO_CAP;
  for (;;) {
    if (log->mapped && r->pos - dropped > ((size_t)16 << 20)) /* Note [Reading in time order] */
      dropped = lzp_drop_pages(log, dropped, r->pos);
    if (r->pos == r->size) {
      if (warn)
        fprintf(warn,
                "lzprof: %s: warning: no end-of-data marker (the program was killed?); "
                "read %zu events\n",
                r->path, log->n_ev);
      break;
    }
    size_t at = r->pos;
    if (need(r, 2, "event type") < 0) return -1;
    uint16_t type = get16(r);
    if (type == LZP_DATA_END) {
      log->has_end = 1;
      if (r->pos != r->size && warn)
        fprintf(warn, "lzprof: %s: warning: %zu bytes after the end-of-data marker ignored\n",
                r->path, r->size - r->pos);
      break;
    }
    const LzpEventType *t = &log->types[type];
    if (!t->desc) return fail(r, at, "corrupt event: type %u is not declared in the header", type);
    if (need(r, 8, "event timestamp") < 0) return -1;
    uint64_t time = be(r->p + r->pos, 8);
    r->pos += 8;
    size_t len;
    if (t->size < 0) {
      if (need(r, 2, "variable event length") < 0) return -1;
      len = get16(r);
    } else {
      len = (size_t)t->size;
    }
    if (r->size - r->pos < len)
      return fail(
          r, at,
          "truncated: event of type %u (%s) needs %zu payload bytes, the file ends after %zu", type,
          t->desc, len, r->size - r->pos);
    if (at >= block_end) block_cap = LZP_NO_CAP;
    if (type == LZP_BLOCK_MARKER) {
      uint32_t bsize = (uint32_t)be(r->p + r->pos, 4);
      uint16_t cap = (uint16_t)be(r->p + r->pos + 12, 2);
      if (bsize < 10 + len || bsize > r->size - at)
        return fail(
            r, at,
            "truncated or corrupt: the block starting here has %u bytes, the file only %zu more",
            bsize, r->size - at);
      if (cap != 0xffff && cap >= LZP_MAX_CAPS)
        return fail(r, at, "corrupt block marker: capability %u (lzprof reads at most %d)", cap,
                    LZP_MAX_CAPS);
      block_end = at + bsize;
      block_cap = cap == 0xffff ? LZP_NO_CAP : cap;
      if (block_cap >= log->n_caps) log->n_caps = block_cap + 1;
      r->pos += len;
      continue;
    }
    if (stream_add(log, block_cap, at, r->pos + len, time) < 0) return fail(r, at, "out of memory");
    if (!log->n_ev++ || time < log->t_first) log->t_first = time;
    if (time > log->t_last) log->t_last = time;
    if (type == LZP_USER_MSG || type == LZP_USER_MARKER) log->has_user = 1;
    if (type == LZP_CAP_CREATE && len >= 2) {
      int c = (int)be(r->p + r->pos, 2);
      if (c >= LZP_MAX_CAPS)
        return fail(r, at, "corrupt event: capability %d created (lzprof reads at most %d)", c,
                    LZP_MAX_CAPS);
      if (c >= log->n_caps) log->n_caps = c + 1;
    }
    if (type == LZP_PROGRAM_ARGS && len > 4 && !log->prog_name[0]) {
      size_t n = strnlen((const char *)r->p + r->pos + 4, len - 4);
      if (n > sizeof log->prog_name - 1) n = sizeof log->prog_name - 1;
      memcpy(log->prog_name, r->p + r->pos + 4, n);
      log->prog_name[n] = 0;
    }
    if (type == LZP_RTS_IDENTIFIER && len > 4) {
      size_t n = len - 4 < sizeof log->rts_id - 1 ? len - 4 : sizeof log->rts_id - 1;
      memcpy(log->rts_id, r->p + r->pos + 4, n);
      log->rts_id[n] = 0;
    }
    r->pos += len;
  }
  if (log->mapped) lzp_drop_pages(log, dropped, r->size);
  /* a stream out of time order (not written by GHC's or our runtime): sort an index */
  if ((log->unsorted || getenv("LZPROF_INDEX")) && lzp_log_index(log) < 0) /* env: tests */
    return fail(r, 0, "out of memory");
  return 0;
}

/* lzp_read_all's reader for a FILE: 0 at the end, -1 on an error. */
static long read_file(void *f, uint8_t *buf, size_t room) {
  size_t got = fread(buf, 1, room, f);
  return got ? (long)got : ferror((FILE *)f) ? -1 : 0;
}

int lzp_log_read(const char *path, LzpLog *log, char *err, size_t errlen, FILE *warn) {
  memset(log, 0, sizeof *log);
  Reader r = {.err = err, .errlen = errlen, .path = path, .where = "byte"};
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, errlen, "lzprof: %s: %s", path, strerror(errno));
    return -1;
  }
  struct stat sb;
  uint8_t magic[4] = {0};
  size_t n = 0;
  uint8_t *buf = NULL;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 4 &&
      fread(magic, 1, 4, f) == 4 && !lzp_is_replay_log(magic, 4)) {
    /* a plain log: mapped, so that pages already read can be dropped (Note [Reading in
     * time order]) */
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
    fclose(f);
    if (p == MAP_FAILED) {
      snprintf(err, errlen, "lzprof: %s: %s", path, strerror(errno));
      return -1;
    }
    madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL);
    buf = p;
    n = (size_t)sb.st_size;
    log->mapped = 1;
  } else {
    rewind(f);
    int oom;
    int rc = lzp_read_all(read_file, f, &buf, &n, &oom);
    fclose(f);
    if (rc < 0) {
      snprintf(err, errlen, "lzprof: %s: %s", path,
               oom ? "file too large or out of memory" : "read error");
      return -1;
    }
    if (lzp_is_replay_log(buf, n)) { /* a .lzr: decompress it (replay_input.c) */
      free(buf);
      int complete;
      if (lzp_read_replay(path, &buf, &n, &complete, err, errlen) < 0) return -1;
      log->is_replay = 1;
      r.where = "event log byte";
    }
  }
  log->data = buf;
  log->size = n;
  r.p = buf;
  r.size = n;
  log->types = calloc(65536, sizeof *log->types);
  if (!log->types || read_header(&r, log) < 0 || read_events(&r, log, warn) < 0) {
    if (!log->types) snprintf(err, errlen, "lzprof: out of memory");
    lzp_log_free(log);
    return -1;
  }
  if (log->n_caps == 0) log->n_caps = 1;
  return 0;
}

void lzp_log_free(LzpLog *log) {
  if (log->types)
    for (int i = 0; i < 65536; i++)
      free(log->types[i].desc);
  free(log->types);
  free(log->ev);
  for (int i = 0; log->streams && i <= LZP_MAX_CAPS; i++)
    free(log->streams[i].seg);
  free(log->streams);
  if (log->mapped)
    munmap(log->data, log->size);
  else
    free(log->data);
  memset(log, 0, sizeof *log);
}

static uint64_t field(const LzpLog *log, const LzpEvent *e, size_t off, int n) {
  if (off + (size_t)n > e->len) return 0;
  return be(log->data + e->payload + off, n);
}
uint16_t lzp_u16(const LzpLog *log, const LzpEvent *e, size_t off) {
  return (uint16_t)field(log, e, off, 2);
}
uint32_t lzp_u32(const LzpLog *log, const LzpEvent *e, size_t off) {
  return (uint32_t)field(log, e, off, 4);
}
uint64_t lzp_u64(const LzpLog *log, const LzpEvent *e, size_t off) { return field(log, e, off, 8); }

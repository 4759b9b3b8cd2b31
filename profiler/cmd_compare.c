/* cmd_compare.c — `lzprof compare LOG1 LOG2`: do two event logs describe the same run,
 * timestamps aside? Capability by capability, the events of the types both logs declare
 * are compared in order, type and payload, except those that depend on timing (GC, heap
 * and spark-counter events, as the replay's own comparison skips them). Thread ids are
 * matched by creation: the k-th thread created on a capability in LOG1 is the k-th
 * created on it in LOG2. A replay log's encoded fields (Note [Replay log encoding]) are
 * decoded first, so a recording (.lzr) compares with the event log its replay writes
 * (`+RTS --replay -l`): the check, outside the replay, that tests/replay/fidelity.sh
 * makes. Exit status 0: the same; 1: a difference (the first one of each capability is
 * printed); 2: usage or an unreadable log. Note [lzprof compare] in docs/notes/lzprof.md.
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

#include "replaylog.h"

static void usage(void) {
  fprintf(stderr, "usage: lzprof compare LOG1 LOG2\n"
                  "  the events of each capability, without their times, thread ids matched\n"
                  "  by creation (a recording .lzr against its replay's +RTS -l log, say)\n");
}

static int creates(uint16_t t) { return t == LZP_CREATE_THREAD || t == LZP_CREATE_SPARK_THREAD; }

/* One capability's events of the compared types, in order, payloads decoded. */
typedef struct {
  const LzpLog *log;
  const LzpStream *st;
  size_t seg;
  uint32_t off;
  LzRplCodec codec;
  LzpEvent ev;
  uint8_t pay[256];
  uint64_t n; /* events returned so far */
} Walk;

static int compared(const LzpLog *a, const LzpLog *b, uint16_t t) {
  return a->types[t].desc && b->types[t].desc && !lz_rpl_timing_dependent(t) &&
         t != LZP_BLOCK_MARKER;
}

/* The next event of the walk whose type both logs declare; 0 at the end. */
static int next(Walk *w, const LzpLog *other) {
  while (w->st && w->seg < w->st->n_seg) {
    if (w->off < w->st->seg[w->seg].begin) w->off = w->st->seg[w->seg].begin;
    if (w->off >= w->st->seg[w->seg].end) {
      w->seg++;
      continue;
    }
    w->off = lzp_decode_event(w->log, w->off, w->st->cap, &w->ev);
    size_t len = w->ev.len < sizeof w->pay ? w->ev.len : sizeof w->pay;
    memcpy(w->pay, w->log->data + w->ev.payload, len);
    if (w->log->is_replay) lz_rpl_decode(&w->codec, w->ev.type, w->pay, (uint32_t)len);
    if (!compared(w->log, other, w->ev.type)) continue;
    w->n++;
    return 1;
  }
  return 0;
}

/* LOG1's thread ids renamed to LOG2's: built from the creations, capability by capability. */
typedef struct {
  uint32_t *to; /* 0: not created in both */
  size_t n;
} TidMap;

static int map_put(TidMap *m, uint32_t from, uint32_t to) {
  if (from >= m->n) {
    size_t n = m->n ? m->n : 64;
    while (n <= from)
      n *= 2;
    uint32_t *p = realloc(m->to, n * sizeof *p);
    if (!p) return -1;
    memset(p + m->n, 0, (n - m->n) * sizeof *p);
    m->to = p, m->n = n;
  }
  m->to[from] = to;
  return 0;
}

static void rename_tids(const TidMap *m, uint16_t type, uint8_t *p, uint16_t len) {
  if (!lz_rpl_has_tid(type) || len < 4) return;
  uint32_t t = lz_ev_get32(p);
  if (t < m->n && m->to[t]) lz_ev_put32(p, m->to[t]);
  if (type == LZP_STOP_THREAD && len >= 10) { /* the blocking thread */
    t = lz_ev_get32(p + 6);
    if (t < m->n && m->to[t]) lz_ev_put32(p + 6, m->to[t]);
  }
}

static void describe(const Walk *w, const char *name, FILE *f) {
  const char *d = w->log->types[w->ev.type].desc;
  fprintf(f, "  %s: #%llu at %.3f ms: type %u%s%s%s, payload", name, (unsigned long long)w->n,
          (double)w->ev.time / 1e6, w->ev.type, d && *d ? " (" : "", d && *d ? d : "",
          d && *d ? ")" : "");
  for (unsigned i = 0; i < w->ev.len && i < 24; i++)
    fprintf(f, " %02x", w->pay[i]);
  fprintf(f, "%s\n", w->ev.len > 24 ? " ..." : "");
}

/* Payloads over 256 bytes (messages, labels) are compared as stored past their start. */
static int same(const Walk *x, const Walk *y) {
  size_t len = x->ev.len, head = len < sizeof x->pay ? len : sizeof x->pay;
  static const uint8_t unnamed[8];
  if (x->ev.type == y->ev.type && len == y->ev.len && len == 8 &&
      (x->ev.type == LZ_EVT_RPL_BLOCK || x->ev.type == LZ_EVT_RPL_WAKE) &&
      (!memcmp(x->pay, unnamed, 8) || !memcmp(y->pay, unnamed, 8)))
    return 1; /* a thunk the recorder could not name matches any (as in the replay) */
  return x->ev.type == y->ev.type && len == y->ev.len && !memcmp(x->pay, y->pay, head) &&
         !memcmp(x->log->data + x->ev.payload + head, y->log->data + y->ev.payload + head,
                 len - head);
}

static int read_log(const char *path, LzpLog *log) {
  char err[1024];
  if (lzp_log_read(path, log, err, sizeof err, stderr) < 0) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  return 0;
}

static Walk walk_of(const LzpLog *log, int cap) {
  Walk w = {0};
  w.log = log;
  w.st = cap + 1 < log->n_streams ? &log->streams[cap + 1] : NULL;
  return w;
}

int lzp_cmd_compare(int argc, char **argv) {
  if (argc != 2 || argv[0][0] == '-' || argv[1][0] == '-') {
    usage();
    return 2;
  }
  LzpLog a, b;
  if (read_log(argv[0], &a) < 0) return 2;
  if (read_log(argv[1], &b) < 0) {
    lzp_log_free(&a);
    return 2;
  }
  int caps = a.n_caps > b.n_caps ? a.n_caps : b.n_caps, differ = 0;
  uint64_t total = 0;
  TidMap m = {0};
  for (int c = 0; c < caps; c++) { /* the k-th creation of each capability pairs up */
    Walk x = walk_of(&a, c), y = walk_of(&b, c);
    for (;;) {
      int gx = 0, gy = 0;
      while ((gx = next(&x, &b)) && !creates(x.ev.type)) {
      }
      while ((gy = next(&y, &a)) && !creates(y.ev.type)) {
      }
      if (!gx || !gy) break;
      if (x.ev.len >= 4 && y.ev.len >= 4 &&
          map_put(&m, lz_ev_get32(x.pay), lz_ev_get32(y.pay)) < 0) {
        fprintf(stderr, "lzprof compare: out of memory\n");
        return 2;
      }
    }
  }
  for (int c = 0; c < caps; c++) {
    Walk x = walk_of(&a, c), y = walk_of(&b, c);
    for (;;) {
      int gx = next(&x, &b), gy = next(&y, &a);
      if (!gx && !gy) break;
      total += gx;
      if (gx) rename_tids(&m, x.ev.type, x.pay, x.ev.len);
      if (gx && gy && same(&x, &y)) continue;
      differ = 1;
      printf("capability %d: the logs differ at its event #%llu (times ignored)\n", c,
             (unsigned long long)(gx ? x.n : y.n));
      if (gx)
        describe(&x, argv[0], stdout);
      else
        printf("  %s: no more events\n", argv[0]);
      if (gy)
        describe(&y, argv[1], stdout);
      else
        printf("  %s: no more events\n", argv[1]);
      break;
    }
  }
  if (!differ)
    printf("the same: %llu events on %d capabilities (times ignored; thread ids matched by "
           "creation; GC, heap and spark-counter events skipped)\n",
           (unsigned long long)total, caps);
  free(m.to);
  lzp_log_free(&a);
  lzp_log_free(&b);
  return differ;
}

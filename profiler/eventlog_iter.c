/* eventlog_iter.c — the events of a log in time order, without an index of them all.
 *
 * Note [Reading in time order]: each capability's events are in time order in the file
 * (a capability posts them in order into its own blocks), and so are the global blocks'
 * and the events outside blocks; the reader (eventlog_read.c) records each such stream as
 * a list of byte ranges and checks its order. An iterator merges the streams with a small
 * binary heap keyed by (time, file offset) — the order a stable sort by time gives — and
 * decodes each event when it reaches it. A 10-million-event log then costs a few hundred
 * bytes per capability instead of a 24-byte index entry per event. A plain log file is
 * mapped, and the pages behind every stream's cursor are given back as the iterator
 * advances (and as the reader's first pass does), so the file never stays resident
 * whole. A stream out of order (a log not written by a runtime) makes the reader build
 * the sorted index, which the iterator then walks.
 */
#include "lzprof.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct {
  const LzpStream *st;
  size_t seg;   /* current range */
  uint32_t off; /* next event's offset */
  LzpEvent ev;  /* the event at off */
} Cursor;

struct LzpIter {
  const LzpLog *log;
  size_t next;      /* index mode: next entry of log->ev */
  Cursor *cur;      /* one per non-empty stream */
  int *heap, nheap; /* indices into cur, smallest (time, offset) first */
  size_t since_drop, dropped;
  LzpEvent out;
};

static uint64_t be(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

uint32_t lzp_decode_event(const LzpLog *log, uint32_t at, int32_t cap, LzpEvent *e) {
  const uint8_t *p = log->data + at;
  uint16_t type = (uint16_t)be(p, 2);
  uint32_t pay = at + 10, len;
  if (log->types[type].size < 0) {
    len = (uint32_t)be(p + 10, 2);
    pay += 2;
  } else {
    len = (uint32_t)log->types[type].size;
  }
  *e = (LzpEvent){be(p + 2, 8), pay, type, (uint16_t)len, cap, at};
  return pay + len;
}

static int less(const Cursor *a, const Cursor *b) {
  return a->ev.time != b->ev.time ? a->ev.time < b->ev.time : a->ev.file_off < b->ev.file_off;
}

static void sift_down(LzpIter *it, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < it->nheap && less(&it->cur[it->heap[l]], &it->cur[it->heap[m]])) m = l;
    if (l + 1 < it->nheap && less(&it->cur[it->heap[l + 1]], &it->cur[it->heap[m]])) m = l + 1;
    if (m == i) return;
    int t = it->heap[i];
    it->heap[i] = it->heap[m];
    it->heap[m] = t;
    i = m;
  }
}

LzpIter *lzp_iter_new(const LzpLog *log) {
  LzpIter *it = calloc(1, sizeof *it);
  if (!it) return NULL;
  it->log = log;
  if (log->ev) return it;
  it->cur = calloc((size_t)log->n_streams + 1, sizeof *it->cur);
  it->heap = calloc((size_t)log->n_streams + 1, sizeof *it->heap);
  if (!it->cur || !it->heap) {
    lzp_iter_free(it);
    return NULL;
  }
  for (int s = 0; s < log->n_streams; s++) {
    const LzpStream *st = &log->streams[s];
    if (!st->n_seg) continue;
    Cursor *c = &it->cur[it->nheap];
    c->st = st;
    c->off = st->seg[0].begin;
    lzp_decode_event(log, c->off, st->cap, &c->ev);
    it->heap[it->nheap] = it->nheap;
    it->nheap++;
  }
  for (int i = it->nheap / 2; i-- > 0;)
    sift_down(it, i);
  return it;
}

/* Gives back the file's pages that every cursor has passed. */
static void drop_behind(LzpIter *it) {
  uint32_t low = UINT32_MAX;
  for (int i = 0; i < it->nheap; i++)
    if (it->cur[it->heap[i]].off < low) low = it->cur[it->heap[i]].off;
  if (it->nheap == 0) low = (uint32_t)it->log->size;
  if (low > it->dropped) it->dropped = lzp_drop_pages(it->log, it->dropped, low);
}

const LzpEvent *lzp_iter_next(LzpIter *it) {
  const LzpLog *log = it->log;
  if (log->ev) return it->next < log->n_ev ? &log->ev[it->next++] : NULL;
  if (it->nheap == 0) return NULL;
  Cursor *c = &it->cur[it->heap[0]];
  it->out = c->ev;
  uint32_t end = lzp_decode_event(log, c->off, c->st->cap, &c->ev); /* re-decode: its end */
  if (end >= c->st->seg[c->seg].end) {
    if (++c->seg < c->st->n_seg) {
      end = c->st->seg[c->seg].begin;
    } else {
      it->heap[0] = it->heap[--it->nheap];
      end = 0;
    }
  }
  if (end) {
    c->off = end;
    lzp_decode_event(log, c->off, c->st->cap, &c->ev);
  }
  if (it->nheap) sift_down(it, 0);
  if (log->mapped && ++it->since_drop >= 65536) {
    it->since_drop = 0;
    drop_behind(it);
  }
  return &it->out;
}

void lzp_iter_free(LzpIter *it) {
  if (!it) return;
  free(it->cur);
  free(it->heap);
  free(it);
}

size_t lzp_drop_pages(const LzpLog *log, size_t from, size_t to) {
  if (!log->mapped) return to;
  size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  size_t a = (from + pg - 1) / pg * pg, b = to / pg * pg;
  if (b > a) madvise(log->data + a, b - a, MADV_DONTNEED);
  return b > from ? b : from;
}

static int cmp_event(const void *a, const void *b) {
  const LzpEvent *x = a, *y = b;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  return x->file_off < y->file_off ? -1 : x->file_off > y->file_off;
}

int lzp_log_index(LzpLog *log) {
  if (log->ev) return 0;
  LzpEvent *ev = malloc((log->n_ev ? log->n_ev : 1) * sizeof *ev);
  if (!ev) return -1;
  size_t n = 0;
  for (int s = 0; s < log->n_streams; s++) {
    const LzpStream *st = &log->streams[s];
    for (size_t k = 0; k < st->n_seg; k++)
      for (uint32_t at = st->seg[k].begin; at < st->seg[k].end && n < log->n_ev;)
        at = lzp_decode_event(log, at, st->cap, &ev[n++]);
  }
  qsort(ev, n, sizeof *ev, cmp_event);
  log->ev = ev;
  log->n_ev = n;
  return 0;
}

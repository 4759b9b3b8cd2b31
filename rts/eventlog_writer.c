/* eventlog_writer.c — the event log's memory and output: blocks, queue, writer thread.
 *
 * Memory is a pool of equal chunks; each chunk holds exactly one block, whose first
 * event is its BLOCK_MARKER (size and end time patched in when the block is closed).
 * Every capability fills its own chunk with plain stores (eventlog.h); a full chunk is
 * closed, appended to a FIFO queue and replaced by an empty one from the free list —
 * the only moment the hot path takes a lock. The writer thread pops chunks, passes
 * their bytes to the sink (by default the log file) and puts them back on the free
 * list. The pool is bounded: when no chunk is free and the limit is reached, the
 * capability waits for the writer (counted in LzEvStats.waits) instead of growing
 * memory without end. Chunks of one capability reach the sink in the order they
 * filled, so each capability's events are in time order in the file; chunks of
 * different capabilities interleave, which readers expect (they sort by time).
 * See Note [Event log] in docs/notes/eventlog.md.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "eventlog_priv.h"

struct LzEvChunk {
  LzEvChunk *next;
  size_t len; /* bytes used, set when the block is closed */
  uint8_t data[];
};

/* The sink and its failure flag: sink_failed is written by the writer thread and read
 * after joining it. */
static LzEvSink sink;
static void *sink_ctx;
static bool sink_failed;
static pthread_t writer;
static size_t chunk_bytes;

/* The queue, the free list, the pool's size and the statistics: under q_lock. */
static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t q_work = PTHREAD_COND_INITIALIZER; /* queue not empty, or closing */
static pthread_cond_t q_free = PTHREAD_COND_INITIALIZER; /* a chunk was freed */
static LzEvChunk *q_head, *q_tail, *free_chunks;
static unsigned n_chunks, max_chunks;
static bool closing;
static LzEvStats stats;

size_t lz_evw_file_sink(void *ctx, const void *bytes, size_t n) {
  FILE *f = ctx;
  if (!bytes) return fclose(f) == 0 ? 0 : 1;
  return fwrite(bytes, 1, n, f);
}

void lz_evw_init(LzEvSink s, void *ctx, size_t bytes, unsigned max) {
  sink = s;
  sink_ctx = ctx;
  sink_failed = false;
  chunk_bytes = bytes;
  max_chunks = max;
  pthread_mutex_lock(&q_lock);
  memset(&stats, 0, sizeof stats);
  closing = false;
  q_head = q_tail = NULL;
  pthread_mutex_unlock(&q_lock);
}

bool lz_evw_write_now(const void *bytes, size_t n) {
  if (sink_failed || sink(sink_ctx, bytes, n) != n) {
    sink_failed = true;
    return false;
  }
  pthread_mutex_lock(&q_lock);
  stats.bytes += n;
  pthread_mutex_unlock(&q_lock);
  return true;
}

bool lz_evw_finish(void) { return sink(sink_ctx, NULL, 0) == 0; }

LzEvStats lz_eventlog_stats(void) {
  pthread_mutex_lock(&q_lock);
  LzEvStats s = stats;
  pthread_mutex_unlock(&q_lock);
  return s;
}

/* ---- chunks and blocks -------------------------------------------------------------- */

static void block_start(LzEvBuf *eb, LzEvChunk *c) {
  eb->chunk = c;
  uint8_t *p = lz_ev_put16(c->data, LZ_EVT_BLOCK_MARKER);
  p = lz_ev_put64(p, lz_ev_stamp_in(eb, 0xffff));
  memset(p, 0, 12); /* size u32 and end time u64: patched by block_finish */
  lz_ev_put16(p + 12, eb->cap);
  eb->pos = c->data + LZ_EV_MARKER_BYTES;
  eb->lim = c->data + chunk_bytes;
}

/* Patch the marker; true if the block holds any event. */
static bool block_finish(LzEvBuf *eb) {
  LzEvChunk *c = eb->chunk;
  c->len = (size_t)(eb->pos - c->data);
  uint8_t *p = c->data + LZ_EV_HEADER_BYTES;
  p = lz_ev_put32(p, (uint32_t)c->len);
  lz_ev_put64(p, lz_ev_stamp_in(eb, 0xffff));
  return c->len > LZ_EV_MARKER_BYTES;
}

/* q_lock held. */
static void enqueue(LzEvChunk *c) {
  c->next = NULL;
  if (q_tail)
    q_tail->next = c;
  else
    q_head = c;
  q_tail = c;
  pthread_cond_signal(&q_work);
}

/* q_lock held. */
static void recycle(LzEvChunk *c) {
  c->next = free_chunks;
  free_chunks = c;
}

static LzEvChunk *chunk_alloc(void) { return malloc(sizeof(LzEvChunk) + chunk_bytes); }

/* q_lock held. A free chunk, a new one while under the limit, else wait for the writer
 * (it always has one to return: the caller queued its full chunk before asking). */
static LzEvChunk *chunk_get(void) {
  for (;;) {
    if (free_chunks) {
      LzEvChunk *c = free_chunks;
      free_chunks = c->next;
      return c;
    }
    if (n_chunks < max_chunks) {
      LzEvChunk *c = chunk_alloc();
      if (c) {
        n_chunks++;
        return c;
      }
    }
    stats.waits++;
    pthread_cond_wait(&q_free, &q_lock);
  }
}

/* Hand eb's block to the writer (or recycle it if empty) and start a new one. */
static void block_swap(LzEvBuf *eb) {
  LzEvChunk *full = eb->chunk;
  bool nonempty = block_finish(eb);
  pthread_mutex_lock(&q_lock);
  if (nonempty)
    enqueue(full);
  else
    recycle(full);
  LzEvChunk *c = chunk_get();
  pthread_mutex_unlock(&q_lock);
  block_start(eb, c);
}

void lz_ev__refill(LzEvBuf *eb, size_t need) {
  if (need > chunk_bytes - LZ_EV_MARKER_BYTES) {
    /* a caller bypassed the size checks of eventlog.c: a bug, not an input */
    fprintf(stderr, "lz eventlog: internal error: event of %zu bytes, larger than a block\n", need);
    abort();
  }
  block_swap(eb);
}

void lz_ev_flush(LzEvBuf *eb) {
  if (eb && eb->pos > eb->chunk->data + LZ_EV_MARKER_BYTES) block_swap(eb);
}

void lz_ev_flush_idle(LzEvBuf *eb) {
  if (!eb || eb->pos == eb->chunk->data + LZ_EV_MARKER_BYTES) return;
  /* the block's first event's time (after the marker: type u16, time u64) */
  uint64_t first = lz_ev_get64(eb->chunk->data + LZ_EV_MARKER_BYTES + 2);
  if (lz_ev_now() - first >= LZ_EV_IDLE_FLUSH_NS) block_swap(eb);
}

/* ---- the writer thread ------------------------------------------------------------------ */

static void *writer_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&q_lock);
  for (;;) {
    while (!q_head && !closing)
      pthread_cond_wait(&q_work, &q_lock);
    LzEvChunk *c = q_head;
    if (!c) break; /* closing and drained */
    q_head = c->next;
    if (!q_head) q_tail = NULL;
    pthread_mutex_unlock(&q_lock);
    if (!sink_failed && sink(sink_ctx, c->data, c->len) != c->len) sink_failed = true;
    pthread_mutex_lock(&q_lock);
    stats.chunks++;
    stats.bytes += c->len;
    recycle(c);
    pthread_cond_signal(&q_free);
  }
  pthread_mutex_unlock(&q_lock);
  return NULL;
}

static void free_all_chunks(void) {
  while (free_chunks) {
    LzEvChunk *c = free_chunks;
    free_chunks = c->next;
    free(c);
  }
  n_chunks = 0;
}

int lz_evw_start(LzEvBuf *const *bufs, unsigned n) {
  pthread_mutex_lock(&q_lock);
  for (unsigned i = 0; i < n; i++) {
    LzEvChunk *c = chunk_alloc();
    if (!c) {
      free_all_chunks();
      pthread_mutex_unlock(&q_lock);
      return ENOMEM;
    }
    recycle(c);
    n_chunks++;
  }
  for (unsigned i = 0; i < n; i++)
    block_start(bufs[i], chunk_get());
  pthread_mutex_unlock(&q_lock);
  /* The writer thread takes no signal meant for the program (timers, SIGINT). */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int r = pthread_create(&writer, NULL, writer_main, NULL);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (r != 0) {
    pthread_mutex_lock(&q_lock);
    for (unsigned i = 0; i < n; i++)
      recycle(bufs[i]->chunk);
    free_all_chunks();
    pthread_mutex_unlock(&q_lock);
  }
  return r;
}

bool lz_evw_stop(LzEvBuf *const *bufs, unsigned n) {
  pthread_mutex_lock(&q_lock);
  for (unsigned i = 0; i < n; i++) {
    LzEvBuf *eb = bufs[i];
    if (block_finish(eb))
      enqueue(eb->chunk);
    else
      recycle(eb->chunk);
    eb->chunk = NULL;
    eb->pos = eb->lim = NULL;
  }
  closing = true;
  pthread_cond_signal(&q_work);
  pthread_mutex_unlock(&q_lock);
  pthread_join(writer, NULL);
  pthread_mutex_lock(&q_lock);
  free_all_chunks();
  pthread_mutex_unlock(&q_lock);
  return !sink_failed;
}

/* eventlog.c — writing GHC-format event logs: types, header, payloads, open and close.
 *
 * The header declares every event type of eventlog_types.def (and the caller's extra
 * types) with its size; the same table gives lz_event_custom the sizes to check. The
 * fixed-size events are the out-of-line halves of eventlog.h's functions; variable-size
 * ones carry their length. Opening posts what GHC posts at start-up (capability sets,
 * capabilities, clock, process, arguments), closing what it posts at the end, into the
 * global buffer, which is locked since any thread may use it. Blocks, the queue and
 * the writer thread are eventlog_writer.c's. See Note [Event log] in
 * docs/notes/eventlog.md.
 *
 * Text payloads are made acceptable to ghc-events, which rejects invalid UTF-8 and
 * would fail on the whole log: invalid bytes become '?' and long text is cut at a
 * character boundary.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "eventlog_priv.h"

/* Format markers (EventLogFormat.h). */
#define HEADER_BEGIN            0x68647262u /* "hdrb" */
#define HEADER_END              0x68647265u /* "hdre" */
#define DATA_BEGIN              0x64617462u /* "datb" */
#define DATA_END                0xffffu
#define HET_BEGIN               0x68657462u /* "hetb" */
#define HET_END                 0x68657465u /* "hete" */
#define ET_BEGIN                0x65746200u /* "etb\0" */
#define ET_END                  0x65746500u /* "ete\0" */
#define CAPSET_TYPE_OSPROCESS   2
#define CAPSET_TYPE_CLOCKDOMAIN 3

#define VAR_HEADER_BYTES    (LZ_EV_HEADER_BYTES + 2)
#define DEFAULT_CHUNK_BYTES ((size_t)256 << 10)
#define MIN_CHUNK_BYTES     ((size_t)1 << 10)

typedef struct EvTypeDecl {
  uint16_t num, size;
  const char *desc;
} EvTypeDecl;

static const EvTypeDecl builtin_types[] = {
#define LZ_EVENT(name, num, size, desc) {num, size, desc},
#include "eventlog_types.def"
#undef LZ_EVENT
};
#define N_BUILTIN (sizeof builtin_types / sizeof builtin_types[0])

uint64_t lz_ev_t0;
uint32_t lz_ev_classes;
uint64_t lz_ev_time_mask = ~(uint64_t)0;
uint64_t lz_ev_coarse_mask = ~(uint64_t)0;
uint8_t lz_ev_fine_bits[(LZ_EV_MAX_TYPE + 8) / 8];

/* The open log's time units (every one 1 ns when unit is 0 or 1). */
static void set_time_units(uint32_t unit, uint32_t coarse, const uint16_t *fine, size_t nfine) {
  lz_ev_time_mask = unit > 1 ? ~((uint64_t)unit - 1) : ~(uint64_t)0;
  lz_ev_coarse_mask = coarse > 1 ? ~((uint64_t)coarse - 1) : lz_ev_time_mask;
  memset(lz_ev_fine_bits, 0, sizeof lz_ev_fine_bits);
  for (size_t i = 0; i < nfine; i++)
    if (fine[i] <= LZ_EV_MAX_TYPE) lz_ev_fine_bits[fine[i] >> 3] |= (uint8_t)(1u << (fine[i] & 7));
}
static bool clock_started;

/* State of the open log, written only by open and close (no capability running);
 * ev_open also under global_lock, which guards the global buffer. */
static bool ev_open;
static unsigned ev_ncaps;
static LzEvBuf *ev_caps;
static LzEvBuf ev_global;
static LzEvBuf **ev_all; /* the ncaps buffers and the global one, for the writer */
static size_t max_var;
static int32_t type_size[LZ_EV_MAX_TYPE + 1]; /* payload bytes, LZ_EV_VAR, or -1 */
static pthread_mutex_t global_lock = PTHREAD_MUTEX_INITIALIZER;

void lz_ev_clock_start(void) {
  if (clock_started) return;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lz_ev_t0 = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
  clock_started = true;
}

/* ---- UTF-8 ----------------------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s (n bytes available), 0 if invalid
 * (overlong forms, surrogates and code points above U+10FFFF are invalid, as for
 * Data.Text's decoder). */
static size_t utf8_seq(const uint8_t *s, size_t n) {
  uint8_t c = s[0];
  size_t len;
  uint8_t lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else
    return 0;
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return len;
}

/* Bytes of s[0..n) that fit in `max` without cutting a character (invalid bytes count
 * one each: they become '?'). */
static size_t utf8_fit(const char *s, size_t n, size_t max) {
  const uint8_t *u = (const uint8_t *)s;
  size_t i = 0;
  while (i < n) {
    size_t k = utf8_seq(u + i, n - i);
    size_t step = k ? k : 1;
    if (i + step > max) break;
    i += step;
  }
  return i;
}

/* Copy n bytes (a utf8_fit length), invalid bytes as '?'. */
static uint8_t *utf8_copy(uint8_t *dst, const char *s, size_t n) {
  const uint8_t *u = (const uint8_t *)s;
  size_t i = 0;
  while (i < n) {
    size_t k = utf8_seq(u + i, n - i);
    if (k) {
      memcpy(dst, u + i, k);
      dst += k;
      i += k;
    } else {
      *dst++ = '?';
      i++;
    }
  }
  return dst;
}

/* ---- fixed-size events (the out-of-line halves of eventlog.h's functions) ------------- */

void lz_ev__post_tid(LzEvBuf *eb, uint16_t type, uint32_t tid) {
  lz_ev_put32(lz_ev_begin(eb, type, 4), tid);
}

void lz_ev__post_tid_cap(LzEvBuf *eb, uint16_t type, uint32_t tid, uint16_t cap) {
  lz_ev_put16(lz_ev_put32(lz_ev_begin(eb, type, 6), tid), cap);
}

void lz_ev__post_empty(LzEvBuf *eb, uint16_t type) { lz_ev_begin(eb, type, 0); }

void lz_ev__post_cap(LzEvBuf *eb, uint16_t type, uint16_t cap) {
  lz_ev_put16(lz_ev_begin(eb, type, 2), cap);
}

void lz_ev__post_capset_u64(LzEvBuf *eb, uint16_t type, uint32_t capset, uint64_t v) {
  lz_ev_put64(lz_ev_put32(lz_ev_begin(eb, type, 12), capset), v);
}

void lz_ev__post_stop(LzEvBuf *eb, uint32_t tid, uint16_t status, uint32_t blocked_on) {
  uint8_t *p = lz_ev_begin(eb, LZ_EVT_STOP_THREAD, 10);
  lz_ev_put32(lz_ev_put16(lz_ev_put32(p, tid), status), blocked_on);
}

void lz_ev_spark_counters(LzEvBuf *eb, const LzEvSparkCounters *c) {
  if (LZ_EV_OFF(eb)) return;
  uint8_t *p = lz_ev_begin(eb, LZ_EVT_SPARK_COUNTERS, 56);
  p = lz_ev_put64(p, c->created);
  p = lz_ev_put64(p, c->dud);
  p = lz_ev_put64(p, c->overflowed);
  p = lz_ev_put64(p, c->converted);
  p = lz_ev_put64(p, c->gcd);
  p = lz_ev_put64(p, c->fizzled);
  lz_ev_put64(p, c->remaining);
}

/* ---- variable-size and rare events ----------------------------------------------------- */

/* Start a variable-size event with a `len`-byte payload (len <= max_var). */
static uint8_t *begin_var(LzEvBuf *eb, uint16_t type, size_t len) {
  uint8_t *p = lz_ev_begin(eb, type, 2 + len);
  return lz_ev_put16(p, (uint16_t)len);
}

/* type: [u32 prefix when has_prefix] text */
static void post_text(LzEvBuf *eb, uint16_t type, bool has_prefix, uint32_t prefix,
                      const char *text, size_t n) {
  if (LZ_EV_OFF(eb)) return;
  size_t room = max_var - (has_prefix ? 4 : 0);
  size_t len = utf8_fit(text ? text : "", text ? n : 0, room);
  uint8_t *p = begin_var(eb, type, len + (has_prefix ? 4 : 0));
  if (has_prefix) p = lz_ev_put32(p, prefix);
  utf8_copy(p, text, len);
}

void lz_ev_user_msg(LzEvBuf *eb, const char *text, size_t n) {
  post_text(eb, LZ_EVT_USER_MSG, false, 0, text, n);
}
void lz_ev_user_marker(LzEvBuf *eb, const char *text, size_t n) {
  post_text(eb, LZ_EVT_USER_MARKER, false, 0, text, n);
}
void lz_ev_log_msg(LzEvBuf *eb, const char *text, size_t n) {
  post_text(eb, LZ_EVT_LOG_MSG, false, 0, text, n);
}
void lz_ev_thread_label(LzEvBuf *eb, uint32_t tid, const char *label) {
  post_text(eb, LZ_EVT_THREAD_LABEL, true, tid, label, label ? strlen(label) : 0);
}

/* capset, then each string followed by NUL; strings that do not fit are dropped (the
 * last one that partly fits is cut). */
static void post_strings(LzEvBuf *eb, uint16_t type, uint32_t capset, int n, char *const *v) {
  size_t room = max_var - 4, len = 0;
  int count = 0;
  for (; count < n && v[count] && len < room; count++)
    len += utf8_fit(v[count], strlen(v[count]), room - len - 1) + 1;
  uint8_t *p = lz_ev_put32(begin_var(eb, type, 4 + len), capset);
  size_t used = 0;
  for (int i = 0; i < count; i++) {
    size_t k = utf8_fit(v[i], strlen(v[i]), room - used - 1);
    p = utf8_copy(p, v[i], k);
    *p++ = 0;
    used += k + 1;
  }
}

void lz_ev_heap_info(LzEvBuf *eb, uint16_t generations, uint64_t max_heap, uint64_t alloc_area,
                     uint64_t mblock, uint64_t block) {
  if (LZ_EV_OFF(eb)) return;
  uint8_t *p = lz_ev_begin(eb, LZ_EVT_HEAP_INFO_GHC, 38);
  p = lz_ev_put16(lz_ev_put32(p, LZ_EV_CAPSET_PROCESS), generations);
  p = lz_ev_put64(lz_ev_put64(p, max_heap), alloc_area);
  lz_ev_put64(lz_ev_put64(p, mblock), block);
}

static void capset_cap(LzEvBuf *eb, uint16_t type, uint32_t capset, uint16_t v) {
  if (LZ_EV_OFF(eb)) return;
  lz_ev_put16(lz_ev_put32(lz_ev_begin(eb, type, 6), capset), v);
}
void lz_ev_capset_create(LzEvBuf *eb, uint32_t capset, uint16_t type) {
  capset_cap(eb, LZ_EVT_CAPSET_CREATE, capset, type);
}
void lz_ev_capset_assign_cap(LzEvBuf *eb, uint32_t capset, uint16_t cap) {
  capset_cap(eb, LZ_EVT_CAPSET_ASSIGN_CAP, capset, cap);
}
void lz_ev_capset_remove_cap(LzEvBuf *eb, uint32_t capset, uint16_t cap) {
  capset_cap(eb, LZ_EVT_CAPSET_REMOVE_CAP, capset, cap);
}
void lz_ev_capset_delete(LzEvBuf *eb, uint32_t capset) {
  if (LZ_EV_OFF(eb)) return;
  lz_ev_put32(lz_ev_begin(eb, LZ_EVT_CAPSET_DELETE, 4), capset);
}

static void post_capset_u32(LzEvBuf *eb, uint16_t type, uint32_t capset, uint32_t v) {
  lz_ev_put32(lz_ev_put32(lz_ev_begin(eb, type, 8), capset), v);
}

int lz_event_custom(LzEvBuf *eb, uint16_t type, const void *payload, size_t len) {
  if (!eb || type > LZ_EV_MAX_TYPE || type_size[type] < 0 || type == LZ_EVT_BLOCK_MARKER) return -1;
  uint8_t *p;
  if (type_size[type] == LZ_EV_VAR) {
    if (len > max_var) return -1;
    p = begin_var(eb, type, len);
  } else {
    if (len != (size_t)type_size[type]) return -1;
    p = lz_ev_begin(eb, type, len);
  }
  if (len) memcpy(p, payload, len);
  return 0;
}

size_t lz_ev_max_var_payload(void) { return max_var; }

/* ---- buffers ---------------------------------------------------------------------------- */

LzEvBuf *lz_ev_cap_buf(unsigned cap) { return ev_open && cap < ev_ncaps ? &ev_caps[cap] : NULL; }

LzEvBuf *lz_ev_global_begin(void) {
  pthread_mutex_lock(&global_lock);
  if (ev_open) return &ev_global;
  pthread_mutex_unlock(&global_lock);
  return NULL;
}

void lz_ev_global_end(LzEvBuf *g) {
  if (g) pthread_mutex_unlock(&global_lock);
}

bool lz_eventlog_is_open(void) { return ev_open; }

bool lz_eventlog_parse_classes(const char *s, uint32_t *mask) {
  for (; *s; s++) {
    bool off = *s == '-';
    if (off && !*++s) return false;
    uint32_t bit;
    switch (*s) {
    case 's': bit = LZ_EVC_SCHED; break;
    case 'g': bit = LZ_EVC_GC; break;
    case 'p': bit = LZ_EVC_SPARKS; break;
    case 'f': bit = LZ_EVC_SPARKS_FULL; break;
    case 'u': bit = LZ_EVC_USER; break;
    case 'a': bit = LZ_EVC_ALL; break;
    case 'n': bit = 0; break; /* GHC's non-moving GC events: none here */
    default: return false;
    }
    *mask = off ? *mask & ~bit : *mask | bit;
  }
  return true;
}

/* ---- open and close ----------------------------------------------------------------------- */

typedef struct Bytes {
  uint8_t *p;
  size_t n, cap;
  bool oom;
} Bytes;

static uint8_t *bytes_room(Bytes *b, size_t k) {
  if (b->n + k > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->n + k)
      cap *= 2;
    uint8_t *q = realloc(b->p, cap);
    if (!q) {
      b->oom = true;
      b->n = 0;
      return b->p; /* keep writing into the old space; the result is discarded */
    }
    b->p = q;
    b->cap = cap;
  }
  uint8_t *r = b->p + b->n;
  b->n += k;
  return r;
}

static void header_type(Bytes *b, uint16_t num, uint16_t size, const char *desc) {
  size_t dl = strlen(desc);
  uint8_t *p = bytes_room(b, 4 + 2 + 2 + 4 + dl + 4 + 4);
  p = lz_ev_put16(lz_ev_put32(p, ET_BEGIN), num);
  p = lz_ev_put32(lz_ev_put16(p, size), (uint32_t)dl);
  memcpy(p, desc, dl);
  lz_ev_put32(lz_ev_put32(p + dl, 0), ET_END); /* no extra info */
}

/* The header: every declared type, then the data-begin marker. */
static bool write_header(const LzEvOptions *o) {
  Bytes b = {0};
  lz_ev_put32(lz_ev_put32(bytes_room(&b, 8), HEADER_BEGIN), HET_BEGIN);
  for (size_t i = 0; i < N_BUILTIN; i++) {
    bool terse = o->terse_types && builtin_types[i].num < LZ_EV_LZ_BASE;
    header_type(&b, builtin_types[i].num, builtin_types[i].size,
                terse ? "" : builtin_types[i].desc);
  }
  for (size_t i = 0; i < o->ntypes; i++)
    header_type(&b, o->types[i].num, o->types[i].size, o->types[i].desc);
  uint8_t *p = bytes_room(&b, 12);
  lz_ev_put32(lz_ev_put32(lz_ev_put32(p, HET_END), HEADER_END), DATA_BEGIN);
  bool ok = !b.oom && lz_evw_write_now(b.p, b.n);
  free(b.p);
  return ok;
}

static bool declare_types(const LzEvOptions *o) {
  for (size_t i = 0; i <= LZ_EV_MAX_TYPE; i++)
    type_size[i] = -1;
  for (size_t i = 0; i < N_BUILTIN; i++)
    type_size[builtin_types[i].num] = builtin_types[i].size;
  for (size_t i = 0; i < o->ntypes; i++) {
    const LzEvType *t = &o->types[i];
    if (t->num < LZ_EV_LZ_BASE || t->num > LZ_EV_MAX_TYPE || type_size[t->num] >= 0 || !t->desc ||
        (t->size != LZ_EV_VAR && t->size > LZ_EV_MAX_FIXED))
      return false;
    type_size[t->num] = t->size;
  }
  return true;
}

/* What GHC posts at start-up: capsets, capabilities, clock, process, arguments. */
static void post_process_events(int argc, char *const argv[], const LzEvOptions *o) {
  LzEvBuf *g = lz_ev_global_begin();
  lz_ev_capset_create(g, LZ_EV_CAPSET_PROCESS, CAPSET_TYPE_OSPROCESS);
  lz_ev_capset_create(g, LZ_EV_CAPSET_CLOCK, CAPSET_TYPE_CLOCKDOMAIN);
  for (unsigned c = 0; c < ev_ncaps; c++) {
    lz_ev_cap_create(g, (uint16_t)c);
    lz_ev_capset_assign_cap(g, LZ_EV_CAPSET_PROCESS, (uint16_t)c);
    lz_ev_capset_assign_cap(g, LZ_EV_CAPSET_CLOCK, (uint16_t)c);
  }
  /* Wall-clock time and the event's timestamp are taken together: they tie the log's
   * clock to the calendar. */
  struct timespec wall;
  clock_gettime(CLOCK_REALTIME, &wall);
  uint8_t *p = lz_ev_begin(g, LZ_EVT_WALL_CLOCK_TIME, 16);
  p = lz_ev_put64(lz_ev_put32(p, LZ_EV_CAPSET_CLOCK), (uint64_t)wall.tv_sec);
  lz_ev_put32(p, (uint32_t)wall.tv_nsec);
  post_capset_u32(g, LZ_EVT_OSPROCESS_PID, LZ_EV_CAPSET_PROCESS, (uint32_t)getpid());
  post_capset_u32(g, LZ_EVT_OSPROCESS_PPID, LZ_EV_CAPSET_PROCESS, (uint32_t)getppid());
  const char *id = o->rts_id ? o->rts_id : "Lz-0.1 rts_thr_l";
  post_text(g, LZ_EVT_RTS_IDENTIFIER, true, LZ_EV_CAPSET_PROCESS, id, strlen(id));
  post_strings(g, LZ_EVT_PROGRAM_ARGS, LZ_EV_CAPSET_PROCESS, argc, argv);
  if (o->envp) {
    int n = 0;
    while (o->envp[n])
      n++;
    post_strings(g, LZ_EVT_PROGRAM_ENV, LZ_EV_CAPSET_PROCESS, n, o->envp);
  }
  lz_ev_global_end(g);
}

/* Every buffer, the global one last. */
static LzEvBuf **all_buffers(void) {
  LzEvBuf **v = malloc(sizeof(LzEvBuf *) * (ev_ncaps + 1));
  if (v) {
    for (unsigned c = 0; c < ev_ncaps; c++)
      v[c] = &ev_caps[c];
    v[ev_ncaps] = &ev_global;
  }
  return v;
}

int lz_eventlog_open(const char *path, unsigned ncaps, int argc, char *const argv[],
                     const LzEvOptions *opt) {
  if (ev_open) {
    errno = EBUSY;
    return -1;
  }
  LzEvOptions o = {0};
  if (opt) o = *opt;
  if (ncaps < 1 || ncaps >= LZ_EV_CAP_GLOBAL || argc < 0 || (argc > 0 && !argv) ||
      (!o.sink && !path) || (o.time_unit_ns & (o.time_unit_ns - 1)) != 0 ||
      (o.coarse_unit_ns & (o.coarse_unit_ns - 1)) != 0 ||
      (o.coarse_unit_ns && o.coarse_unit_ns < o.time_unit_ns) || !declare_types(&o)) {
    errno = EINVAL;
    return -1;
  }
  size_t chunk = o.chunk_bytes ? o.chunk_bytes : DEFAULT_CHUNK_BYTES;
  if (chunk < MIN_CHUNK_BYTES) chunk = MIN_CHUNK_BYTES;
  if (chunk > ((size_t)1 << 30)) chunk = (size_t)1 << 30;
  max_var = chunk - LZ_EV_MARKER_BYTES - VAR_HEADER_BYTES;
  if (max_var > 0xffff) max_var = 0xffff;
  unsigned max_chunks = o.max_chunks ? o.max_chunks : 4 * ncaps + 8;
  if (max_chunks < ncaps + 3) /* every buffer's own chunk, plus room to swap */
    max_chunks = ncaps + 3;
  if (o.sink) {
    lz_evw_init(o.sink, o.sink_ctx, chunk, max_chunks);
  } else {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    lz_evw_init(lz_evw_file_sink, f, chunk, max_chunks);
  }
  lz_ev_clock_start();
  set_time_units(o.time_unit_ns, o.coarse_unit_ns, o.fine_types, o.nfine);

  int err = ENOMEM;
  ev_caps = aligned_alloc(64, sizeof(LzEvBuf) * ncaps);
  if (!ev_caps) goto fail;
  memset(ev_caps, 0, sizeof(LzEvBuf) * ncaps);
  ev_ncaps = ncaps;
  for (unsigned c = 0; c < ncaps; c++)
    ev_caps[c].cap = (uint16_t)c;
  ev_global.cap = LZ_EV_CAP_GLOBAL;
  ev_global.last = 0;
  ev_all = all_buffers();
  if (!ev_all) goto fail;
  err = EIO;
  if (!write_header(&o)) goto fail;
  err = lz_evw_start(ev_all, ncaps + 1);
  if (err) goto fail;
  pthread_mutex_lock(&global_lock);
  ev_open = true;
  pthread_mutex_unlock(&global_lock);
  lz_ev_classes = o.classes ? o.classes : LZ_EVC_DEFAULT;
  post_process_events(argc, argv, &o);
  return 0;

fail:
  free(ev_all);
  ev_all = NULL;
  free(ev_caps);
  ev_caps = NULL;
  ev_ncaps = 0;
  set_time_units(0, 0, NULL, 0);
  lz_evw_finish();
  errno = err;
  return -1;
}

int lz_eventlog_close(void) {
  if (!ev_open) return 0;
  LzEvBuf *g = lz_ev_global_begin();
  for (unsigned c = 0; c < ev_ncaps; c++) {
    lz_ev_capset_remove_cap(g, LZ_EV_CAPSET_PROCESS, (uint16_t)c);
    lz_ev_capset_remove_cap(g, LZ_EV_CAPSET_CLOCK, (uint16_t)c);
    lz_ev_cap_delete(g, (uint16_t)c);
  }
  lz_ev_capset_delete(g, LZ_EV_CAPSET_PROCESS);
  lz_ev_capset_delete(g, LZ_EV_CAPSET_CLOCK);
  ev_open = false; /* under global_lock: late lz_ev_global_begin calls get NULL */
  lz_ev_global_end(g);

  bool ok = lz_evw_stop(ev_all, ev_ncaps + 1);
  uint8_t end[2];
  lz_ev_put16(end, DATA_END);
  ok = lz_evw_write_now(end, 2) && ok;
  ok = lz_evw_finish() && ok;
  free(ev_all);
  ev_all = NULL;
  free(ev_caps);
  ev_caps = NULL;
  ev_ncaps = 0;
  lz_ev_classes = 0;
  set_time_units(0, 0, NULL, 0);
  return ok ? 0 : -1;
}

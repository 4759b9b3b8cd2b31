/* replay_dup.c — the duplicate-work detector of `+RTS --replay=LOG --dup-report=FILE`:
 * the detector proper (lz_dup_core_*: tables of pending evaluations, sparks and watched
 * thunks, the recorded clock, the report) and the hooks that feed it from the runtime
 * (replay_dup_hooks.c). Definitions, the time model and the file format: Note [Duplicate
 * work] in docs/notes/lzprof.md. Replay runs one capability at a time, so no locks.
 */
#include "replay_dup.h"

#if LZ_REPLAY
#include <stdlib.h>
#include <string.h>

#include "replay_step.h" /* lz_step_fmt_thunk / _spark: ids as the stepper shows them */
#include "spark_sites.h" /* lz_srcloc */

/* ---- the recorded clock -------------------------------------------------------------------
 * A position is (capability, its slice, allocation count). Its time interpolates the
 * slice's recorded start and end by the allocation the replay reproduces exactly; its
 * thread's own clock adds the recorded lengths of the thread's earlier slices. */
typedef struct Slice {
  uint64_t t0, t1, a0, a1, acc; /* acc: the thread's recorded run time before this slice */
  bool has_end;
} Slice;
typedef struct Pos {
  uint32_t cap, slice; /* slice: NO_SLICE before the capability's first */
  uint64_t alloc;
} Pos;
#define NO_SLICE UINT32_MAX

typedef struct CapClock {
  Slice *s;
  size_t n, room;
} CapClock;

static unsigned ncaps;
static uint64_t run_ns;
static CapClock *clocks;
static uint64_t *thread_ns; /* by thread: recorded run time of its slices begun so far */
static size_t n_threads;
static Pos *thread_last; /* by thread: the end of its latest slice (alloc UINT64_MAX) */
static size_t n_last;

static void *grow(void *p, size_t *room, size_t need, size_t elem) {
  if (need <= *room) return p;
  size_t r = *room ? *room : 16;
  while (r < need)
    r *= 2;
  void *q = realloc(p, r * elem);
  if (!q) {
    fprintf(stderr, "--dup-report: out of memory\n");
    exit(3);
  }
  memset((char *)q + *room * elem, 0, (r - *room) * elem);
  *room = r;
  return q;
}

static Pos pos_now(unsigned cap, uint64_t alloc) {
  CapClock *c = cap < ncaps ? &clocks[cap] : NULL;
  return (Pos){cap, c && c->n ? (uint32_t)(c->n - 1) : NO_SLICE, alloc};
}

/* its time on the original clock, and its thread's own clock */
static void pos_time(Pos p, const uint64_t *final_alloc, uint64_t *t, uint64_t *own) {
  if (p.cap >= ncaps || p.slice == NO_SLICE) {
    *t = *own = 0;
    return;
  }
  const Slice *s = &clocks[p.cap].s[p.slice];
  uint64_t a1 = s->has_end || !final_alloc ? s->a1 : final_alloc[p.cap];
  uint64_t dt = 0;
  if (a1 > s->a0 && s->t1 > s->t0 && p.alloc > s->a0) {
    uint64_t da = p.alloc < a1 ? p.alloc - s->a0 : a1 - s->a0;
    dt = (uint64_t)((long double)(s->t1 - s->t0) * da / (a1 - s->a0));
  }
  *t = s->t0 + dt;
  *own = s->acc + dt;
}

/* ---- open-addressing tables keyed by (object, thread) ----------------------------------- */
typedef struct Slot {
  uintptr_t obj; /* 0: empty */
  uint32_t tid;
  uint32_t val; /* watched: 1 + spark index | UPDATED; pending: index in `entries` */
} Slot;
#define UPDATED  (1u << 31)
#define SPARK(v) ((v) & ~UPDATED) /* 1 + index */
typedef struct Table {
  Slot *s;
  size_t mask, n;
} Table;

static size_t hash(uintptr_t obj, uint32_t tid) {
  uint64_t h = ((uint64_t)obj >> 3) ^ ((uint64_t)tid << 40);
  return (size_t)((h * UINT64_C(0x9E3779B97F4A7C15)) >> 17);
}

static void table_free(Table *t) {
  free(t->s);
  *t = (Table){0};
}

static Slot *table_find(Table *t, uintptr_t obj, uint32_t tid) {
  if (!t->s) return NULL;
  for (size_t i = hash(obj, tid) & t->mask;; i = (i + 1) & t->mask) {
    if (!t->s[i].obj) return NULL;
    if (t->s[i].obj == obj && t->s[i].tid == tid) return &t->s[i];
  }
}

static Slot *table_put(Table *t, uintptr_t obj, uint32_t tid);

static void table_resize(Table *t, size_t size) {
  Table old = *t;
  t->s = calloc(size, sizeof(Slot));
  if (!t->s) {
    fprintf(stderr, "--dup-report: out of memory\n");
    exit(3);
  }
  t->mask = size - 1;
  t->n = 0;
  for (size_t i = 0; old.s && i <= old.mask; i++)
    if (old.s[i].obj) *table_put(t, old.s[i].obj, old.s[i].tid) = old.s[i];
  free(old.s);
}

static Slot *table_put(Table *t, uintptr_t obj, uint32_t tid) {
  if (!t->s || 2 * (t->n + 1) > t->mask + 1) table_resize(t, t->s ? 2 * (t->mask + 1) : 1024);
  size_t i = hash(obj, tid) & t->mask;
  for (; t->s[i].obj; i = (i + 1) & t->mask)
    if (t->s[i].obj == obj && t->s[i].tid == tid) return &t->s[i];
  t->n++;
  t->s[i] = (Slot){.obj = obj, .tid = tid};
  return &t->s[i];
}

/* linear probing: delete by shifting the following cluster back */
static void table_del(Table *t, Slot *x) {
  size_t i = (size_t)(x - t->s), j = i;
  t->s[i].obj = 0;
  t->n--;
  for (;;) {
    j = (j + 1) & t->mask;
    if (!t->s[j].obj) return;
    size_t k = hash(t->s[j].obj, t->s[j].tid) & t->mask;
    /* does k lie cyclically in (i, j]? then the slot stays */
    if (i <= j ? (i < k && k <= j) : (i < k || k <= j)) continue;
    t->s[i] = t->s[j];
    t->s[j].obj = 0;
    i = j;
  }
}

/* ---- what was found ----------------------------------------------------------------------- */
typedef struct Waste {
  bool spark;  /* a spark thrown away; else a duplicate evaluation */
  bool cut;    /* a duplicate evaluation still running at exit (lz_dup_core_cut_off) */
  uint64_t id; /* the thunk's id (0: none) */
  uint64_t spark_id;
  const LzInfo *info;
  uint32_t tid;
  Pos start, end;
} Waste;

typedef enum { SP_RUNNING, SP_DONE } SparkState;
typedef struct Spark {
  Waste w;
  uintptr_t obj;
  SparkState state;
  bool used;
} Spark;

/* (thunk, thread) -> where that thread began evaluating it (an Entry; freed ones are
 * listed in `free_entries`) */
typedef struct Entry {
  Pos pos;
  uint64_t id;
  const LzInfo *info;
} Entry;
static Table pending;
static Entry *entries;
static size_t n_entries, entries_room;
static uint32_t *free_entries;
static size_t n_free, free_room;
/* (thunk, 0) -> the spark whose work it is, and whether it has been updated */
static Table watched;
static Waste *dups;
static size_t n_dups, dups_room;
static Spark *sparks;
static size_t n_sparks, sparks_room;
static uint32_t *running; /* by thread: 1 + the spark it runs, 0 none */
static size_t running_room;

void lz_dup_core_reset(unsigned caps, uint64_t end_ns) {
  for (unsigned c = 0; c < ncaps; c++)
    free(clocks[c].s);
  free(clocks);
  free(thread_ns);
  free(thread_last);
  free(dups);
  free(sparks);
  free(running);
  table_free(&pending);
  table_free(&watched);
  free(entries);
  free(free_entries);
  entries = NULL, n_entries = entries_room = 0;
  free_entries = NULL, n_free = free_room = 0;
  thread_ns = NULL, n_threads = 0;
  thread_last = NULL, n_last = 0;
  dups = NULL, n_dups = dups_room = 0;
  sparks = NULL, n_sparks = sparks_room = 0;
  running = NULL, running_room = 0;
  ncaps = caps;
  run_ns = end_ns;
  clocks = calloc(caps ? caps : 1, sizeof *clocks);
  if (!clocks) exit(3);
}

static uint64_t *thread_clock(uint32_t tid) {
  thread_ns = grow(thread_ns, &n_threads, (size_t)tid + 1, sizeof *thread_ns);
  return &thread_ns[tid];
}

void lz_dup_core_slice(unsigned cap, uint32_t tid, uint64_t t0, uint64_t a0, uint64_t t1,
                       uint64_t a1, bool has_end) {
  if (cap >= ncaps) return;
  CapClock *c = &clocks[cap];
  c->s = grow(c->s, &c->room, c->n + 1, sizeof(Slice));
  uint64_t *acc = thread_clock(tid);
  if (!has_end) t1 = run_ns;
  if (t1 < t0) t1 = t0;
  c->s[c->n++] = (Slice){t0, t1, a0, a1, *acc, has_end};
  *acc += t1 - t0;
  thread_last = grow(thread_last, &n_last, (size_t)tid + 1, sizeof *thread_last);
  thread_last[tid] = (Pos){cap, (uint32_t)(c->n - 1), UINT64_MAX}; /* pos_time: its end */
}

static uint32_t spark_of(uint32_t tid) {
  return tid < running_room && running[tid] ? running[tid] : 0; /* 1 + index */
}

/* the thunk obj belongs to spark k's work (or is its closure): watch it */
static void watch(uintptr_t obj, uint32_t k, bool updated) {
  table_put(&watched, obj, 0)->val = k | (updated ? UPDATED : 0);
}

static void spark_used(Slot *w, uint32_t tid) {
  Spark *s = &sparks[SPARK(w->val) - 1];
  if (tid && tid == s->w.tid && s->state == SP_RUNNING) return; /* its own thread */
  s->used = true;
}

void lz_dup_core_enter(unsigned cap, uint32_t tid, uintptr_t obj, uint64_t id, const LzInfo *info,
                       uint64_t alloc) {
  Slot *p = table_put(&pending, obj, tid);
  if (p->val == 0) { /* a new slot: take an entry */
    if (n_free) {
      p->val = free_entries[--n_free];
    } else {
      entries = grow(entries, &entries_room, n_entries + 2, sizeof(Entry));
      if (!n_entries) n_entries = 1; /* entry 0 means "none" */
      p->val = (uint32_t)n_entries++;
    }
  }
  entries[p->val] = (Entry){pos_now(cap, alloc), id, info};
  Slot *w = table_find(&watched, obj, 0);
  if (w && (w->val & UPDATED)) /* updated, yet entered as a thunk: the address was reused */
    table_del(&watched, w), w = NULL;
  uint32_t k = spark_of(tid);
  if (w && SPARK(w->val) != k)
    spark_used(w, tid); /* another thread wants a thunk a spark is evaluating */
  else if (!w && k)
    watch(obj, k, false);
}

static void drop_pending(Slot *p) {
  free_entries = grow(free_entries, &free_room, n_free + 1, sizeof *free_entries);
  free_entries[n_free++] = p->val;
  table_del(&pending, p);
}

void lz_dup_core_unenter(uint32_t tid, uintptr_t obj) {
  Slot *p = table_find(&pending, obj, tid);
  if (p) drop_pending(p);
}

void lz_dup_core_cut_off(bool (*updated)(uintptr_t obj)) {
  for (size_t i = 0; pending.s && i <= pending.mask; i++) {
    const Slot *p = &pending.s[i];
    if (!p->obj || !updated(p->obj)) continue;
    const Entry *e = &entries[p->val];
    Pos end = p->tid < n_last ? thread_last[p->tid] : e->pos;
    dups = grow(dups, &dups_room, n_dups + 1, sizeof(Waste));
    dups[n_dups++] = (Waste){false, true, e->id, 0, e->info, p->tid, e->pos, end};
  }
}

void lz_dup_core_spark(unsigned cap, uint32_t tid, uintptr_t obj, uint64_t spark, uint64_t id,
                       const LzInfo *info, uint64_t alloc) {
  sparks = grow(sparks, &sparks_room, n_sparks + 1, sizeof(Spark));
  Spark *s = &sparks[n_sparks++];
  *s = (Spark){{true, false, id, spark, info, tid, pos_now(cap, alloc), {0, NO_SLICE, 0}},
               obj,
               SP_RUNNING,
               false};
  running = grow(running, &running_room, (size_t)tid + 1, sizeof *running);
  running[tid] = (uint32_t)n_sparks;
  Slot *w = table_find(&watched, obj, 0);
  if (w) table_del(&watched, w); /* a stale entry: this object is a spark's closure now */
  watch(obj, (uint32_t)n_sparks, false);
}

bool lz_dup_core_update(unsigned cap, uint32_t tid, uintptr_t obj, bool already, bool waited,
                        uint64_t alloc) {
  Pos now = pos_now(cap, alloc);
  Slot *p = table_find(&pending, obj, tid);
  Waste w = {false, false, 0, 0, NULL, tid, now, now};
  if (p) {
    const Entry *e = &entries[p->val];
    w.id = e->id, w.info = e->info, w.start = e->pos;
    drop_pending(p);
  }
  Slot *ws = table_find(&watched, obj, 0);
  if (ws && (ws->val & UPDATED) && !already) /* updated before, a thunk again: reused */
    table_del(&watched, ws), ws = NULL;
  uint32_t k = spark_of(tid);
  if (ws && (already || waited)) /* another thread evaluated it too, or waits for it */
    sparks[SPARK(ws->val) - 1].used = true;
  else if (ws && SPARK(ws->val) != k)
    spark_used(ws, tid);
  if (already) { /* duplicate work: the thunk was updated by another evaluation */
    dups = grow(dups, &dups_room, n_dups + 1, sizeof(Waste));
    dups[n_dups++] = w;
    return false;
  }
  if (!k) return false;
  Spark *s = &sparks[k - 1];
  watch(obj, k, true);
  if (obj == s->obj && s->state == SP_RUNNING) { /* the spark's own closure: its work ends */
    s->state = SP_DONE;
    s->w.end = now;
    running[tid] = 0;
  }
  return true;
}

bool lz_dup_core_hit(uint32_t tid, uintptr_t obj) {
  Slot *w = table_find(&watched, obj, 0);
  if (!w) return true;
  Spark *s = &sparks[SPARK(w->val) - 1];
  if (tid && tid == s->w.tid && s->state == SP_RUNNING) return false; /* keep watching */
  s->used = true;
  table_del(&watched, w); /* nothing more to learn from it */
  return true;
}

void lz_dup_core_counts(size_t *n_dup, size_t *n_spark) {
  size_t k = 0;
  for (size_t i = 0; i < n_sparks; i++)
    k += sparks[i].state == SP_DONE && !sparks[i].used;
  *n_dup = n_dups;
  *n_spark = k;
}

/* ---- the report ------------------------------------------------------------------------- */

static void site(char *out, size_t n, const LzInfo *info) {
  const char *loc = info ? lz_srcloc(info->srcloc) : NULL;
  const char *name = info && info->name ? info->name : "?";
  snprintf(out, n, "%s%s%s", name, loc ? " " : "", loc ? loc : "");
  for (char *q = out; *q; q++)
    if (*q == '\t' || *q == '\n') *q = ' ';
}

static void put(FILE *f, const Waste *w, const uint64_t *final_alloc) {
  uint64_t t0, t1, own0, own1;
  pos_time(w->start, final_alloc, &t0, &own0);
  pos_time(w->end, final_alloc, &t1, &own1);
  char th[48] = "-", sp[48] = "-", where[512];
  if (w->id) lz_step_fmt_thunk(th, sizeof th, w->id);
  if (w->spark) lz_step_fmt_spark(sp, sizeof sp, w->spark_id);
  site(where, sizeof where, w->info);
  fprintf(f, "%s\t%s\t%s\t%u\t%u\t%llu\t%llu\t%llu\t%s\n",
          w->spark ? "spark"
          : w->cut ? "cutoff"
                   : "dup",
          th, sp, w->end.cap, w->tid, (unsigned long long)t0,
          (unsigned long long)(t1 > t0 ? t1 : t0),
          (unsigned long long)(own1 > own0 ? own1 - own0 : 0), where);
}

int lz_dup_core_write(FILE *f, const char *prog, const uint64_t *final_alloc) {
  size_t n_dup, n_thrown;
  lz_dup_core_counts(&n_dup, &n_thrown);
  size_t unfinished = 0; /* still running at exit, their work not used so far */
  for (size_t i = 0; i < n_sparks; i++)
    unfinished += sparks[i].state == SP_RUNNING && !sparks[i].used;
  fprintf(f, "%s\nprogram\t%s\ncapabilities\t%u\nrun_ns\t%llu\nsparks_run\t%zu\n", LZ_DUP_MAGIC,
          prog ? prog : "?", ncaps, (unsigned long long)run_ns, n_sparks);
  fprintf(f, "sparks_unfinished\t%zu\n", unfinished);
  fprintf(f, "# kind\tthunk\tspark\tcap\tthread\tstart_ns\tend_ns\twasted_ns\tsite\n");
  for (size_t i = 0; i < n_dups; i++)
    put(f, &dups[i], final_alloc);
  for (size_t i = 0; i < n_sparks; i++)
    if (sparks[i].state == SP_DONE && !sparks[i].used) put(f, &sparks[i].w, final_alloc);
  fprintf(f, "end\t%zu\t%zu\n", n_dup, n_thrown);
  return ferror(f) ? -1 : 0;
}
#endif

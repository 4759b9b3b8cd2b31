/* prof.c — cost-centre stacks at run time (the -prof way): pushing, switching, the
 * restore frame, allocation and tick accounting, the +RTS flags, start and end.
 *
 * The current stack of a capability changes in three places only: an SCC is entered
 * (lz_prof_enter_scc pushes its cost centre), a thunk is entered (its stack, recorded when
 * it was allocated, becomes current: lz_prof_enter_thunk; a CAF runs under MAIN > CAF of
 * its module), and a frame {lz_prof_restore_frame_info, old} is returned through. Each
 * change pushes such a frame (unless one is already on top), so every other frame is
 * returned to under the stack current when it was pushed — GHC's rule that a case
 * continuation restores the cost-centre stack, without touching case frames.
 *
 * Allocation is charged by difference: whenever the current stack changes, the bytes the
 * capability allocated since the last change (cap->alloc_bytes, which generated code and
 * the runtime already keep exactly) go to the outgoing stack. Ticks come from a timer
 * thread that, every -V interval, adds one to the current stack of each capability that
 * is running Lz code. Note [Profiling] in docs/notes/profiling.md.
 */
#include "prof.h"
#include "rts_priv.h"
#if LZ_REPLAY
#include "replay.h"
#endif

#if LZ_PROF
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

LzProfCap lz_prof_caps[LZ_PROF_MAX_CAPS];
LzProfConfig lz_prof_config = {.tick_ns = 1000000};

static LzProfCC main_cc = {"MAIN", "MAIN", "<built-in>", 0};
LzCCS lz_prof_main_ccs = {.cc = &main_cc, .depth = 1};

static pthread_mutex_t tree_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t next_cc_id = 1;
static uint32_t next_ccs_id = 1;
static LzCCS *all_stacks = &lz_prof_main_ccs;

LzCCS *lz_prof_all_stacks(void) {
  pthread_mutex_lock(&tree_lock);
  LzCCS *s = all_stacks;
  pthread_mutex_unlock(&tree_lock);
  return s;
}

/* Stacks (but MAIN) are carved out of one reserved region, so that the heap profiler can
 * tell a stack from any other word by a range check (prof_heap.c reads a candidate word
 * of every live object with the world stopped: no lookup, no lock, no malloc there). */
#define CCS_ARENA_MAX ((size_t)1 << 20)
static LzCCS *ccs_arena;
static size_t ccs_used;

static LzCCS *new_ccs(void) { /* under tree_lock */
  if (!ccs_arena) {
    void *p = mmap(NULL, CCS_ARENA_MAX * sizeof(LzCCS), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ccs_arena = p == MAP_FAILED ? NULL : p;
  }
  if (ccs_arena && ccs_used < CCS_ARENA_MAX) return &ccs_arena[ccs_used++]; /* zeroed */
  LzCCS *r = calloc(1, sizeof *r); /* beyond a million stacks: not in heap profiles */
  if (!r) lz_heap_exhausted();
  return r;
}

bool lz_prof_is_ccs(const void *p) {
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)ccs_arena;
  if (p == &lz_prof_main_ccs) return true;
  return b && a >= b && a < b + ccs_used * sizeof(LzCCS) && (a - b) % sizeof(LzCCS) == 0;
}

static inline LzCCS *current(LzCap *cap) {
  LzCCS *c = atomic_load_explicit(&lz_prof_caps[cap->cap_no].ccs, memory_order_relaxed);
  return c ? c : &lz_prof_main_ccs;
}

static inline void add(_Atomic uint64_t *c, uint64_t n) {
  atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

/* Entries and allocation: only the running capability writes them, so the vanilla way
 * needs no locked instruction (the timer thread only adds ticks). */
static inline void add_own(_Atomic uint64_t *c, uint64_t n) {
#if LZ_THREADED
  add(c, n);
#else
  atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n, memory_order_relaxed);
#endif
}

/* Profiling a replay (see "profiling a replay" below). Per capability, the stacks that ran
 * since its last recorded event and the bytes each allocated (consecutive runs of one stack
 * merged), and whether Lz code ran at all (a thread that allocated nothing still takes the
 * time). Replay runs one capability at a time (the baton), so no lock. */
static bool replay_profile;
typedef struct Interval {
  LzCCS **ccs;
  uint64_t *bytes;
  size_t n, size;
  uint64_t last_ns; /* recorded time of the capability's previous event */
  bool ran;         /* a thread ran on it since then */
} Interval;
static Interval intervals[LZ_PROF_MAX_CAPS];
static uint64_t replay_end_ns; /* the recording's last event: closes slices cut off at exit */
static void interval_add(unsigned cap_no, LzCCS *ccs, uint64_t bytes);

void lz_prof_set(LzCap *cap, LzCCS *ccs) {
  LzProfCap *pc = &lz_prof_caps[cap->cap_no];
  uint64_t now = cap->alloc_bytes;
  add_own(&current(cap)->alloc, now - pc->mark);
  if (replay_profile) interval_add(cap->cap_no, current(cap), now - pc->mark);
  pc->mark = now;
  atomic_store_explicit(&pc->ccs, ccs, memory_order_relaxed);
}

/* ---- the tree ---------------------------------------------------------------------------- */

static LzCCS *memo_find(LzCCS *ccs, LzProfCC *cc) {
  for (LzCCSMemo *m = atomic_load_explicit(&ccs->memo, memory_order_acquire); m; m = m->next)
    if (m->cc == cc) return m->ccs;
  return NULL;
}

/* GHC's pushCostCentre: the same cost centre on top is this stack; a cost centre already
 * further down returns to the stack it tops (recursion is flattened); otherwise a child.
 * Results are memoised per stack, so the common case is a short list walk, no lock. */
LzCCS *lz_prof_push(LzCCS *ccs, LzProfCC *cc) {
  if (ccs->cc == cc) return ccs;
  LzCCS *r = memo_find(ccs, cc);
  if (r) return r;
  pthread_mutex_lock(&tree_lock);
  r = memo_find(ccs, cc);
  if (!r) {
    if (!cc->id) cc->id = next_cc_id++;
    for (LzCCS *s = ccs->prev; s && !r; s = s->prev)
      if (s->cc == cc) r = s;
    if (!r) {
      r = new_ccs();
      r->cc = cc;
      r->prev = ccs;
      r->depth = ccs->depth + 1;
      r->id = ++next_ccs_id;
      r->sibling = ccs->children;
      ccs->children = r;
      r->next_all = all_stacks;
      all_stacks = r;
    }
    LzCCSMemo *m = malloc(sizeof *m);
    if (!m) lz_heap_exhausted();
    m->cc = cc;
    m->ccs = r;
    m->next = atomic_load_explicit(&ccs->memo, memory_order_relaxed);
    atomic_store_explicit(&ccs->memo, m, memory_order_release);
  }
  pthread_mutex_unlock(&tree_lock);
  return r;
}

/* ---- switching stacks from generated code ---------------------------------------------- */

LZ_FN(lz_prof_restore_frame_entry) {
  lz_prof_set(cap, (LzCCS *)sp[1]);
  sp += 2;
  LZ_RETURN();
}

const LzInfo lz_prof_restore_frame_info = {
    lz_prof_restore_frame_entry, LZ_FRAME_RET, 0, 0, 1, 0, "restore CCS"};

static LzWord *switch_to(LzCap *cap, LzWord *sp, LzCCS *from, LzCCS *to) {
  if (to == from) return sp;
  if (sp[0] != (LzWord)&lz_prof_restore_frame_info) {
    if (sp - 2 < cap->sp_lim) sp = lz_stack_grow(cap, sp, 2);
    sp -= 2;
    sp[0] = (LzWord)&lz_prof_restore_frame_info;
    sp[1] = (LzWord)from;
  }
  lz_prof_set(cap, to);
  return sp;
}

LzWord *lz_prof_enter_scc(LzCap *cap, LzWord *sp, LzProfCC *cc) {
  LzCCS *from = current(cap), *to = lz_prof_push(from, cc);
  add_own(&to->entries, 1);
  return switch_to(cap, sp, from, to);
}

LzWord *lz_prof_enter_thunk(LzCap *cap, LzWord *sp, LzWord ccs) {
  LzCCS *to = ccs ? (LzCCS *)ccs : &lz_prof_main_ccs;
  return switch_to(cap, sp, current(cap), to);
}

LzWord *lz_prof_enter_caf(LzCap *cap, LzWord *sp, LzProfCC *caf) {
  return switch_to(cap, sp, current(cap), lz_prof_push(&lz_prof_main_ccs, caf));
}

/* ---- threads (the threaded way's scheduler) --------------------------------------------- */

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static LzCCS **thread_ccs; /* by thread id: the stack a stopped thread resumes under */
static uint32_t thread_cap;

void lz_prof_thread_run(LzCap *cap, uint32_t id) {
  LzProfCap *pc = &lz_prof_caps[cap->cap_no];
  LzCCS *c = NULL;
  pthread_mutex_lock(&threads_lock);
  if (id < thread_cap) c = thread_ccs[id];
  pthread_mutex_unlock(&threads_lock);
  pc->mark = cap->alloc_bytes; /* the scheduler's own allocation is nobody's */
  atomic_store_explicit(&pc->ccs, c, memory_order_relaxed);
  atomic_store_explicit(&pc->running, 1, memory_order_relaxed);
  if (replay_profile) intervals[cap->cap_no].ran = true;
}

void lz_prof_thread_stop(LzCap *cap, uint32_t id) {
  LzCCS *c = current(cap);
  lz_prof_set(cap, c); /* its allocation so far */
  pthread_mutex_lock(&threads_lock);
  if (id >= thread_cap) {
    uint32_t n = thread_cap ? thread_cap : 64;
    while (n <= id)
      n *= 2;
    LzCCS **t = realloc(thread_ccs, n * sizeof *t);
    if (!t) lz_heap_exhausted();
    memset(t + thread_cap, 0, (n - thread_cap) * sizeof *t);
    thread_ccs = t;
    thread_cap = n;
  }
  thread_ccs[id] = c;
  pthread_mutex_unlock(&threads_lock);
}

void lz_prof_cap_idle(LzCap *cap) {
  LzProfCap *pc = &lz_prof_caps[cap->cap_no];
  lz_prof_set(cap, current(cap)); /* finished threads: their last allocation */
  atomic_store_explicit(&pc->running, 0, memory_order_relaxed);
}

/* ---- ticks ---------------------------------------------------------------------------------- */

static void *tick_main(void *arg) {
  (void)arg;
  uint64_t ns = lz_prof_config.tick_ns;
  struct timespec d = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  for (;;) {
    nanosleep(&d, NULL);
    for (unsigned i = 0; i < lz_ncaps && i < LZ_PROF_MAX_CAPS; i++) {
      LzProfCap *pc = &lz_prof_caps[i];
      if (!atomic_load_explicit(&pc->running, memory_order_relaxed)) continue;
      LzCCS *c = atomic_load_explicit(&pc->ccs, memory_order_relaxed);
      add(&(c ? c : &lz_prof_main_ccs)->ticks, 1);
      add(&lz_prof_config.total_ticks, 1);
    }
  }
  return NULL;
}

/* ---- profiling a replay: Note [Profiling], "Profiling a replay" --------------------------- */

static void interval_add(unsigned cap_no, LzCCS *ccs, uint64_t bytes) {
  Interval *iv = &intervals[cap_no];
  if (iv->n && iv->ccs[iv->n - 1] == ccs) {
    iv->bytes[iv->n - 1] += bytes;
    return;
  }
  if (iv->n == iv->size) {
    iv->size = iv->size ? 2 * iv->size : 64;
    iv->ccs = realloc(iv->ccs, iv->size * sizeof *iv->ccs);
    iv->bytes = realloc(iv->bytes, iv->size * sizeof *iv->bytes);
    if (!iv->ccs || !iv->bytes) lz_heap_exhausted();
  }
  iv->ccs[iv->n] = ccs;
  iv->bytes[iv->n++] = bytes;
}

void lz_prof_replay_begin(const char *log, uint64_t end_ns) {
  lz_prof_config.replay_log = log;
  replay_end_ns = end_ns;
}

void lz_prof_replay_event(LzCap *cap, uint64_t orig_ns) {
  if (!replay_profile || cap->cap_no >= LZ_PROF_MAX_CAPS) return;
  Interval *iv = &intervals[cap->cap_no];
  bool running = atomic_load_explicit(&lz_prof_caps[cap->cap_no].running, memory_order_relaxed);
  if (running) lz_prof_set(cap, current(cap)); /* close the current run */
  uint64_t dt = orig_ns > iv->last_ns ? orig_ns - iv->last_ns : 0, total = 0;
  iv->last_ns = orig_ns;
  for (size_t i = 0; i < iv->n; i++)
    total += iv->bytes[i];
  if (!iv->ran) {
    /* idle in between (the scheduler, waiting for work): nobody's time, as the timer's */
  } else if (total == 0) {
    add(&(iv->n ? iv->ccs[iv->n - 1] : current(cap))->replay_ns, dt);
  } else {
    uint64_t given = 0;
    for (size_t i = 0; i < iv->n; i++) {
      uint64_t share = (uint64_t)((double)dt * (double)iv->bytes[i] / (double)total);
      add(&iv->ccs[i]->replay_ns, share);
      given += share;
    }
    add(&iv->ccs[iv->n - 1]->replay_ns, dt - given); /* rounding: to the last one */
  }
  iv->n = 0;
  iv->ran = running;
}

/* ---- flags, start, end -------------------------------------------------------------------- */

int lz_prof_flag(const char *a, char *err, unsigned long errlen) {
  if (a[1] == 'h' || a[1] == 'i') return lz_prof_heap_flag(a, err, errlen);
  if (a[1] == 'p') {
    if (!a[2])
      lz_prof_config.report = 1;
    else if (!strcmp(a + 2, "a"))
      lz_prof_config.report = 2;
    else if (!strcmp(a + 2, "j"))
      lz_prof_config.report = 3;
    else {
      snprintf(err, errlen, "unknown RTS option: %s", a);
      return 1;
    }
    return 0;
  }
  /* -V<secs> */
  char *end;
  double secs = strtod(a + 2, &end);
  if (!a[2] || *end || !(secs >= 0) || secs > 3600) {
    snprintf(err, errlen, "bad value for -V: %s", a + 2);
    return 1;
  }
  lz_prof_config.tick_ns = secs > 0 ? (uint64_t)(secs * 1e9) : 1000000u;
  if (lz_prof_config.tick_ns < 10000)
    lz_prof_config.tick_ns = 10000; /* 10 us: a finer timer only measures itself */
  return 0;
}

void lz_prof_flags_keep(int restore) {
  static int report;
  static uint64_t tick_ns;
  static LzProfHeapFlags heap;
  if (restore) {
    lz_prof_config.report = report;
    lz_prof_config.tick_ns = tick_ns;
    lz_prof_heap_flags = heap;
  } else {
    report = lz_prof_config.report;
    tick_ns = lz_prof_config.tick_ns;
    heap = lz_prof_heap_flags;
  }
}

void lz_prof_start(int argc, char **argv) {
  lz_prof_config.argc = argc;
  lz_prof_config.argv = argv;
  for (unsigned i = 0; i < lz_ncaps && i < LZ_PROF_MAX_CAPS; i++) {
    lz_prof_caps[i].mark = lz_caps[i]->alloc_bytes;
    atomic_store(&lz_prof_caps[i].ccs, &lz_prof_main_ccs);
  }
  main_cc.id = next_cc_id++;
  lz_prof_main_ccs.id = 1;
#if !LZ_THREADED
  atomic_store(&lz_prof_caps[0].running, 1); /* the one thread runs from now to the end */
#endif
#if LZ_REPLAY
  if (lz_replay_mode == LZ_RPL_RECORD && (lz_prof_config.report || lz_prof_heap_flags.by_ccs)) {
    /* the recording is the same log as without -prof; its profile is the replay's */
    lz_message("-p and -hc are ignored while recording: profile the recorded run with --replay -p");
    lz_prof_config.report = 0;
    lz_prof_heap_flags.by_ccs = 0;
  }
  replay_profile = lz_replaying && lz_prof_config.report;
  if (!replay_profile) lz_prof_config.replay_log = NULL;
#endif
  lz_prof_heap_start(argc, argv);
  if (!lz_prof_config.report || replay_profile)
    return; /* counters still run (cheap); no timer (a replay's time is the record's) */
  pthread_t tid;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&tid, &attr, tick_main, NULL) != 0)
    lz_die(1, "cannot start the profiling timer");
  pthread_attr_destroy(&attr);
}

void lz_prof_end(void) {
  for (unsigned i = 0; replay_profile && lz_main_cap && i < lz_ncaps && i < LZ_PROF_MAX_CAPS; i++)
    if (intervals[i].ran) /* a slice the recording cuts off (exit): to the log's end */
      lz_prof_replay_event(lz_caps[i], replay_end_ns);
  for (unsigned i = 0; lz_main_cap && i < lz_ncaps && i < LZ_PROF_MAX_CAPS; i++) {
    lz_prof_set(lz_caps[i], current(lz_caps[i]));
    atomic_store(&lz_prof_caps[i].running, 0);
  }
  lz_prof_heap_end();
  if (!lz_prof_config.report) return;
  if (replay_profile) { /* recorded time, in ticks of -V, rounded so that the total is */
    uint64_t sum = 0, done = 0, tick = lz_prof_config.tick_ns;
    for (LzCCS *s = all_stacks; s; s = s->next_all) {
      sum += s->replay_ns;
      uint64_t upto = (sum + tick / 2) / tick;
      atomic_store(&s->ticks, upto - done);
      done = upto;
    }
    atomic_store(&lz_prof_config.total_ticks, done);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s.prof", lz_prog_name);
  lz_prof_write_report(path, lz_ncaps);
}

#endif

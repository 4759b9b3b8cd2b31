/* prof_heap.c — heap profile by cost-centre stack (+RTS -hc [-i<secs>], the -prof ways):
 * GHC's `.hp` file, which hp2ps draws.
 *
 * A sampler thread (registered with Boehm) wakes every -i interval (default 0.1 s, as
 * GHC) and forces a full collection, as GHC forces a major GC per sample. When that
 * collection's mark phase ends — the world stopped, the mark bits exact — a hook chained
 * onto Boehm's collection events walks the reachable objects
 * (GC_enumerate_reachable_objects_inner) and adds each object's size to the cost-centre
 * stack it carries. In this way only thunks carry one (their last word, Note [Profiling],
 * "Layout"): an unevaluated thunk, or one being evaluated (a BLACKHOLE whose spare word
 * still holds the thunk's info table), is charged to the stack that allocated it; every
 * other closure (constructors, functions, PAPs, evaluated thunks) goes to one band,
 * `(no_ccs)`. Nothing is allocated while the world is stopped: the costs go into the
 * stacks' `heap_bytes`, and the sampler writes the sample after the collection. Words are
 * recognised without dereferencing guesses: an info pointer must lie in a loaded segment of
 * the executable, a stack in the profiler's stack region (lz_prof_is_ccs). Note
 * [Profiling], "Heap profile", in docs/notes/profiling.md.
 */
#include "prof.h"
#include "rts_priv.h"

#if LZ_PROF
#include <gc/gc_mark.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

LzProfHeapFlags lz_prof_heap_flags = {.interval_ns = 100000000u};

static FILE *hp;
static pthread_mutex_t hp_lock = PTHREAD_MUTEX_INITIALIZER;
static struct timespec t0;
static GC_on_collection_event_proc chained; /* heap.c's hook */
static volatile int want_sample;            /* set by the sampler before its collection */
static uint64_t other_bytes;                /* closures without a stack, this sample */
static uint64_t walk_ns;                    /* time spent walking, over all samples */
static unsigned n_samples;

/* ---- flags ------------------------------------------------------------------------------ */

int lz_prof_heap_flag(const char *a, char *err, unsigned long errlen) {
  if (a[1] == 'h') { /* -h alone is -hc, as in GHC's profiling ways */
    if (a[2] && strcmp(a + 2, "c")) {
      snprintf(err, errlen, "heap profile %s is not supported (only -hc, by cost-centre stack)", a);
      return 1;
    }
    lz_prof_heap_flags.by_ccs = 1;
    return 0;
  }
  char *end;
  double secs = strtod(a + 2, &end);
  if (!a[2] || *end || !(secs > 0) || secs > 3600) {
    snprintf(err, errlen, "bad value for -i: %s (seconds, > 0)", a + 2);
    return 1;
  }
  lz_prof_heap_flags.interval_ns = secs < 0.001 ? 1000000u : (uint64_t)(secs * 1e9);
  return 0;
}

/* ---- recognising words ------------------------------------------------------------------ */

#define MAX_SEGS 16
static struct { uintptr_t lo, hi; } segs[MAX_SEGS];
static int nsegs;

static int find_segments(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size, (void)arg;
  for (int i = 0; i < info->dlpi_phnum && nsegs < MAX_SEGS; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_R)) continue;
    segs[nsegs].lo = info->dlpi_addr + ph->p_vaddr;
    segs[nsegs].hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    nsegs++;
  }
  return 1; /* the first object is the executable, where every info table is */
}

static const LzInfo *as_info(LzWord w) {
  if (w & 7) return NULL;
  for (int i = 0; i < nsegs; i++)
    if (w >= segs[i].lo && w + sizeof(LzInfo) <= segs[i].hi) return (const LzInfo *)w;
  return NULL;
}

/* The stack a closure carries: generated code ends every heap thunk, constructor and
 * function of the -prof way with the stack current at its allocation (a thunk's info size
 * counts that word, a constructor's or function's does not). Objects the runtime makes
 * have none: a zero word there (objects are allocated cleared), or no room. */
static LzCCS *object_ccs(const LzWord *x, size_t words, const LzInfo *info) {
  if (info->type == LZ_BLACKHOLE && !(info = as_info(x[1])))
    return NULL; /* the owner or (replay way) a thunk id in the spare word: unknown size */
  size_t at;
  if (info->type == LZ_THUNK && info->size >= 2)
    at = info->size;
  else if (info->type == LZ_CON || info->type == LZ_FUN)
    at = 1 + (size_t)info->size;
  else
    return NULL;
  if (at >= words) return NULL;
  LzCCS *c = (LzCCS *)x[at];
  return lz_prof_is_ccs(c) ? c : NULL;
}

/* Called for every reachable object, holding Boehm's lock, the world stopped. */
static void visit(void *obj, size_t bytes, void *arg) {
  (void)arg;
  const LzWord *x = obj;
  if (bytes < 2 * sizeof(LzWord) || lz_heap_unallocated(obj, bytes)) return;
  const LzInfo *info = as_info(x[0]);
  if (!info || info->type == 0 || info->type > LZ_MUTVAR)
    return; /* not a closure: thread stacks, arrays, limbs, free-list cells */
  LzCCS *c = object_ccs(x, bytes / sizeof(LzWord), info);
  if (c)
    c->heap_bytes += bytes;
  else
    other_bytes += bytes;
}

static uint64_t ns_since(const struct timespec *a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (uint64_t)(b.tv_sec - a->tv_sec) * 1000000000u + (uint64_t)b.tv_nsec -
         (uint64_t)a->tv_nsec;
}

static void on_gc_event(GC_EventType ev) {
  if (chained) chained(ev);
  if (ev != GC_EVENT_MARK_END || !want_sample) return;
  struct timespec s, e; /* CPU time of the walk (the world is stopped meanwhile) */
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &s);
  GC_enumerate_reachable_objects_inner(visit, NULL);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &e);
  walk_ns +=
      (uint64_t)(e.tv_sec - s.tv_sec) * 1000000000u + (uint64_t)e.tv_nsec - (uint64_t)s.tv_nsec;
  want_sample = 0;
}

/* ---- the file ------------------------------------------------------------------------------- */

/* GHC's -hc names: the cost centres from the innermost out, MAIN left out. */
static void put_name(FILE *f, const LzCCS *s) {
  fprintf(f, "(%u)", s->id);
  for (const LzCCS *c = s; c && c != &lz_prof_main_ccs; c = c->prev) {
    if (c != s) fputc('/', f);
    for (const char *p = c->cc->label; *p; p++)
      fputc(*p == ' ' || *p == '\t' ? '_' : *p, f);
  }
  if (s == &lz_prof_main_ccs) fputs("MAIN", f);
}

static void write_sample(double t, bool empty) {
  fprintf(hp, "BEGIN_SAMPLE %.2f\n", t);
  for (LzCCS *s = lz_prof_all_stacks(); s; s = s->next_all) {
    if (s->heap_bytes && !empty) {
      put_name(hp, s);
      fprintf(hp, "\t%llu\n", (unsigned long long)s->heap_bytes);
    }
    s->heap_bytes = 0;
  }
  if (other_bytes && !empty) fprintf(hp, "(no_ccs)\t%llu\n", (unsigned long long)other_bytes);
  other_bytes = 0;
  fprintf(hp, "END_SAMPLE %.2f\n", t);
  fflush(hp);
}

static void *sampler(void *arg) {
  (void)arg;
  struct GC_stack_base sb;
  int r = GC_get_stack_base(&sb) == GC_SUCCESS ? GC_register_my_thread(&sb) : GC_UNIMPLEMENTED;
  if (r != GC_SUCCESS && r != GC_DUPLICATE) {
    lz_message("-hc: cannot register the heap profiler's thread with the collector");
    return NULL;
  }
  uint64_t ns = lz_prof_heap_flags.interval_ns;
  struct timespec d = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
  for (;;) {
    nanosleep(&d, NULL);
    pthread_mutex_lock(&hp_lock);
    if (!hp) break;
    want_sample = 1;
    GC_gcollect();
    if (!want_sample) { /* taken (by this collection, or by one another thread started) */
      write_sample((double)ns_since(&t0) / 1e9, false);
      n_samples++;
    }
    want_sample = 0;
    pthread_mutex_unlock(&hp_lock);
  }
  pthread_mutex_unlock(&hp_lock);
  GC_unregister_my_thread();
  return NULL;
}

void lz_prof_heap_start(int argc, char **argv) {
  if (!lz_prof_heap_flags.by_ccs) return;
  char path[4096], date[64];
  snprintf(path, sizeof path, "%s.hp", lz_prog_name);
  hp = fopen(path, "w");
  if (!hp) lz_die(1, "cannot write the heap profile %s", path);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  dl_iterate_phdr(find_segments, NULL);
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(date, sizeof date, "%a %b %e %H:%M %Y", &tm);
  fputs("JOB \"", hp); /* the command line, as GHC writes it */
  for (int i = 0; i < argc; i++)
    for (const char *p = argv[i];; p++) {
      if (!*p) {
        fputc(i + 1 < argc ? ' ' : '"', hp);
        break;
      }
      fputc(*p == '"' ? '\'' : *p, hp);
    }
  fprintf(hp, "\nDATE \"%s\"\nSAMPLE_UNIT \"seconds\"\nVALUE_UNIT \"bytes\"\n", date);
  write_sample(0.0, true);
  chained = GC_get_on_collection_event();
  GC_set_on_collection_event(on_gc_event);
  pthread_t tid;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (pthread_create(&tid, &attr, sampler, NULL) != 0) lz_die(1, "cannot start the heap profiler");
  pthread_attr_destroy(&attr);
}

/* At exit, the other capabilities stopped: the final (empty) sample, as GHC's. */
void lz_prof_heap_end(void) {
  if (!hp) return;
  pthread_mutex_lock(&hp_lock);
  write_sample((double)ns_since(&t0) / 1e9, true);
  if (fclose(hp) != 0) lz_message("error writing the heap profile");
  hp = NULL;
  pthread_mutex_unlock(&hp_lock);
  if (getenv("LZ_PROF_HEAP_DEBUG"))
    lz_message("-hc: %u samples, %.3f ms of CPU walking the heap (%.3f ms each)", n_samples,
               (double)walk_ns / 1e6, n_samples ? (double)walk_ns / 1e6 / n_samples : 0.0);
}

#endif

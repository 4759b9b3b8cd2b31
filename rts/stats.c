/* stats.c — the +RTS -s summary, in GHC's layout.
 *
 * Times are taken at four points (start, main begins, main ends, exit) with both the
 * process CPU clock and the monotonic clock; Boehm's collection events accumulate GC
 * time (CPU: see gc_own_cpu), the number of collections and the largest heap size seen, which
 * stands in for GHC's "maximum residency" (Boehm does not report live bytes cheaply).
 * Boehm collects the whole heap each time, so every collection is reported on GHC's
 * "Gen 1" line. Bytes allocated are the capability's counter (compiled code and runtime
 * allocations, in granules).
 */
#include <string.h>
#include <time.h>

#include "rts_priv.h"

typedef struct {
  double cpu, wall;
} Stamp;

static Stamp t_start, t_mut_start, t_mut_end, gc_begin;
static double gc_cpu, gc_wall, gc_max_pause;
static unsigned long gc_count;
static size_t max_heap;
static bool mut_started, mut_ended;

static Stamp now(void) {
  struct timespec c, w;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c);
  clock_gettime(CLOCK_MONOTONIC, &w);
  Stamp s = {c.tv_sec + c.tv_nsec / 1e9, w.tv_sec + w.tv_nsec / 1e9};
  return s;
}

void lz_stats_start(void) { t_start = now(); }

void lz_stats_mut_start(void) {
  t_mut_start = now();
  mut_started = true;
}

void lz_stats_mut_end(void) {
  if (mut_started && !mut_ended) {
    t_mut_end = now();
    mut_ended = true;
  }
}

/* GC CPU time: the collecting thread's own clock from a collection's start to its end,
 * plus what Boehm's helper markers spent (our GC_lz_marker_cpu_ns, rts/bdwgc/patch.cmake),
 * as GHC sums its GC threads' CPU. The process clock over the collection over-counted it
 * at -N2 (coins7: 0.17 s of GC CPU in 0.03 s of GC elapsed on 2 cores): Linux adds a
 * thread's running time to the process clock when the thread stops, so the mutator time
 * of the capability the collection stopped landed inside the collection. */
GC_API GC_word GC_CALL GC_lz_marker_cpu_ns(void);
static double gc_own_cpu; /* the collecting thread's clock at the collection's start */

static double thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* Called by Boehm with its lock held: only cheap, lock-free calls here. */
void lz_stats_gc_event(int ev) {
  if (ev == GC_EVENT_START) {
    gc_begin = now();
    gc_own_cpu = thread_cpu();
  } else if (ev == GC_EVENT_END) {
    Stamp e = now();
    gc_cpu += thread_cpu() - gc_own_cpu;
    double pause = e.wall - gc_begin.wall;
    gc_wall += pause;
    if (pause > gc_max_pause) gc_max_pause = pause;
    gc_count++;
    size_t h = GC_get_heap_size();
    if (h > max_heap) max_heap = h;
  }
}

char *lz_format_commas(uint64_t n, char *buf) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n);
  char *o = buf;
  for (int i = 0; i < len; i++) {
    if (i > 0 && (len - i) % 3 == 0) *o++ = ',';
    *o++ = digits[i];
  }
  *o = 0;
  return buf;
}

void lz_stats_print(FILE *f, uint64_t alloc, const char *extra) {
  Stamp end = now();
  if (!mut_started) t_mut_start = end;
  if (!mut_ended) t_mut_end = end;
  char b[48];
  size_t heap = GC_get_heap_size();
  if (heap > max_heap) max_heap = heap;
  double gc_all = gc_cpu + (double)GC_lz_marker_cpu_ns() / 1e9; /* with the helpers' */
  double init_cpu = t_mut_start.cpu - t_start.cpu, init_wall = t_mut_start.wall - t_start.wall;
  double mut_cpu = t_mut_end.cpu - t_mut_start.cpu - gc_all;
  double mut_wall = t_mut_end.wall - t_mut_start.wall - gc_wall;
  double exit_cpu = end.cpu - t_mut_end.cpu, exit_wall = end.wall - t_mut_end.wall;
  double tot_cpu = end.cpu - t_start.cpu, tot_wall = end.wall - t_start.wall;
  if (mut_cpu < 0) mut_cpu = 0;
  if (mut_wall < 0) mut_wall = 0;
  fprintf(f, "%16s bytes allocated in the heap\n", lz_format_commas(alloc, b));
  fprintf(f, "%16s bytes copied during GC\n", "0");
  fprintf(f, "%16s bytes maximum residency (%lu sample(s))\n", lz_format_commas(max_heap, b),
          gc_count);
  fprintf(f, "%16s bytes maximum slop\n", "0");
  fprintf(f, "%16zu MiB total memory in use (0 MB lost due to fragmentation)\n\n",
          heap / (1024 * 1024));
  fprintf(f, "                                     Tot time (elapsed)  Avg pause  Max pause\n");
  fprintf(f, "  Gen %2d     %5d colls, %5d par   %6.3fs  %6.3fs     %3.4fs    %3.4fs\n", 0, 0, 0,
          0.0, 0.0, 0.0, 0.0);
  fprintf(f, "  Gen %2d     %5lu colls, %5lu par   %6.3fs  %6.3fs     %3.4fs    %3.4fs\n\n", 1,
          gc_count, GC_get_parallel() ? gc_count : 0, gc_all, gc_wall,
          gc_count ? gc_wall / (double)gc_count : 0.0, gc_max_pause);
  fputs(extra, f);
  fprintf(f, "  INIT    time  %7.3fs  (%7.3fs elapsed)\n", init_cpu, init_wall);
  fprintf(f, "  MUT     time  %7.3fs  (%7.3fs elapsed)\n", mut_cpu, mut_wall);
  fprintf(f, "  GC      time  %7.3fs  (%7.3fs elapsed)\n", gc_all, gc_wall);
  fprintf(f, "  EXIT    time  %7.3fs  (%7.3fs elapsed)\n", exit_cpu, exit_wall);
  fprintf(f, "  Total   time  %7.3fs  (%7.3fs elapsed)\n\n", tot_cpu, tot_wall);
  fprintf(f, "  %%GC     time     %5.1f%%  (%.1f%% elapsed)\n\n",
          tot_cpu > 0 ? 100 * gc_all / tot_cpu : 0.0,
          tot_wall > 0 ? 100 * gc_wall / tot_wall : 0.0);
  fprintf(f, "  Alloc rate    %s bytes per MUT second\n\n",
          lz_format_commas(mut_cpu > 0 ? (uint64_t)((double)alloc / mut_cpu) : 0, b));
  fprintf(f, "  Productivity %5.1f%% of total user, %.1f%% of total elapsed\n\n",
          tot_cpu > 0 ? 100 * mut_cpu / tot_cpu : 0.0,
          tot_wall > 0 ? 100 * mut_wall / tot_wall : 0.0);
}

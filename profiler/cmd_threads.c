/* cmd_threads.c — `lzprof threads LOG`: one row per lightweight thread with its creation
 * time, time running, runnable and blocked, number of runs and why it stopped, sortable
 * by any column and restricted to one capability with --cap (then only the time and
 * stops that happened on that capability count; a thread's waiting time belongs to the
 * capability it was on when the wait began). Definitions: docs/notes/lzprof.md.
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  const LzpThread *th;
  uint64_t run, runnable, blocked, runs, stops;
  uint32_t by_status[LZP_N_STOP];
} Row;

static int sort_key; /* index into keys[] */
static const char *const keys[] = {"id",   "created", "run", "runnable", "blocked",
                                   "runs", "stops",   "cap", NULL};

static uint64_t key_of(const Row *r) {
  switch (sort_key) {
  case 0: return r->th->tid;
  case 1: return r->th->created;
  case 2: return r->run;
  case 3: return r->runnable;
  case 4: return r->blocked;
  case 5: return r->runs;
  case 6: return r->stops;
  default: return (uint64_t)r->th->cap;
  }
}

static int cmp_row(const void *a, const void *b) {
  const Row *x = a, *y = b;
  uint64_t kx = key_of(x), ky = key_of(y);
  int asc =
      sort_key <= 1 || sort_key == 7; /* ids, creation, cap: ascending; times: largest first */
  if (kx != ky) return (kx < ky) == asc ? -1 : 1;
  return x->th->tid < y->th->tid ? -1 : x->th->tid > y->th->tid;
}

static void usage(void) {
  fprintf(stderr,
          "usage: lzprof threads LOG [--sort id|created|run|runnable|blocked|runs|stops|cap]\n"
          "                          [--cap N] [--top N] [--tsv]\n");
}

int lzp_cmd_threads(int argc, char **argv) {
  const char *path = NULL;
  int tsv = 0, cap = -1;
  size_t top = (size_t)-1;
  sort_key = 0;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--tsv"))
      tsv = 1;
    else if (!strcmp(argv[i], "--sort") && i + 1 < argc) {
      const char *k = argv[++i];
      for (sort_key = 0; keys[sort_key] && strcmp(keys[sort_key], k); sort_key++)
        ;
      if (!keys[sort_key]) {
        fprintf(stderr, "lzprof threads: unknown sort column '%s'\n", k);
        usage();
        return 2;
      }
    } else if (!strcmp(argv[i], "--cap") && i + 1 < argc) {
      char *end;
      cap = (int)strtol(argv[++i], &end, 10);
      if (*end || cap < 0) {
        fprintf(stderr, "lzprof threads: --cap wants a capability number, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(argv[i], "--top") && i + 1 < argc)
      top = strtoull(argv[++i], NULL, 10);
    else if (argv[i][0] == '-' || path) {
      usage();
      return 2;
    } else
      path = argv[i];
  }
  if (!path) {
    usage();
    return 2;
  }
  LzpLog log;
  LzpModel m;
  if (lzp_load("threads", path, LZP_NEED_SCHED, &log, &m) < 0) return 1;
  if (cap >= m.n_caps) {
    fprintf(stderr, "lzprof threads: the log has capabilities 0..%d, not %d\n", m.n_caps - 1, cap);
    lzp_model_free(&m);
    lzp_log_free(&log);
    return 2;
  }
  Row *rows = calloc(m.n_threads ? m.n_threads : 1, sizeof *rows);
  size_t n = 0;
  Row tot = {0};
  for (size_t i = 0; rows && i < m.n_threads; i++) {
    const LzpThread *th = &m.threads[i];
    Row r = {.th = th};
    for (int c = 0; c < m.n_caps; c++) {
      if (cap >= 0 && c != cap) continue;
      r.run += th->run_ns[c];
      r.runnable += th->runnable_ns[c];
      r.blocked += th->blocked_ns[c];
      r.runs += th->runs[c];
      for (int s = 0; s < LZP_N_STOP; s++) {
        uint32_t k = lzp_thread_stops(&m, th, c, (unsigned)s);
        r.by_status[s] += k;
        r.stops += k;
      }
    }
    if (cap >= 0 && !r.runs && !r.stops && !r.runnable && !r.blocked) continue;
    tot.run += r.run;
    tot.runnable += r.runnable;
    tot.blocked += r.blocked;
    tot.runs += r.runs;
    tot.stops += r.stops;
    for (int s = 0; s < LZP_N_STOP; s++)
      tot.by_status[s] += r.by_status[s];
    rows[n++] = r;
  }
  if (rows) qsort(rows, n, sizeof *rows, cmp_row);
  char b[4][32];
  if (tsv)
    printf("thread\tcap\tcreated_ns\trun_ns\trunnable_ns\tblocked_ns\truns\tstops\tlabel\n");
  else
    printf("%-8s %4s %12s %12s %12s %12s %6s  %s\n", "thread", "cap", "created", "running",
           "runnable", "blocked", "runs", "stops (label)");
  for (size_t i = 0; i < n && i < top; i++) {
    const Row *r = &rows[i];
    if (tsv) {
      printf("%u\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\n", r->th->tid, r->th->cap,
             (unsigned long long)(r->th->created - m.t_begin), (unsigned long long)r->run,
             (unsigned long long)r->runnable, (unsigned long long)r->blocked,
             (unsigned long long)r->runs, (unsigned long long)r->stops, r->th->label);
      continue;
    }
    printf("%-8u %4d %12s %12s %12s %12s %6llu  ", r->th->tid, r->th->cap,
           lzp_fmt_ns(r->th->created - m.t_begin, b[0], 32), lzp_fmt_ns(r->run, b[1], 32),
           lzp_fmt_ns(r->runnable, b[2], 32), lzp_fmt_ns(r->blocked, b[3], 32),
           (unsigned long long)r->runs);
    const char *sep = "";
    for (int s = 0; s < LZP_N_STOP; s++)
      if (r->by_status[s]) {
        printf("%s%s %u", sep, lzp_stop_name((unsigned)s), r->by_status[s]);
        sep = ", ";
      }
    if (r->th->label[0])
      printf(" (%s%s)", r->th->label, r->th->spark_thread ? ", spark thread" : "");
    else if (r->th->spark_thread)
      printf(" (spark thread)");
    printf("\n");
  }
  /* running time per capability from the intervals: must equal the threads' sum */
  uint64_t iv_run = 0;
  for (int c = 0; c < m.n_caps; c++)
    for (size_t i = 0; i < m.n_iv[c]; i++)
      if ((cap < 0 || c == cap) && m.iv[c][i].state == LZP_RUNNING)
        iv_run += m.iv[c][i].t1 - m.iv[c][i].t0;
  if (tsv) {
    printf("total\t%zu\t\t%llu\t%llu\t%llu\t%llu\t%llu\t\n", n, (unsigned long long)tot.run,
           (unsigned long long)tot.runnable, (unsigned long long)tot.blocked,
           (unsigned long long)tot.runs, (unsigned long long)tot.stops);
    for (int s = 0; s < LZP_N_STOP; s++)
      if (tot.by_status[s]) printf("stops\t%s\t%u\n", lzp_stop_name((unsigned)s), tot.by_status[s]);
    printf("runs\t%llu\n", (unsigned long long)tot.runs);
    printf("capability_running_ns\t%llu\n", (unsigned long long)iv_run);
    printf("span_ns\t%llu\n", (unsigned long long)(m.t_end - m.t_begin));
  } else {
    printf("%-8s %4s %12s %12s %12s %12s %6llu  %zu threads%s\n", "total", "", "",
           lzp_fmt_ns(tot.run, b[1], 32), lzp_fmt_ns(tot.runnable, b[2], 32),
           lzp_fmt_ns(tot.blocked, b[3], 32), (unsigned long long)tot.runs, n,
           cap >= 0 ? " (on this capability)" : "");
    printf("capabilities were running threads for %s in all (log: %s, %d capabilities)\n",
           lzp_fmt_ns(iv_run, b[0], 32), lzp_fmt_ns(m.t_end - m.t_begin, b[1], 32), m.n_caps);
  }
  free(rows);
  lzp_model_free(&m);
  lzp_log_free(&log);
  return 0;
}

/* cmd_marks.c — `lzprof marks [PROG] LOG`: the user checkpoints of a run, i.e. the strings
 * the program posted with Debug.Trace.traceEvent/traceEventIO (USER_MSG events) and
 * traceMarker/traceMarkerIO (USER_MARKER), each with its time on the run's own clock,
 * the capability whose block holds it and the thread that was running there when it was
 * posted — the quicksort report of Ferreiro's thesis (§5.2.2): "when did this expression
 * finish, on which core" in one command. Then a summary per capability. With PROG, the
 * log must have been written by that binary (lzp_check_binary). Definitions and the
 * output format: docs/notes/lzprof.md, "marks".
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(void) {
  fprintf(stderr, "usage: lzprof marks [PROG] LOG [--tsv] [--cap N] [--match TEXT]\n"
                  "  the traceEvent/traceMarker strings of a run: time, capability, thread\n");
}

typedef struct {
  uint64_t n, first, last;
  const LzpEvent *first_ev, *last_ev;
} CapMarks;

/* the event's text, with tabs and line breaks shown as spaces */
static void print_text(const LzpLog *log, const LzpEvent *e) {
  const uint8_t *p = log->data + e->payload;
  for (size_t i = 0; i < e->len; i++)
    putchar(p[i] == '\t' || p[i] == '\n' || p[i] == '\r' ? ' ' : p[i]);
}

static int matches(const LzpLog *log, const LzpEvent *e, const char *needle) {
  if (!needle) return 1;
  size_t k = strlen(needle);
  const char *p = (const char *)log->data + e->payload;
  for (size_t i = 0; i + k <= e->len; i++)
    if (!memcmp(p + i, needle, k)) return 1;
  return 0;
}

/* "wall clock at time 0" from WALL_CLOCK_TIME (capset u32, seconds u64, nanoseconds u32),
 * taken together with the event's own timestamp */
static void print_wall_clock(const LzpLog *log) {
  for (size_t i = 0; i < log->n_ev; i++) {
    const LzpEvent *e = &log->ev[i];
    if (e->type != LZP_WALL_CLOCK_TIME || e->len < 16) continue;
    long double at = lzp_u64(log, e, 4) + lzp_u32(log, e, 12) / 1e9L - e->time / 1e9L;
    time_t s = (time_t)at;
    struct tm tm;
    char buf[64];
    if (gmtime_r(&s, &tm) && strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm))
      printf("; time 0 = %s.%06ld UTC", buf, (long)((at - (long double)s) * 1e6L));
    return;
  }
}

int lzp_cmd_marks(int argc, char **argv) {
  const char *pos[2] = {NULL, NULL}, *needle = NULL;
  int npos = 0, tsv = 0, only_cap = -1;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--tsv"))
      tsv = 1;
    else if (!strcmp(argv[i], "--cap") && i + 1 < argc)
      only_cap = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--match") && i + 1 < argc)
      needle = argv[++i];
    else if (argv[i][0] == '-' || npos == 2) {
      usage();
      return 2;
    } else
      pos[npos++] = argv[i];
  }
  if (npos == 0) {
    usage();
    return 2;
  }
  const char *prog = npos == 2 ? pos[0] : NULL, *path = pos[npos - 1];
  LzpLog log;
  LzpModel m;
  if (lzp_load("marks", path, LZP_NEED_USER, &log, &m) < 0) return 1;
  int rc = 0;
  if (lzp_log_index(&log) < 0) { /* the report keeps pointers to events */
    fprintf(stderr, "lzprof: out of memory\n");
    rc = 1;
  }
  if (prog && lzp_check_binary(prog, path, &log) < 0) rc = 1;
  if (!rc && only_cap >= m.n_caps) {
    fprintf(stderr, "lzprof marks: the log has capabilities 0..%d, not %d\n", m.n_caps - 1,
            only_cap);
    rc = 2;
  }
  uint32_t *running = calloc((size_t)m.n_caps, sizeof *running);
  CapMarks *per = calloc((size_t)m.n_caps, sizeof *per);
  uint64_t n_msg = 0, n_marker = 0, n_all = 0;
  int sched = 0;
  if (!rc && (!running || !per)) {
    fprintf(stderr, "lzprof: out of memory\n");
    rc = 1;
  }
  for (size_t i = 0; !rc && i < log.n_ev; i++) {
    const LzpEvent *e = &log.ev[i];
    if (e->type == LZP_USER_MSG || e->type == LZP_USER_MARKER) n_all++;
    if (e->type == LZP_RUN_THREAD) sched = 1;
  }
  if (!rc && !tsv) {
    printf("User checkpoints in %s: %llu on %d capabilities", path, (unsigned long long)n_all,
           m.n_caps);
    if (only_cap >= 0 || needle) printf(" (shown: those");
    if (only_cap >= 0) printf(" on cap %d", only_cap);
    if (needle) printf("%s containing \"%s\"", only_cap >= 0 ? " and" : "", needle);
    if (only_cap >= 0 || needle) printf(")");
    printf("\ntimes: ms since the program started (the log's clock)");
    print_wall_clock(&log);
    printf("\n%s\n%14s  %3s  %6s  %-7s %s\n",
           sched ? "" : "(no scheduler events: the threads are unknown; +RTS -ls records them)",
           "time", "cap", "thread", "kind", "text");
  }
  for (size_t i = 0; !rc && i < log.n_ev; i++) {
    const LzpEvent *e = &log.ev[i];
    int c = e->cap;
    if (c >= 0 && e->type == LZP_RUN_THREAD) running[c] = lzp_u32(&log, e, 0);
    if (c >= 0 && e->type == LZP_STOP_THREAD && running[c] == lzp_u32(&log, e, 0)) running[c] = 0;
    if (e->type != LZP_USER_MSG && e->type != LZP_USER_MARKER) continue;
    if ((only_cap >= 0 && c != only_cap) || !matches(&log, e, needle)) continue;
    int marker = e->type == LZP_USER_MARKER;
    uint32_t tid = c >= 0 ? running[c] : 0;
    if (marker)
      n_marker++;
    else
      n_msg++;
    if (c >= 0) {
      CapMarks *k = &per[c];
      if (k->n++ == 0) k->first = e->time, k->first_ev = e;
      k->last = e->time;
      k->last_ev = e;
    }
    if (tsv) {
      printf("mark\t%llu\t%d\t%u\t%s\t", (unsigned long long)e->time, c, tid,
             marker ? "marker" : "event");
    } else {
      char th[16] = "-", cs[16] = "-";
      if (tid) snprintf(th, sizeof th, "%u", tid);
      if (c >= 0) snprintf(cs, sizeof cs, "%d", c);
      printf("%11.3f ms  %3s  %6s  %-7s ", e->time / 1e6, cs, th, marker ? "marker" : "event");
    }
    print_text(&log, e);
    putchar('\n');
  }
  if (!rc && !tsv) {
    printf("\n%llu shown: %llu traceEvent, %llu traceMarker\n",
           (unsigned long long)(n_msg + n_marker), (unsigned long long)n_msg,
           (unsigned long long)n_marker);
    for (int c = 0; c < m.n_caps; c++) {
      const CapMarks *k = &per[c];
      if (only_cap >= 0 && c != only_cap) continue;
      printf("cap %d: %llu checkpoint%s", c, (unsigned long long)k->n, k->n == 1 ? "" : "s");
      if (k->n) {
        printf(", first at %.3f ms (", k->first / 1e6);
        print_text(&log, k->first_ev);
        printf("), last at %.3f ms (", k->last / 1e6);
        print_text(&log, k->last_ev);
        printf(")");
      }
      putchar('\n');
    }
  }
  free(running);
  free(per);
  lzp_model_free(&m);
  lzp_log_free(&log);
  return rc;
}

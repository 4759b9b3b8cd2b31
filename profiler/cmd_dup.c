/* cmd_dup.c — `lzprof dup PROG LOG [--json] [--keep FILE] [--top N]`: the duplicate-work
 * report of Ferreiro's thesis (§5.2.1). PROG (built with lzc -replay) replays LOG with
 * `+RTS --replay=LOG --dup-report=TMP -RTS`; its runtime finds the thunks evaluated more
 * than once and the converted sparks whose work nobody used (rts/replay_dup.c), on the
 * original run's clock. This reads that file and prints totals, wasted time per
 * capability and per source site, and the wasted evaluations. Definitions and the file
 * format: Note [Duplicate work] in docs/notes/lzprof.md.
 */
#include "lzprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_dup.h" /* LZ_DUP_MAGIC */
#include "replaylog.h"

typedef struct {
  int spark; /* 1: a spark thrown away; 0: a duplicate evaluation */
  char thunk[48], spark_id[48];
  unsigned cap, tid;
  uint64_t start, end, wasted;
  char *site;
  size_t index; /* in the file */
  int nested;   /* inside another wasted evaluation of the same thread */
  int cut;      /* a duplicate evaluation still running when the program exited */
} Waste;

typedef struct {
  char *site;
  uint64_t wasted;
  unsigned dups, sparks, thunks, evals;
} Site;

typedef struct {
  char prog[256];
  unsigned ncaps;
  uint64_t run_ns;
  unsigned long sparks_run, sparks_unfinished;
  Waste *w;
  size_t n;
} Report;

static void usage(void) {
  fprintf(stderr,
          "usage: lzprof dup PROG LOG.lzr [--json] [--keep FILE] [--top N]\n"
          "       lzprof dup --report FILE [--json] [--top N]   (a report kept with --keep)\n"
          "  replays LOG with PROG (built with lzc -replay) and reports thunks evaluated\n"
          "  more than once and converted sparks whose work was never used\n");
}

/* Does the file contain the bytes of s? (a runtime that can write reports carries the
 * report's first line) */
static int file_has(const char *path, const char *s) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t k = strlen(s), have = 0;
  char buf[1 << 16];
  int found = 0;
  for (;;) {
    size_t got = fread(buf + have, 1, sizeof buf - have, f);
    size_t n = have + got;
    if (n >= k && memmem(buf, n, s, k)) {
      found = 1;
      break;
    }
    if (!got) break;
    have = n < k ? n : k - 1; /* keep a tail that may start a match */
    memmove(buf, buf + n - have, have);
  }
  fclose(f);
  return found;
}

/* The log must be a recording of PROG: a replay log, whole, with PROG's identity. */
static int check_inputs(const char *prog, const char *log) {
  uint8_t hash[LZ_SHA256_BYTES];
  char err[1024];
  if (lz_exe_identity_file(prog, hash, err, sizeof err) < 0) {
    fprintf(stderr, "lzprof dup: %s\n", err);
    return -1;
  }
  if (file_has(prog, LZ_DUP_MAGIC) != 1) {
    fprintf(stderr,
            "lzprof dup: %s was not built with lzc -replay (its runtime cannot replay a "
            "recording or report duplicate work)\n",
            prog);
    return -1;
  }
  FILE *f = fopen(log, "rb");
  uint8_t head[4] = {0};
  if (!f) {
    fprintf(stderr, "lzprof dup: %s: %s\n", log, strerror(errno));
    return -1;
  }
  size_t got = fread(head, 1, 4, f);
  fclose(f);
  if (!lzp_is_replay_log(head, got)) {
    if (got == 4 && !memcmp(head, "hdrb", 4))
      fprintf(stderr,
              "lzprof dup: %s is a plain event log (+RTS -l), not a recording: record the run "
              "with +RTS --record (a program built with lzc -replay)\n",
              log);
    else
      fprintf(stderr, "lzprof dup: %s is not a replay recording (+RTS --record)\n", log);
    return -1;
  }
  uint8_t *data;
  size_t size;
  int complete;
  if (lzp_read_replay(log, &data, &size, &complete, err, sizeof err) < 0) {
    fprintf(stderr, "%s\n", err);
    return -1;
  }
  free(data);
  if (!complete) {
    fprintf(stderr, "lzprof dup: %s: the recording is cut short (no end marker)\n", log);
    return -1;
  }
  LzReplayReader *r = lz_replay_open(log, hash, err, sizeof err);
  if (!r) {
    fprintf(stderr, "lzprof dup: %s\n", err);
    return -1;
  }
  lz_replay_close(r);
  return 0;
}

static void print_tail(const char *path) { /* the replay's last lines of stderr */
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[1024], keep[5][1024];
  int n = 0;
  while (fgets(line, sizeof line, f))
    snprintf(keep[n++ % 5], sizeof keep[0], "%s", line);
  fclose(f);
  for (int i = n > 5 ? n - 5 : 0; i < n; i++)
    fprintf(stderr, "  %s%s", keep[i % 5], strchr(keep[i % 5], '\n') ? "" : "\n");
}

/* Run the replay; 0 with the report written, else a message and -1. */
static int run_replay(const char *prog, const char *log, const char *report, const char *errf) {
  char rflag[4200], dflag[4200], path[4096];
  snprintf(rflag, sizeof rflag, "--replay=%s", log);
  snprintf(dflag, sizeof dflag, "--dup-report=%s", report);
  snprintf(path, sizeof path, "%s%s", strchr(prog, '/') ? "" : "./", prog);
  char *args[] = {(char *)prog, "+RTS", rflag, dflag, "-RTS", NULL};
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "lzprof dup: fork: %s\n", strerror(errno));
    return -1;
  }
  if (pid == 0) { /* the program's output is not the report's */
    int in = open("/dev/null", O_RDONLY), out = open("/dev/null", O_WRONLY);
    int err = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0 || err < 0) _exit(127);
    dup2(in, 0), dup2(out, 1), dup2(err, 2);
    execv(path, args);
    fprintf(stderr, "cannot run %s: %s\n", prog, strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(st)) {
    fprintf(stderr, "lzprof dup: the replay of %s was killed by signal %d:\n", log, WTERMSIG(st));
    print_tail(errf);
    return -1;
  }
  int code = WEXITSTATUS(st);
  if (code == 3) {
    fprintf(stderr,
            "lzprof dup: the replay of %s diverged from the recording (exit 3), so there is "
            "no report:\n",
            log);
    print_tail(errf);
    return -1;
  }
  struct stat sb;
  if (stat(report, &sb) != 0) {
    fprintf(stderr, "lzprof dup: the replay of %s exited with status %d and wrote no report:\n",
            log, code);
    print_tail(errf);
    return -1;
  }
  if (code != 0)
    fprintf(stderr, "lzprof dup: note: the program exited with status %d, as recorded\n", code);
  return 0;
}

static char *field(char **p) { /* the next tab-separated field, or NULL */
  if (!*p) return NULL;
  char *s = *p, *t = strchr(s, '\t');
  if (t)
    *t = 0, *p = t + 1;
  else
    *p = NULL;
  return s;
}

static int parse(const char *path, Report *r) {
  memset(r, 0, sizeof *r);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[4096];
  int ok = 0, first = 1;
  size_t room = 0;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = 0;
    if (first) {
      first = 0;
      if (strcmp(line, LZ_DUP_MAGIC) != 0) break;
      continue;
    }
    char *p = line, *k = field(&p), *v = p;
    if (!strcmp(k, "program") && v)
      snprintf(r->prog, sizeof r->prog, "%s", v);
    else if (!strcmp(k, "capabilities") && v)
      r->ncaps = (unsigned)strtoul(v, NULL, 10);
    else if (!strcmp(k, "run_ns") && v)
      r->run_ns = strtoull(v, NULL, 10);
    else if (!strcmp(k, "sparks_run") && v)
      r->sparks_run = strtoul(v, NULL, 10);
    else if (!strcmp(k, "sparks_unfinished") && v)
      r->sparks_unfinished = strtoul(v, NULL, 10);
    else if (!strcmp(k, "end"))
      ok = 1;
    else if (!strcmp(k, "dup") || !strcmp(k, "spark") || !strcmp(k, "cutoff")) {
      char *fs[8];
      for (int i = 0; i < 7; i++)
        fs[i] = field(&p);
      fs[7] = p;
      if (!fs[6] || !fs[7]) break;
      if (r->n == room) {
        room = room ? 2 * room : 64;
        Waste *nw = realloc(r->w, room * sizeof *nw);
        if (!nw) break;
        r->w = nw;
      }
      Waste *w = &r->w[r->n];
      w->index = r->n++;
      w->nested = 0;
      w->spark = k[0] == 's';
      w->cut = k[0] == 'c';
      snprintf(w->thunk, sizeof w->thunk, "%s", fs[0]);
      snprintf(w->spark_id, sizeof w->spark_id, "%s", fs[1]);
      w->cap = (unsigned)strtoul(fs[2], NULL, 10);
      w->tid = (unsigned)strtoul(fs[3], NULL, 10);
      w->start = strtoull(fs[4], NULL, 10);
      w->end = strtoull(fs[5], NULL, 10);
      w->wasted = strtoull(fs[6], NULL, 10);
      w->site = strdup(fs[7]);
    }
  }
  fclose(f);
  return ok && r->ncaps ? 0 : -1;
}

static int by_wasted(const void *a, const void *b) {
  const Site *x = a, *y = b;
  if (x->wasted != y->wasted) return x->wasted < y->wasted ? 1 : -1;
  return strcmp(x->site, y->site);
}
static int waste_by_wasted(const void *a, const void *b) {
  const Waste *x = a, *y = b;
  if (x->wasted != y->wasted) return x->wasted < y->wasted ? 1 : -1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Per site: wasted time, duplicate evaluations, distinct thunks duplicated and all their
 * evaluations (each duplicated thunk was evaluated once more than it was duplicated). */
static Site *sites_of(const Report *r, size_t *n_sites) {
  Site *s = calloc(r->n + 1, sizeof *s);
  size_t n = 0;
  for (size_t i = 0; s && i < r->n; i++) {
    const Waste *w = &r->w[i];
    size_t j = 0;
    while (j < n && strcmp(s[j].site, w->site))
      j++;
    if (j == n) s[n++].site = w->site;
    s[j].wasted += w->wasted;
    if (w->spark) {
      s[j].sparks++;
      continue;
    }
    s[j].dups++;
    int seen = 0; /* an earlier duplicate of the same thunk */
    for (size_t k = 0; k < i && strcmp(w->thunk, "-"); k++)
      if (!r->w[k].spark && !strcmp(r->w[k].thunk, w->thunk)) seen = 1;
    if (!seen) s[j].thunks++, s[j].evals++;
    s[j].evals++;
  }
  if (s) qsort(s, n, sizeof *s, by_wasted);
  *n_sites = n;
  return s;
}

static void json_str(const char *s) {
  putchar('"');
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  }
  putchar('"');
}

static double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * part / whole : 0; }

/* A wasted evaluation inside another of the same thread (a duplicate inside a duplicated
 * or thrown-away evaluation) is part of that one's time: mark it, so that totals count it
 * once. Sorted by thread, start, longest first (equal intervals: the later in the file,
 * the outer one, first), an evaluation ending no later than the last outer one is nested. */
static int by_nesting(const void *a, const void *b) {
  const Waste *x = *(const Waste *const *)a, *y = *(const Waste *const *)b;
  if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  if (x->end != y->end) return x->end > y->end ? -1 : 1;
  return x->index > y->index ? -1 : x->index < y->index;
}

static void mark_nested(Report *r) {
  Waste **v = malloc((r->n + 1) * sizeof *v);
  if (!v) return;
  for (size_t i = 0; i < r->n; i++)
    v[i] = &r->w[i];
  qsort(v, r->n, sizeof *v, by_nesting);
  const Waste *outer = NULL;
  for (size_t i = 0; i < r->n; i++) {
    if (outer && outer->tid == v[i]->tid && v[i]->end <= outer->end)
      v[i]->nested = 1;
    else
      outer = v[i];
  }
  free(v);
}

static void print_report(const Report *r, const char *prog, const char *log, int json, int top) {
  uint64_t cap_time = r->run_ns * r->ncaps, wasted = 0;
  unsigned n_dup = 0, n_spark = 0;
  uint64_t *cw = calloc(r->ncaps, sizeof *cw);
  unsigned *cd = calloc(r->ncaps, sizeof *cd), *cs = calloc(r->ncaps, sizeof *cs);
  unsigned n_nested = 0, n_cut = 0;
  for (size_t i = 0; i < r->n; i++) {
    const Waste *w = &r->w[i];
    w->spark ? n_spark++ : n_dup++;
    n_cut += w->cut;
    if (cw && cd && cs && w->cap < r->ncaps) w->spark ? cs[w->cap]++ : cd[w->cap]++;
    if (w->nested) {
      n_nested++;
      continue;
    }
    wasted += w->wasted;
    if (cw && w->cap < r->ncaps) cw[w->cap] += w->wasted;
  }
  size_t n_sites;
  Site *s = sites_of(r, &n_sites);
  Waste *sorted = malloc((r->n + 1) * sizeof *sorted);
  if (sorted) {
    memcpy(sorted, r->w, r->n * sizeof *sorted);
    qsort(sorted, r->n, sizeof *sorted, waste_by_wasted);
  }
  if (json) {
    printf("{\"program\": ");
    json_str(prog);
    printf(", \"log\": ");
    json_str(log);
    printf(", \"capabilities\": %u, \"run_ns\": %llu, \"capability_ns\": %llu, "
           "\"sparks_converted\": %lu, \"sparks_unfinished\": %lu, \"duplicate_evaluations\": %u, "
           "\"sparks_thrown_away\": %u, "
           "\"wasted_ns\": %llu, \"wasted_share\": %.6f,\n \"per_capability\": [",
           r->ncaps, (unsigned long long)r->run_ns, (unsigned long long)cap_time, r->sparks_run,
           r->sparks_unfinished, n_dup, n_spark, (unsigned long long)wasted,
           cap_time ? (double)wasted / cap_time : 0.0);
    for (unsigned c = 0; cw && cd && cs && c < r->ncaps; c++)
      printf("%s{\"cap\": %u, \"duplicate_evaluations\": %u, \"sparks_thrown_away\": %u, "
             "\"wasted_ns\": %llu}",
             c ? ", " : "", c, cd[c], cs[c], (unsigned long long)cw[c]);
    printf("],\n \"per_site\": [");
    for (size_t i = 0; s && i < n_sites; i++) {
      printf("%s\n  {\"site\": ", i ? "," : "");
      json_str(s[i].site);
      printf(", \"duplicate_evaluations\": %u, \"thunks\": %u, \"evaluations\": %u, "
             "\"sparks_thrown_away\": %u, \"wasted_ns\": %llu}",
             s[i].dups, s[i].thunks, s[i].evals, s[i].sparks, (unsigned long long)s[i].wasted);
    }
    printf("],\n \"wasted\": [");
    for (size_t i = 0; sorted && i < r->n; i++) {
      const Waste *w = &sorted[i];
      printf("%s\n  {\"kind\": \"%s\", \"thunk\": \"%s\", \"spark\": \"%s\", \"cap\": %u, "
             "\"thread\": %u, \"start_ns\": %llu, \"end_ns\": %llu, \"wasted_ns\": %llu, "
             "\"nested\": %s, \"cut_off\": %s, \"site\": ",
             i ? "," : "", w->spark ? "spark" : "duplicate", w->thunk, w->spark_id, w->cap, w->tid,
             (unsigned long long)w->start, (unsigned long long)w->end,
             (unsigned long long)w->wasted, w->nested ? "true" : "false",
             w->cut ? "true" : "false");
      json_str(w->site);
      putchar('}');
    }
    printf("]}\n");
  } else {
    printf("Duplicate work in a replay of %s (%s, %u capabilities)\n", log, prog, r->ncaps);
    printf("times: ms on the original run's clock; inside a recorded slice, interpolated by the\n"
           "allocation the replay reproduces (wasted = the evaluating thread's running time)\n");
    printf("run: %.3f ms x %u capabilities = %.3f ms of capability time; %lu sparks converted",
           r->run_ns / 1e6, r->ncaps, cap_time / 1e6, r->sparks_run);
    if (r->sparks_unfinished)
      printf(" (%lu still running, unused, when the program exited: not counted)",
             r->sparks_unfinished);
    printf("\n\n");
    if (!r->n) {
      printf("no duplicate work: no thunk was evaluated twice and the work of every converted "
             "spark was used\n");
    } else {
      printf("total: %u evaluation%s duplicated, %u spark%s thrown away (of %lu converted); "
             "wasted %.3f ms = %.1f %% of the capability time\n",
             n_dup, n_dup == 1 ? "" : "s", n_spark, n_spark == 1 ? "" : "s", r->sparks_run,
             wasted / 1e6, pct(wasted, cap_time));
      if (n_cut)
        printf("(%u of them %s still running when the program exited, after another thread had "
               "updated the thunk: counted up to the exit)\n",
               n_cut, n_cut == 1 ? "was" : "were");
      if (n_nested)
        printf("(%u of them ran inside another wasted evaluation of the same thread: counted "
               "once in the totals and per capability; each site's line includes them)\n",
               n_nested);
      printf("\n");
      printf("per capability:\n  %3s  %10s  %8s  %10s  %8s\n", "cap", "duplicates", "sparks",
             "wasted ms", "% of cap");
      for (unsigned c = 0; cw && cd && cs && c < r->ncaps; c++)
        printf("  %3u  %10u  %8u  %10.3f  %8.1f\n", c, cd[c], cs[c], cw[c] / 1e6,
               pct(cw[c], r->run_ns));
      printf("\nper source site (by wasted time, nested evaluations included):\n  %10s  %6s  %10s  "
             "%6s  %11s  %6s  %s\n",
             "wasted ms", "% time", "duplicates", "thunks", "evaluations", "sparks", "site");
      for (size_t i = 0; s && i < n_sites; i++)
        printf("  %10.3f  %6.1f  %10u  %6u  %11u  %6u  %s\n", s[i].wasted / 1e6,
               pct(s[i].wasted, cap_time), s[i].dups, s[i].thunks, s[i].evals, s[i].sparks,
               s[i].site);
      size_t shown = sorted ? (r->n < (size_t)top ? r->n : (size_t)top) : 0;
      printf("\nwasted evaluations (%zu of %zu, by wasted time):\n  %-9s  %-12s  %-8s  %3s  %6s  "
             "%10s  %10s  %9s  %s\n",
             shown, r->n, "kind", "thunk", "spark", "cap", "thread", "start ms", "end ms",
             "wasted ms", "site");
      for (size_t i = 0; i < shown; i++) {
        const Waste *w = &sorted[i];
        printf("  %-9s  %-12s  %-8s  %3u  %6u  %10.3f  %10.3f  %9.3f  %s\n",
               w->spark    ? "spark"
               : w->nested ? "(nested)"
               : w->cut    ? "cut off"
                           : "duplicate",
               w->thunk, w->spark_id, w->cap, w->tid, w->start / 1e6, w->end / 1e6, w->wasted / 1e6,
               w->site);
      }
    }
  }
  free(sorted);
  free(s);
  free(cw);
  free(cd);
  free(cs);
}

static void free_report(Report *r) {
  for (size_t i = 0; i < r->n; i++)
    free(r->w[i].site);
  free(r->w);
}

/* --report FILE: a report kept earlier (--keep), printed again without a replay */
static int from_report(const char *path, int json, int top) {
  Report r;
  if (parse(path, &r) < 0) {
    fprintf(stderr, "lzprof dup: %s is not a whole duplicate-work report (%s)\n", path,
            LZ_DUP_MAGIC);
    free_report(&r);
    return 1;
  }
  mark_nested(&r);
  print_report(&r, r.prog, path, json, top);
  free_report(&r);
  return 0;
}

int lzp_cmd_dup(int argc, char **argv) {
  const char *prog = NULL, *log = NULL, *keep = NULL, *saved = NULL;
  int json = 0, top = 20;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--json"))
      json = 1;
    else if (!strcmp(argv[i], "--report") && i + 1 < argc)
      saved = argv[++i];
    else if (!strcmp(argv[i], "--keep") && i + 1 < argc)
      keep = argv[++i];
    else if (!strcmp(argv[i], "--top") && i + 1 < argc)
      top = atoi(argv[++i]);
    else if (argv[i][0] == '-' || (prog && log)) {
      usage();
      return 2;
    } else if (!prog)
      prog = argv[i];
    else
      log = argv[i];
  }
  if (saved && !prog && !keep && top >= 0) return from_report(saved, json, top);
  if (!prog || !log || top < 0 || saved) {
    usage();
    return 2;
  }
  if (check_inputs(prog, log) < 0) return 1;
  char dir[] = "/tmp/lzprof-dup-XXXXXX", report[64], errf[64];
  if (!mkdtemp(dir)) {
    fprintf(stderr, "lzprof dup: cannot make a temporary directory: %s\n", strerror(errno));
    return 1;
  }
  snprintf(report, sizeof report, "%s/report", dir);
  snprintf(errf, sizeof errf, "%s/stderr", dir);
  int rc = 1;
  Report r;
  memset(&r, 0, sizeof r);
  if (run_replay(prog, log, keep ? keep : report, errf) == 0) {
    if (parse(keep ? keep : report, &r) < 0) {
      fprintf(stderr, "lzprof dup: the replay's report %s is unreadable or cut short\n",
              keep ? keep : report);
    } else {
      mark_nested(&r);
      print_report(&r, prog, log, json, top);
      rc = 0;
    }
  }
  free_report(&r);
  unlink(report);
  unlink(errf);
  rmdir(dir);
  return rc;
}

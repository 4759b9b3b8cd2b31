/* cmd_sparks.c — `lzprof sparks LOG`: spark fates per capability (from the per-spark
 * events of a `-lf` log, and from the last SPARK_COUNTERS of each capability, side by
 * side so a disagreement shows), per `par` site when the log carries Lz's spark-site
 * events, a histogram of spark run times (GranSim's granularity profile) and a verdict.
 * Definitions: docs/notes/lzprof.md, "sparks".
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void usage(void) {
  fprintf(stderr, "usage: lzprof sparks LOG [--tsv] [--small NS]\n"
                  "  spark fates per capability and per par site, spark run-time histogram\n");
}

/* counts from events in the counters' order: crt dud ovf cnv gcd fiz */
static void event_fates(const uint64_t *k, uint64_t out[6]) {
  out[0] = k[LZP_SP_CREATE];
  out[1] = k[LZP_SP_DUD];
  out[2] = k[LZP_SP_OVERFLOW];
  out[3] = k[LZP_SP_RUN] + k[LZP_SP_STEAL];
  out[4] = k[LZP_SP_GC];
  out[5] = k[LZP_SP_FIZZLE];
}

static uint64_t median_of(uint64_t *v, size_t n) {
  if (!n) return 0;
  qsort(v, n, sizeof *v, cmp_u64);
  return v[n / 2];
}

/* One row per par site (Note [Spark sites]), and one for the spark events naming no site
 * (duds of values: their thunk's info is gone), with the median run time of the site's
 * converted sparks. */
static void site_table(const LzpModel *m, int tsv) {
  uint64_t nosite[LZP_SP_N] = {0};
  size_t *nruns = calloc(m->n_sites + 1, sizeof *nruns);
  uint64_t **runs = calloc(m->n_sites + 1, sizeof *runs);
  for (size_t i = 0; nruns && runs && i < m->n_sparks; i++) {
    const LzpSparkEvent *e = &m->sparks[i];
    if (e->id_known && !e->site) nosite[e->kind]++;
    if (e->site && (e->kind == LZP_SP_RUN || e->kind == LZP_SP_STEAL) && e->site <= m->n_sites) {
      uint64_t **r = &runs[e->site];
      if ((nruns[e->site] & (nruns[e->site] + 1)) == 0 || !*r) { /* grow at 2^k - 1 */
        uint64_t *nr = realloc(*r, (nruns[e->site] + 1) * 2 * sizeof **r);
        if (!nr) continue;
        *r = nr;
      }
      (*r)[nruns[e->site]++] = e->run_ns;
    }
  }
  char b1[32];
  if (!tsv)
    printf("\nPer par site:\n%10s %10s %10s %10s %8s %8s %11s  %s\n", "created", "converted",
           "fizzled", "overflowed", "dud", "GC'd", "median run", "site");
  for (size_t i = 0; i <= m->n_sites; i++) {
    const uint64_t *k = i < m->n_sites ? m->sites[i].counts : nosite;
    const char *label = i < m->n_sites ? m->sites[i].label : "(no site: dud of a value)";
    uint64_t f[6], any = 0;
    event_fates(k, f);
    for (int j = 0; j < 6; j++)
      any |= f[j];
    if (!any && (i == m->n_sites || !label)) continue;
    char unnamed[48];
    snprintf(unnamed, sizeof unnamed, "site %zu (no site event)", i + 1);
    if (!label) label = unnamed;
    size_t n = i < m->n_sites && nruns ? nruns[i + 1] : 0;
    uint64_t med = n ? median_of(runs[i + 1], n) : 0;
    if (tsv)
      printf("site\t%zu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\t%llu\n",
             i < m->n_sites ? i + 1 : 0, (unsigned long long)f[0], (unsigned long long)f[3],
             (unsigned long long)f[5], (unsigned long long)f[2], (unsigned long long)f[1],
             (unsigned long long)f[4], label, (unsigned long long)med);
    else
      printf("%10llu %10llu %10llu %10llu %8llu %8llu %11s  %s\n", (unsigned long long)f[0],
             (unsigned long long)f[3], (unsigned long long)f[5], (unsigned long long)f[2],
             (unsigned long long)f[1], (unsigned long long)f[4],
             n ? lzp_fmt_ns(med, b1, sizeof b1) : "-", label);
  }
  for (size_t i = 0; runs && i <= m->n_sites; i++)
    free(runs[i]);
  free(runs);
  free(nruns);
}

int lzp_cmd_sparks(int argc, char **argv) {
  const char *path = NULL;
  int tsv = 0;
  uint64_t small_ns = 10000;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--tsv"))
      tsv = 1;
    else if (!strcmp(argv[i], "--small") && i + 1 < argc)
      small_ns = strtoull(argv[++i], NULL, 10);
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
  if (lzp_load("sparks", path, LZP_NEED_SPARKS | LZP_LOAD_NO_INTERVALS, &log, &m) < 0) return 1;
  char b1[32], b2[32], b3[32];
  uint64_t tot_ev[6] = {0}, tot_ct[7] = {0}, steals = 0, runs_only = 0;
  if (!tsv)
    printf("Sparks in %s (%d capabilities; per-spark events: %s; SPARK_COUNTERS: %s)\n\n", path,
           m.n_caps, m.has_spark_events ? "yes" : "no (run with +RTS -lf)",
           m.has_counters ? "yes" : "no");
  if (!tsv)
    printf("%-6s %10s %10s %8s %8s %10s %10s %8s %8s %10s\n", "cap", "created", "converted", "(run",
           "stolen)", "fizzled", "overflowed", "dud", "GC'd", "remaining");
  for (int c = 0; c < m.n_caps; c++) {
    const LzpSparkTotals *s = &m.cap_sparks[c];
    uint64_t f[6];
    event_fates(s->counts, f);
    for (int i = 0; i < 6; i++)
      tot_ev[i] += f[i];
    for (int i = 0; i < 7; i++)
      tot_ct[i] += s->counters[i];
    steals += s->counts[LZP_SP_STEAL];
    runs_only += s->counts[LZP_SP_RUN];
    if (tsv) {
      printf("events\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", c,
             (unsigned long long)s->counts[0], (unsigned long long)s->counts[1],
             (unsigned long long)s->counts[2], (unsigned long long)s->counts[3],
             (unsigned long long)s->counts[4], (unsigned long long)s->counts[5],
             (unsigned long long)s->counts[6], (unsigned long long)f[3]);
      if (s->has_counters)
        printf("counters\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", c,
               (unsigned long long)s->counters[0], (unsigned long long)s->counters[1],
               (unsigned long long)s->counters[2], (unsigned long long)s->counters[3],
               (unsigned long long)s->counters[4], (unsigned long long)s->counters[5],
               (unsigned long long)s->counters[6]);
      continue;
    }
    if (m.has_spark_events)
      printf("%-6d %10llu %10llu %8llu %8llu %10llu %10llu %8llu %8llu %10s\n", c,
             (unsigned long long)f[0], (unsigned long long)f[3],
             (unsigned long long)s->counts[LZP_SP_RUN], (unsigned long long)s->counts[LZP_SP_STEAL],
             (unsigned long long)f[5], (unsigned long long)f[2], (unsigned long long)f[1],
             (unsigned long long)f[4], "");
    char label[16];
    snprintf(label, sizeof label, "%d", c);
    if (s->has_counters)
      printf("%-6s %10llu %10llu %8s %8s %10llu %10llu %8llu %8llu %10llu\n",
             m.has_spark_events ? "  ctr" : label, (unsigned long long)s->counters[0],
             (unsigned long long)s->counters[3], "", "", (unsigned long long)s->counters[5],
             (unsigned long long)s->counters[2], (unsigned long long)s->counters[1],
             (unsigned long long)s->counters[4], (unsigned long long)s->counters[6]);
  }
  if (!tsv) {
    if (m.has_spark_events)
      printf("%-6s %10llu %10llu %8llu %8llu %10llu %10llu %8llu %8llu\n", "total",
             (unsigned long long)tot_ev[0], (unsigned long long)tot_ev[3],
             (unsigned long long)runs_only, (unsigned long long)steals,
             (unsigned long long)tot_ev[5], (unsigned long long)tot_ev[2],
             (unsigned long long)tot_ev[1], (unsigned long long)tot_ev[4]);
    if (m.has_counters)
      printf("%-6s %10llu %10llu %8s %8s %10llu %10llu %8llu %8llu %10llu\n",
             m.has_spark_events ? "  ctr" : "total", (unsigned long long)tot_ct[0],
             (unsigned long long)tot_ct[3], "", "", (unsigned long long)tot_ct[5],
             (unsigned long long)tot_ct[2], (unsigned long long)tot_ct[1],
             (unsigned long long)tot_ct[4], (unsigned long long)tot_ct[6]);
    if (m.has_spark_events && m.has_counters) {
      int same = 1;
      for (int i = 0; i < 6; i++)
        same &= tot_ev[i] == tot_ct[i];
      printf("(rows \"ctr\": the capability's last SPARK_COUNTERS; per-spark events and counters "
             "%s)\n",
             same ? "agree" : "DIFFER");
    }
  }

  /* per site */
  if (m.has_site_info) site_table(&m, tsv);

  /* granularity */
  size_t nr = 0;
  uint64_t *runs = malloc((m.n_sparks ? m.n_sparks : 1) * sizeof *runs), sum = 0;
  for (size_t i = 0; runs && i < m.n_sparks; i++)
    if (m.sparks[i].kind == LZP_SP_RUN || m.sparks[i].kind == LZP_SP_STEAL) {
      runs[nr++] = m.sparks[i].run_ns;
      sum += m.sparks[i].run_ns;
    }
  uint64_t median = 0;
  if (nr) {
    qsort(runs, nr, sizeof *runs, cmp_u64);
    median = runs[nr / 2];
    uint64_t p90 = runs[nr * 9 / 10];
    if (tsv)
      printf("runs\t%zu\t%llu\t%llu\t%llu\n", nr, (unsigned long long)median,
             (unsigned long long)(sum / nr), (unsigned long long)p90);
    else {
      printf("\nSpark run times (%zu runs; a run is the running time of the thread that evaluates "
             "the spark, until it finishes or takes another):\n",
             nr);
      size_t bins[40] = {0};
      int lo = 40, hi = 0;
      for (size_t i = 0; i < nr; i++) {
        int k = 0; /* bin k: [2^k, 2^(k+1)) µs, bin 0 also < 1 µs */
        for (uint64_t us = runs[i] / 1000; us > 1 && k < 39; us >>= 1)
          k++;
        bins[k]++;
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
      }
      size_t maxb = 1;
      for (int k = lo; k <= hi; k++)
        maxb = bins[k] > maxb ? bins[k] : maxb;
      for (int k = lo; k <= hi; k++) {
        char range[48];
        if (k == 0)
          snprintf(range, sizeof range, "< 2 us");
        else
          snprintf(range, sizeof range, "%llu - %llu us", 1ull << k, 1ull << (k + 1));
        int bar = (int)(bins[k] * 50 / maxb);
        printf("  %-20s %8zu %.*s\n", range, bins[k], bar,
               "##################################################");
      }
      printf("  median %s, mean %s, 90th percentile %s\n", lzp_fmt_ns(median, b1, sizeof b1),
             lzp_fmt_ns(sum / nr, b2, sizeof b2), lzp_fmt_ns(p90, b3, sizeof b3));
    }
  }
  free(runs);

  /* verdict */
  const uint64_t *f = m.has_counters ? tot_ct : tot_ev;
  uint64_t created = f[0], fizzled = f[5], gcd = f[4];
  int said = 0;
  if (!tsv) {
    printf("\n");
    if (!m.has_counters && !m.has_spark_events)
      printf("verdict: the log has no spark information (run with +RTS -l or -lf)\n"), said = 1;
    else if (created + f[1] + f[2] == 0)
      printf("verdict: no sparks were created\n"), said = 1;
    if (nr && median < small_ns)
      printf("verdict: sparks are too small: median run %s < %s; give each par more work\n",
             lzp_fmt_ns(median, b1, sizeof b1), lzp_fmt_ns(small_ns, b2, sizeof b2)),
          said = 1;
    if (created && fizzled * 2 > created)
      printf(
          "verdict: most sparks fizzle (%llu of %llu): their values were demanded before an idle "
          "capability took them\n",
          (unsigned long long)fizzled, (unsigned long long)created),
          said = 1;
    if (created && gcd * 2 > created)
      printf("verdict: most sparks were GC'd (%llu of %llu): nothing demanded them, or they were "
             "created much faster than they were run\n",
             (unsigned long long)gcd, (unsigned long long)created),
          said = 1;
    if (!said) printf("verdict: spark granularity and fates look fine\n");
  }
  lzp_model_free(&m);
  lzp_log_free(&log);
  return 0;
}

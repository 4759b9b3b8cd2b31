/* timeline.c — `lzprof timeline LOG -o OUT.html|OUT.svg`, and the per-bin summary both
 * writers draw from.
 *
 * A summary divides [t_begin, t_end] into equal bins and gives, per capability and bin,
 * the fraction of the bin spent in each state (from the model's intervals, each spread
 * exactly over the bins it overlaps), and per bin the number of sparks created and
 * converted (run or stolen). It costs O(intervals + bins), so the picture of a million
 * events is as cheap to make as that of a hundred.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

int lzp_summary_build(const LzpModel *m, size_t bins, LzpSummary *s) {
  memset(s, 0, sizeof *s);
  s->bins = bins;
  s->n_caps = m->n_caps;
  s->t0 = m->t_begin;
  uint64_t span = m->t_end > m->t_begin ? m->t_end - m->t_begin : 1;
  s->bin_ns = (double)span / (double)bins;
  s->frac = calloc((size_t)m->n_caps * bins * LZP_N_STATES, sizeof *s->frac);
  s->created = calloc(bins, sizeof *s->created);
  s->converted = calloc(bins, sizeof *s->converted);
  if (!s->frac || !s->created || !s->converted) {
    lzp_summary_free(s);
    return -1;
  }
  for (int c = 0; c < m->n_caps; c++) {
    float *f = s->frac + (size_t)c * bins * LZP_N_STATES;
    for (size_t i = 0; i < m->n_iv[c]; i++) {
      const LzpInterval *iv = &m->iv[c][i];
      double a = (double)(iv->t0 - s->t0) / s->bin_ns, b = (double)(iv->t1 - s->t0) / s->bin_ns;
      size_t k = (size_t)a;
      for (; k < bins && (double)k < b; k++) {
        double lo = a > (double)k ? a : (double)k, hi = b < (double)(k + 1) ? b : (double)(k + 1);
        if (hi > lo) f[k * LZP_N_STATES + iv->state] += (float)(hi - lo);
      }
    }
    /* what no interval covers (before the capability's first event) counts as idle */
    for (size_t k = 0; k < bins; k++) {
      float *p = f + k * LZP_N_STATES, sum = p[1] + p[2] + p[3];
      p[LZP_IDLE] = sum < 1 ? 1 - sum : 0;
      if (sum > 1)
        for (int st = 1; st < LZP_N_STATES; st++)
          p[st] /= sum;
    }
  }
  for (size_t i = 0; i < m->n_sparks; i++) {
    const LzpSparkEvent *e = &m->sparks[i];
    size_t k = (size_t)((double)(e->time - s->t0) / s->bin_ns);
    if (k >= bins) k = bins - 1;
    if (e->kind == LZP_SP_CREATE)
      s->created[k]++;
    else if (e->kind == LZP_SP_RUN || e->kind == LZP_SP_STEAL)
      s->converted[k]++;
  }
  return 0;
}

void lzp_summary_free(LzpSummary *s) {
  free(s->frac);
  free(s->created);
  free(s->converted);
  memset(s, 0, sizeof *s);
}

static void usage(void) {
  fprintf(stderr,
          "usage: lzprof timeline LOG -o OUT.html|OUT.svg [--width PX] [--detail-budget BYTES]\n"
          "  OUT.html: interactive page (zoom, pan, click for details), self-contained\n"
          "  OUT.svg:  static picture\n");
}

int lzp_cmd_timeline(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  LzpTimelineOptions o = {.detail_budget = 2u << 20, .width = 1200};
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (!strcmp(argv[i], "--width") && i + 1 < argc)
      o.width = (unsigned)strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--detail-budget") && i + 1 < argc)
      o.detail_budget = strtoull(argv[++i], NULL, 10);
    else if (argv[i][0] == '-' || path) {
      usage();
      return 2;
    } else
      path = argv[i];
  }
  size_t ol = out ? strlen(out) : 0;
  int svg = ol > 4 && !strcmp(out + ol - 4, ".svg");
  int html =
      (ol > 5 && !strcmp(out + ol - 5, ".html")) || (ol > 4 && !strcmp(out + ol - 4, ".htm"));
  if (!path || !out || (!svg && !html) || o.width < 100 || o.width > 20000) {
    if (out && !svg && !html)
      fprintf(stderr, "lzprof timeline: the output must end in .html or .svg: %s\n", out);
    usage();
    return 2;
  }
  LzpLog log;
  LzpModel m;
  if (lzp_load("timeline", path, LZP_NEED_SCHED, &log, &m) < 0) return 1;
  const char *slash = strrchr(path, '/');
  o.title = slash ? slash + 1 : path;
  FILE *f = fopen(out, "w");
  int rc = 1;
  if (!f)
    perror(out);
  else {
    rc = svg ? lzp_timeline_svg(&m, f, &o) : lzp_timeline_html(&m, f, &o);
    if (fclose(f) != 0 && rc == 0) {
      perror(out);
      rc = 1;
    }
  }
  lzp_model_free(&m);
  lzp_log_free(&log);
  return rc;
}

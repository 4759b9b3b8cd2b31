/* timeline_svg.c — the static timeline picture (`lzprof timeline LOG -o OUT.svg`).
 *
 * One pixel column per summary bin: the activity graph (running capabilities over
 * time), the spark rates (created and converted per ms), then one row per capability
 * where each column is split in proportion to the time spent running / GC / blocked /
 * idle. Each state of a row is a single <path> of merged column runs, so the file size
 * depends on the width, not on the number of events.
 */
#include "timeline.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { LEFT = 80, RIGHT = 20, TOP = 30, AXIS = 24, ACT_H = 80, SPK_H = 50, ROW_H = 22, GAP = 8 };

static void xml_text(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '<')
      fputs("&lt;", f);
    else if (ch == '>')
      fputs("&gt;", f);
    else if (ch == '&')
      fputs("&amp;", f);
    else if (ch == '"')
      fputs("&quot;", f);
    else if (ch < 0x20 || ch >= 0x80)
      fputc('?', f); /* keep the file valid whatever the name's bytes */
    else
      fputc(ch, f);
  }
}

/* A nice step (1, 2, 5 × 10^k) for about N ticks over SPAN ns. */
double lzp_tick_step(double span, int n) {
  double raw = span / n, p = pow(10, floor(log10(raw > 0 ? raw : 1)));
  return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

static void band(FILE *f, const LzpSummary *s, int c, int state, const char *col, double y0,
                 unsigned w) {
  /* the state's share is drawn from the bottom of the row upwards, states stacked in
   * the order running, GC, blocked; each column a rectangle, equal neighbours merged */
  fprintf(f, "<path fill=\"%s\" d=\"", col);
  size_t k = 0;
  while (k < w) {
    const float *p = s->frac + ((size_t)c * s->bins + k) * LZP_N_STATES;
    double below = 0;
    for (int st = 1; st < state; st++)
      below += p[st];
    int lo = (int)lround(below * ROW_H), hi = (int)lround((below + p[state]) * ROW_H);
    size_t j = k + 1;
    while (j < w) {
      const float *q = s->frac + ((size_t)c * s->bins + j) * LZP_N_STATES;
      double b2 = 0;
      for (int st = 1; st < state; st++)
        b2 += q[st];
      if ((int)lround(b2 * ROW_H) != lo || (int)lround((b2 + q[state]) * ROW_H) != hi) break;
      j++;
    }
    if (hi > lo)
      fprintf(f, "M%zu %.0fh%zuv%dh-%zuz", LEFT + k, y0 + ROW_H - hi, j - k, hi - lo, j - k);
    k = j;
  }
  fprintf(f, "\"/>\n");
}

int lzp_timeline_svg(const LzpModel *m, FILE *f, const LzpTimelineOptions *o) {
  unsigned w = o->width - LEFT - RIGHT;
  LzpSummary s;
  if (lzp_summary_build(m, w, &s) < 0) {
    fprintf(stderr, "lzprof: out of memory\n");
    return 1;
  }
  double span = (double)(m->t_end - m->t_begin);
  int rows_y = TOP + AXIS + ACT_H + GAP + SPK_H + GAP;
  int height = rows_y + m->n_caps * (ROW_H + GAP) + 40;
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%d\" "
          "viewBox=\"0 0 %u %d\" font-family=\"sans-serif\" font-size=\"11\">\n",
          o->width, height, o->width, height);
  fprintf(f, "<title>lzprof timeline: ");
  xml_text(f, o->title);
  fprintf(f, "</title>\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"%d\" y=\"18\" font-size=\"14\">", LEFT);
  xml_text(f, o->title);
  char b[32];
  fprintf(f, " — %d capabilities, %zu events, %s</text>\n", m->n_caps, m->log->n_ev,
          lzp_fmt_ns((uint64_t)span, b, sizeof b));
  /* time axis */
  double step = lzp_tick_step(span > 0 ? span : 1, 10);
  fprintf(f, "<g stroke=\"#999\">\n");
  for (double t = 0; t <= span; t += step) {
    double x = LEFT + t / (span > 0 ? span : 1) * w;
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n", x, TOP + AXIS - 6, x,
            height - 40);
  }
  fprintf(f, "</g>\n<g fill=\"#333\" text-anchor=\"middle\">\n");
  for (double t = 0; t <= span; t += step)
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s</text>\n", LEFT + t / (span > 0 ? span : 1) * w,
            TOP + AXIS - 10, lzp_fmt_ns((uint64_t)t, b, sizeof b));
  fprintf(f, "</g>\n");
  /* activity: running capabilities */
  int ay = TOP + AXIS;
  fprintf(f, "<text x=\"4\" y=\"%d\">activity</text>\n", ay + 14);
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%u\" height=\"%d\" fill=\"none\" stroke=\"#ccc\"/>\n",
          LEFT, ay, w, ACT_H);
  fprintf(f, "<path fill=\"%s\" d=\"M%d %d", LZP_COL_RUNNING, LEFT, ay + ACT_H);
  for (size_t k = 0; k < w; k++) {
    double run = 0;
    for (int c = 0; c < m->n_caps; c++)
      run += s.frac[((size_t)c * s.bins + k) * LZP_N_STATES + LZP_RUNNING];
    double y = ay + ACT_H - run / m->n_caps * ACT_H;
    fprintf(f, "L%zu %.1fL%zu %.1f", LEFT + k, y, LEFT + k + 1, y);
  }
  fprintf(f, "L%u %dz\"/>\n", LEFT + w, ay + ACT_H);
  fprintf(f, "<text x=\"4\" y=\"%d\" fill=\"#666\">%d caps</text>\n", ay + 28, m->n_caps);
  /* spark rates */
  int sy = ay + ACT_H + GAP;
  uint32_t maxr = 1;
  for (size_t k = 0; k < w; k++) {
    maxr = s.created[k] > maxr ? s.created[k] : maxr;
    maxr = s.converted[k] > maxr ? s.converted[k] : maxr;
  }
  fprintf(f, "<text x=\"4\" y=\"%d\">sparks</text>\n", sy + 14);
  fprintf(f, "<text x=\"4\" y=\"%d\" fill=\"#666\">max %.3g/ms</text>\n", sy + 28,
          maxr / (s.bin_ns / 1e6));
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%u\" height=\"%d\" fill=\"none\" stroke=\"#ccc\"/>\n",
          LEFT, sy, w, SPK_H);
  const uint32_t *series[2] = {s.created, s.converted};
  const char *cols[2] = {LZP_COL_CREATED, LZP_COL_CONVERTED};
  for (int i = 0; i < 2; i++) {
    fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" points=\"", cols[i]);
    for (size_t k = 0; k < w; k++)
      fprintf(f, "%zu,%.1f ", LEFT + k, sy + SPK_H - (double)series[i][k] / maxr * SPK_H);
    fprintf(f, "\"/>\n");
  }
  /* capability rows */
  const char *state_cols[LZP_N_STATES] = {LZP_COL_IDLE, LZP_COL_RUNNING, LZP_COL_GC,
                                          LZP_COL_BLOCKED};
  for (int c = 0; c < m->n_caps; c++) {
    double y0 = rows_y + c * (ROW_H + GAP);
    fprintf(f, "<g class=\"cap\" id=\"cap%d\">\n<text x=\"4\" y=\"%.0f\">cap %d</text>\n", c,
            y0 + 15, c);
    fprintf(f, "<rect x=\"%d\" y=\"%.0f\" width=\"%u\" height=\"%d\" fill=\"%s\"/>\n", LEFT, y0, w,
            ROW_H, LZP_COL_IDLE);
    for (int st = 1; st < LZP_N_STATES; st++)
      band(f, &s, c, st, state_cols[st], y0, w);
    fprintf(f, "</g>\n");
  }
  /* key */
  int ky = height - 22, kx = LEFT;
  const char *names[6] = {"running", "GC", "blocked", "idle", "sparks created", "sparks converted"};
  const char *kc[6] = {LZP_COL_RUNNING, LZP_COL_GC,      LZP_COL_BLOCKED,
                       LZP_COL_IDLE,    LZP_COL_CREATED, LZP_COL_CONVERTED};
  for (int i = 0; i < 6; i++) {
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\" stroke=\"#888\"/>"
            "<text x=\"%d\" y=\"%d\">%s</text>\n",
            kx, ky, kc[i], kx + 16, ky + 10, names[i]);
    kx += 30 + 7 * (int)strlen(names[i]);
  }
  fprintf(f, "</svg>\n");
  lzp_summary_free(&s);
  return ferror(f) ? 1 : 0;
}

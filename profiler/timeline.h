/* timeline.h — between timeline.c (the command, per-bin summaries) and the two writers
 * timeline_html.c and timeline_svg.c. Not part of lzprof.h: nothing else needs it. */
#ifndef LZPROF_TIMELINE_H
#define LZPROF_TIMELINE_H

#include "lzprof.h"

typedef struct {
  size_t bins;
  int n_caps;
  uint64_t t0;                   /* time of bin 0's start */
  double bin_ns;                 /* width of a bin */
  float *frac;                   /* [cap][bin][state]: fraction of the bin spent in each state */
  uint32_t *created, *converted; /* [bin] sparks created / run or stolen */
} LzpSummary;

int lzp_summary_build(const LzpModel *m, size_t bins, LzpSummary *s);
void lzp_summary_free(LzpSummary *s);

/* A nice step (1, 2, 5 x 10^k) for about N axis ticks over SPAN ns (timeline_svg.c). */
double lzp_tick_step(double span, int n);

/* The page template (timeline_page.html, embedded at build time by embed.cmake): the
 * data goes where the marker is. */
extern const unsigned char lzp_timeline_page_bytes[];
#define lzp_timeline_page ((const char *)lzp_timeline_page_bytes)
#define LZP_PAGE_MARKER   "/*LZPROF_DATA*/"

/* ThreadScope's colours, shared by both writers. */
#define LZP_COL_RUNNING   "#33b333"
#define LZP_COL_GC        "#f0a000"
#define LZP_COL_BLOCKED   "#d94040"
#define LZP_COL_IDLE      "#f2f2f2"
#define LZP_COL_CREATED   "#5b8fd9"
#define LZP_COL_CONVERTED "#1b6e1b"

#endif

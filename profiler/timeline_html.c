/* timeline_html.c — the interactive timeline (`lzprof timeline LOG -o OUT.html`).
 *
 * The page is one file: the template timeline_page.html (styles and script inline, no
 * network) with a JSON object put where its marker is. The JSON holds a pyramid of
 * summaries (timeline.c) — 1024, 4096, ... bins over the whole run, each level four times
 * finer, at most 65536 bins — from which the script draws any zoom level by merging the
 * bins of the finest level not finer than a pixel; and, when they fit in a byte budget
 * (--detail-budget, default 2 MiB), the exact intervals of every capability and every
 * spark event, varint-encoded in base64, which the script draws and lets the user click
 * once a view holds few enough of them. A million-event log thus stays a page of a few
 * MB that draws only one canvas (no DOM node per event). Format: docs/notes/lzprof.md.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
  uint8_t *p;
  size_t n, cap;
  int oom;
} Bytes;

static void put(Bytes *b, uint8_t v) {
  if (b->n == b->cap) {
    size_t nc = b->cap ? b->cap * 2 : 4096;
    uint8_t *np = realloc(b->p, nc);
    if (!np) {
      b->oom = 1;
      return;
    }
    b->p = np;
    b->cap = nc;
  }
  b->p[b->n++] = v;
}

static void varint(Bytes *b, uint64_t v) {
  while (v >= 0x80) {
    put(b, (uint8_t)(v | 0x80));
    v >>= 7;
  }
  put(b, (uint8_t)v);
}

static void base64(FILE *f, const uint8_t *p, size_t n) {
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  fputc('"', f);
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                 (i + 2 < n ? p[i + 2] : 0);
    fputc(tab[v >> 18 & 63], f);
    fputc(tab[v >> 12 & 63], f);
    fputc(i + 1 < n ? tab[v >> 6 & 63] : '=', f);
    fputc(i + 2 < n ? tab[v & 63] : '=', f);
  }
  fputc('"', f);
}

/* A JSON string that is also safe inside <script>: no '<', '>' or '&' appear raw. */
static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(f, "\\%c", ch);
    else if (ch < 0x20 || ch == '<' || ch == '>' || ch == '&')
      fprintf(f, "\\u%04x", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

static int level_json(FILE *f, const LzpModel *m, size_t bins) {
  LzpSummary s;
  if (lzp_summary_build(m, bins, &s) < 0) return -1;
  Bytes st = {0}, sp = {0};
  for (int c = 0; c < m->n_caps; c++)
    for (size_t k = 0; k < bins; k++)
      for (int i = 1; i < LZP_N_STATES; i++)
        put(&st, (uint8_t)(s.frac[((size_t)c * bins + k) * LZP_N_STATES + i] * 255 + 0.5f));
  for (size_t k = 0; k < bins; k++) {
    uint32_t v[2] = {s.created[k] > 65535 ? 65535 : s.created[k],
                     s.converted[k] > 65535 ? 65535 : s.converted[k]};
    for (int i = 0; i < 2; i++) {
      put(&sp, (uint8_t)(v[i] >> 8));
      put(&sp, (uint8_t)v[i]);
    }
  }
  int rc = st.oom || sp.oom ? -1 : 0;
  if (!rc) {
    fprintf(f, "{\"bins\":%zu,\"states\":", bins);
    base64(f, st.p, st.n);
    fprintf(f, ",\"sparks\":");
    base64(f, sp.p, sp.n);
    fprintf(f, "}");
  }
  free(st.p);
  free(sp.p);
  lzp_summary_free(&s);
  return rc;
}

int lzp_timeline_html(const LzpModel *m, FILE *f, const LzpTimelineOptions *o) {
  const char *mark = strstr(lzp_timeline_page, LZP_PAGE_MARKER);
  if (!mark) {
    fprintf(stderr, "lzprof: internal error: the page template has no data marker\n");
    return 1;
  }
  uint64_t span = m->t_end - m->t_begin;
  /* the finest level: at most 65536 bins, 2^22 cells over all capabilities, 50 ns; and
   * when the exact records are embedded, no finer than needed for the page to switch
   * to them (it does once a view holds < 20000 intervals, about N/16 bins) */
  size_t finest = 65536;
  while (finest > 1024 && (finest * (size_t)m->n_caps > (1u << 22) || (double)span / finest < 50))
    finest /= 4;

  /* exact records, if they fit */
  Bytes iv = {0}, sk = {0};
  size_t *iv_n = calloc((size_t)m->n_caps, sizeof *iv_n);
  int with_iv = 1, with_sparks = 1;
  for (int c = 0; iv_n && c < m->n_caps && with_iv; c++) {
    uint64_t prev = m->t_begin;
    for (size_t i = 0; i < m->n_iv[c]; i++) {
      const LzpInterval *x = &m->iv[c][i];
      if (x->state == LZP_IDLE) continue;
      varint(&iv, x->t0 - prev);
      varint(&iv, x->t1 - x->t0);
      varint(&iv, (uint64_t)x->tid * 4 + x->state);
      if (x->state == LZP_RUNNING) {
        put(&iv, x->stop);
        if (x->stop == 8) varint(&iv, x->blocker);
      }
      prev = x->t1;
      iv_n[c]++;
    }
    if (iv.n > o->detail_budget) with_iv = 0;
  }
  if (!with_iv || !iv_n) with_sparks = 0;
  uint64_t prev = m->t_begin;
  for (size_t i = 0; with_sparks && i < m->n_sparks; i++) {
    const LzpSparkEvent *e = &m->sparks[i];
    varint(&sk, e->time - prev);
    prev = e->time;
    varint(&sk, (uint64_t)e->cap * 16 + e->kind * 2u + e->id_known);
    varint(&sk, e->id >> 48);
    varint(&sk, e->id & 0xffffffffffffull);
    varint(&sk, e->tid);
    varint(&sk, e->site);
    if (e->kind == LZP_SP_STEAL) varint(&sk, e->victim);
    if (e->kind == LZP_SP_RUN || e->kind == LZP_SP_STEAL) varint(&sk, e->run_ns);
    if (iv.n + sk.n > o->detail_budget) with_sparks = 0;
  }
  if (with_iv && with_sparks) {
    size_t n = m->n_sparks, need = 1024;
    for (int c = 0; c < m->n_caps; c++)
      n += iv_n[c];
    while (need < finest && need < n / 16)
      need *= 4;
    finest = need;
  }
  if (iv.oom || sk.oom || !iv_n) {
    fprintf(stderr, "lzprof: out of memory\n");
    free(iv.p);
    free(sk.p);
    free(iv_n);
    return 1;
  }

  fwrite(lzp_timeline_page, 1, (size_t)(mark - lzp_timeline_page), f);
  fprintf(f, "{\"title\":");
  json_str(f, o->title);
  fprintf(f, ",\"rts\":");
  json_str(f, m->log->rts_id);
  fprintf(f, ",\"events\":%zu,\"ncaps\":%d,\"span\":%llu,\"levels\":[", m->log->n_ev, m->n_caps,
          (unsigned long long)span);
  int rc = 0;
  for (size_t bins = 1024; bins <= finest && !rc; bins *= 4) {
    if (bins > 1024) fputc(',', f);
    rc = level_json(f, m, bins);
  }
  fprintf(f, "],\"intervals\":");
  if (with_iv) {
    fprintf(f, "{\"counts\":[");
    for (int c = 0; c < m->n_caps; c++)
      fprintf(f, "%s%zu", c ? "," : "", iv_n[c]);
    fprintf(f, "],\"data\":");
    base64(f, iv.p, iv.n);
    fprintf(f, "}");
  } else
    fprintf(f, "null");
  fprintf(f, ",\"sparks\":");
  if (with_sparks) {
    fprintf(f, "{\"count\":%zu,\"data\":", m->n_sparks);
    base64(f, sk.p, sk.n);
    fprintf(f, "}");
  } else
    fprintf(f, "null");
  fprintf(f, ",\"labels\":{");
  int first = 1;
  for (size_t i = 0; i < m->n_threads && i < 100000; i++) {
    const LzpThread *th = &m->threads[i];
    if (!th->label[0] && !th->spark_thread) continue;
    fprintf(f, "%s\"%u\":", first ? "" : ",", th->tid);
    char buf[80];
    snprintf(buf, sizeof buf, "%s%s%s", th->label, th->label[0] && th->spark_thread ? ", " : "",
             th->spark_thread ? "spark thread" : "");
    json_str(f, buf);
    first = 0;
  }
  fprintf(f, "},\"sites\":[");
  for (size_t i = 0; i < m->n_sites; i++) {
    fputs(i ? "," : "", f);
    json_str(f, m->sites[i].label ? m->sites[i].label : "");
  }
  fprintf(f, "]}");
  fputs(mark + strlen(LZP_PAGE_MARKER), f);
  if (!with_iv || !with_sparks)
    fprintf(stderr,
            "lzprof: note: %s not embedded (over --detail-budget %zu bytes); the page "
            "shows per-pixel summaries%s\n",
            with_iv ? "individual spark events" : "individual intervals and spark events",
            o->detail_budget, with_iv ? " of sparks" : "");
  free(iv.p);
  free(sk.p);
  free(iv_n);
  return rc || ferror(f) ? 1 : 0;
}

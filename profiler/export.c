/* export.c — `lzprof export LOG --chrome OUT.json --speedscope OUT.json`: the model in two
 * viewers' formats, so a run can be looked at in Perfetto / chrome://tracing or in
 * speedscope.
 *
 * Chrome's trace-event JSON ("JSON Object Format"): one process, one track (tid) per
 * capability, named by metadata events; each non-idle interval of the capability a
 * complete event ("X": running thread, GC, blocked), each spark event and each user
 * checkpoint (traceEvent/traceMarker) an instant event ("i") on its capability's track.
 * Times are µs with three decimals, i.e. exact nanoseconds.
 *
 * speedscope's file format (https://www.speedscope.app/file-format-schema.json): the log
 * has no cost-centre samples yet, so each capability becomes an "evented" profile whose
 * stacks are the thread running (one frame per thread), with the spark it is running on
 * top (one frame per `par` site) and GC; idle and blocked time is no stack. What changes
 * when profiling samples exist: docs/notes/lzprof.md, "export".
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

static void usage(void) {
  fprintf(stderr, "usage: lzprof export LOG [--chrome OUT.json] [--speedscope OUT.json]\n"
                  "  the timeline as Chrome/Perfetto trace events, or speedscope profiles\n");
}

/* A JSON string from N bytes of (supposedly) UTF-8: control characters escaped, bytes
 * that are not valid UTF-8 replaced by '?' (a strict parser rejects them). */
static void json_bytes(FILE *f, const uint8_t *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\') {
      fputc('\\', f);
      fputc(c, f);
      i++;
    } else if (c < 0x20) {
      fprintf(f, "\\u%04x", c);
      i++;
    } else if (c < 0x80) {
      fputc(c, f);
      i++;
    } else {
      size_t k = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
      int ok = k && i + k <= n;
      for (size_t j = 1; ok && j < k; j++)
        ok = (s[i + j] & 0xc0) == 0x80;
      if (ok && k == 3) ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0);
      if (ok && k == 4) ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
      if (ok) {
        fwrite(s + i, 1, k, f);
        i += k;
      } else {
        fputc('?', f);
        i++;
      }
    }
  }
  fputc('"', f);
}
static void json_str(FILE *f, const char *s) { json_bytes(f, (const uint8_t *)s, strlen(s)); }

static void us(FILE *f, uint64_t ns) { /* ns as µs with three decimals */
  fprintf(f, "%llu.%03u", (unsigned long long)(ns / 1000), (unsigned)(ns % 1000));
}

/* Thread ids -> index in m->threads, by binary search over a sorted copy (the model's
 * own lookup is linear, and there is one per interval here). */
typedef struct {
  uint32_t tid, index;
} TidIndex;
static TidIndex *tids;
static size_t n_tids;

static int cmp_tid(const void *a, const void *b) {
  uint32_t x = ((const TidIndex *)a)->tid, y = ((const TidIndex *)b)->tid;
  return x < y ? -1 : x > y;
}
static int index_threads(const LzpModel *m) {
  n_tids = m->n_threads;
  tids = malloc((n_tids ? n_tids : 1) * sizeof *tids);
  if (!tids) return -1;
  for (size_t i = 0; i < n_tids; i++)
    tids[i] = (TidIndex){m->threads[i].tid, (uint32_t)i};
  qsort(tids, n_tids, sizeof *tids, cmp_tid);
  return 0;
}
static const LzpThread *find_thread(const LzpModel *m, uint32_t tid) {
  TidIndex key = {tid, 0}, *hit = bsearch(&key, tids, n_tids, sizeof *tids, cmp_tid);
  return hit ? &m->threads[hit->index] : NULL;
}

static void thread_name(const LzpModel *m, uint32_t tid, char *buf, size_t n) {
  const LzpThread *th = find_thread(m, tid);
  if (th && th->label[0])
    snprintf(buf, n, "thread %u (%s)", tid, th->label);
  else
    snprintf(buf, n, "thread %u%s", tid, th && th->spark_thread ? " (spark thread)" : "");
}

/* ---- Chrome / Perfetto ------------------------------------------------------------------- */

static int write_chrome(const LzpModel *m, const char *log_path, FILE *f) {
  const LzpLog *log = m->log;
  char name[128];
  fprintf(f, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"log\":");
  json_str(f, log_path);
  fprintf(f, ",\"rts\":");
  json_str(f, log->rts_id);
  fprintf(f, ",\"capabilities\":%d},\n\"traceEvents\":[\n", m->n_caps);
  fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":");
  json_str(f, log->prog_name[0] ? log->prog_name : log_path);
  fprintf(f, "}}");
  for (int c = 0; c < m->n_caps; c++)
    fprintf(f,
            ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":"
            "\"cap %d\"}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
            "\"args\":{\"sort_index\":%d}}",
            c, c, c, c);
  for (int c = 0; c < m->n_caps; c++)
    for (size_t i = 0; i < m->n_iv[c]; i++) {
      const LzpInterval *v = &m->iv[c][i];
      if (v->state == LZP_IDLE) continue;
      if (v->state == LZP_RUNNING)
        thread_name(m, v->tid, name, sizeof name);
      else if (v->state == LZP_BLOCKED)
        snprintf(name, sizeof name, "blocked (thread %u)", v->tid);
      else
        snprintf(name, sizeof name, "GC");
      fprintf(f, ",\n{\"name\":");
      json_str(f, name);
      fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":",
              lzp_state_names[v->state], c);
      us(f, v->t0 - m->t_begin);
      fprintf(f, ",\"dur\":");
      us(f, v->t1 - v->t0);
      fprintf(f, ",\"args\":{\"cap\":%d", c);
      if (v->state != LZP_GC) fprintf(f, ",\"thread\":%u", v->tid);
      if (v->state == LZP_RUNNING) {
        fprintf(f, ",\"stop\":");
        json_str(f, v->stop != 255      ? lzp_stop_name(v->stop)
                    : v->t1 == m->t_end ? "still running at the end of the log"
                                        : "interrupted (GC)");
        if (v->blocker) fprintf(f, ",\"black_hole_owner\":%u", v->blocker);
      }
      fprintf(f, "}}");
    }
  for (size_t i = 0; i < m->n_sparks; i++) {
    const LzpSparkEvent *s = &m->sparks[i];
    fprintf(f,
            ",\n{\"name\":\"spark %s\",\"cat\":\"spark\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
            "\"tid\":%d,\"ts\":",
            lzp_spark_kind_names[s->kind], s->cap);
    us(f, s->time - m->t_begin);
    fprintf(f, ",\"args\":{\"spark\":\"%d:%llu%s\",\"thread\":%u", (int)(s->id >> 48),
            (unsigned long long)(s->id & 0xffffffffffffull), s->id_known ? "" : " (inferred)",
            s->tid);
    if (s->site) {
      fprintf(f, ",\"site\":");
      json_str(f, m->sites[s->site - 1].label);
    }
    if (s->kind == LZP_SP_STEAL) fprintf(f, ",\"victim\":%u", s->victim);
    if (s->kind == LZP_SP_RUN || s->kind == LZP_SP_STEAL)
      fprintf(f, ",\"run_ns\":%llu", (unsigned long long)s->run_ns);
    fprintf(f, "}}");
  }
  uint32_t *running = calloc((size_t)m->n_caps, sizeof *running);
  if (!running) return -1;
  LzpIter *it = lzp_iter_new(log);
  if (!it) {
    free(running);
    return -1;
  }
  for (const LzpEvent *e; (e = lzp_iter_next(it));) {
    int c = e->cap;
    if (c >= 0 && e->type == LZP_RUN_THREAD) running[c] = lzp_u32(log, e, 0);
    if (c >= 0 && e->type == LZP_STOP_THREAD) running[c] = 0;
    if (e->type != LZP_USER_MSG && e->type != LZP_USER_MARKER) continue;
    fprintf(f, ",\n{\"name\":");
    json_bytes(f, log->data + e->payload, e->len);
    fprintf(f, ",\"cat\":\"%s\",\"ph\":\"i\",\"s\":\"%s\",\"pid\":1,\"tid\":%d,\"ts\":",
            e->type == LZP_USER_MARKER ? "traceMarker" : "traceEvent", c >= 0 ? "t" : "g",
            c >= 0 ? c : 0);
    us(f, e->time - m->t_begin);
    fprintf(f, ",\"args\":{\"thread\":%u}}", c >= 0 ? running[c] : 0);
  }
  lzp_iter_free(it);
  free(running);
  fprintf(f, "\n]}\n");
  return 0;
}

/* ---- speedscope ---------------------------------------------------------------------------- */

/* Frames: 0 "GC", 1 "spark (no site)", 2 + s: spark site s + 1, then one per thread in
 * the order of m->threads. */
static void speedscope_event(FILE *f, int *first, char type, size_t frame, uint64_t at) {
  fprintf(f, "%s{\"type\":\"%c\",\"frame\":%zu,\"at\":%llu}", *first ? "" : ",", type, frame,
          (unsigned long long)at);
  *first = 0;
}

static int write_speedscope(const LzpModel *m, const char *log_path, FILE *f) {
  char name[128];
  /* thread id -> index in m->threads, for the frame numbers */
  size_t base = 2 + m->n_sites;
  fprintf(f, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n"
             "\"exporter\":\"lzprof\",\"name\":");
  json_str(f, log_path);
  fprintf(f, ",\"activeProfileIndex\":0,\n\"shared\":{\"frames\":[{\"name\":\"GC\"},"
             "{\"name\":\"spark\"}");
  for (size_t s = 0; s < m->n_sites; s++) {
    snprintf(name, sizeof name, "spark %s", m->sites[s].label ? m->sites[s].label : "?");
    fprintf(f, ",\n{\"name\":");
    json_str(f, name);
    fprintf(f, "}");
  }
  for (size_t i = 0; i < m->n_threads; i++) {
    thread_name(m, m->threads[i].tid, name, sizeof name);
    fprintf(f, ",\n{\"name\":");
    json_str(f, name);
    fprintf(f, "}");
  }
  fprintf(f, "]},\n\"profiles\":[");
  for (int c = 0; c < m->n_caps; c++) {
    fprintf(f,
            "%s\n{\"type\":\"evented\",\"name\":\"cap %d\",\"unit\":\"nanoseconds\","
            "\"startValue\":%llu,\"endValue\":%llu,\"events\":[",
            c ? "," : "", c, (unsigned long long)m->t_begin, (unsigned long long)m->t_end);
    int first = 1;
    size_t sp = 0; /* next spark event to look at */
    for (size_t i = 0; i < m->n_iv[c]; i++) {
      const LzpInterval *v = &m->iv[c][i];
      if (v->state == LZP_GC) {
        speedscope_event(f, &first, 'O', 0, v->t0);
        speedscope_event(f, &first, 'C', 0, v->t1);
      }
      if (v->state != LZP_RUNNING) continue;
      const LzpThread *th = find_thread(m, v->tid);
      size_t frame = th ? base + (size_t)(th - m->threads) : 0;
      speedscope_event(f, &first, 'O', frame, v->t0);
      /* spark runs starting in this run, clipped to it (stacks must nest) */
      while (sp < m->n_sparks && m->sparks[sp].time < v->t1) {
        const LzpSparkEvent *s = &m->sparks[sp++];
        if (s->cap != c || s->time < v->t0 || (s->kind != LZP_SP_RUN && s->kind != LZP_SP_STEAL))
          continue;
        uint64_t end = s->time + s->run_ns < v->t1 ? s->time + s->run_ns : v->t1;
        size_t sf = s->site ? 1 + s->site : 1;
        speedscope_event(f, &first, 'O', sf, s->time);
        speedscope_event(f, &first, 'C', sf, end);
      }
      speedscope_event(f, &first, 'C', frame, v->t1);
    }
    fprintf(f, "]}");
  }
  fprintf(f, "\n]}\n");
  return 0;
}

static int write_file(const char *out, const LzpModel *m, const char *log_path,
                      int (*writer)(const LzpModel *, const char *, FILE *)) {
  FILE *f = fopen(out, "w");
  if (!f) {
    perror(out);
    return 1;
  }
  int rc = writer(m, log_path, f);
  if (fclose(f) != 0 || rc < 0) {
    fprintf(stderr, "lzprof: %s: write error or out of memory\n", out);
    return 1;
  }
  return 0;
}

int lzp_cmd_export(int argc, char **argv) {
  const char *path = NULL, *chrome = NULL, *speedscope = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--chrome") && i + 1 < argc)
      chrome = argv[++i];
    else if (!strcmp(argv[i], "--speedscope") && i + 1 < argc)
      speedscope = argv[++i];
    else if (argv[i][0] == '-' || path) {
      usage();
      return 2;
    } else
      path = argv[i];
  }
  if (!path || (!chrome && !speedscope)) {
    usage();
    return 2;
  }
  LzpLog log;
  LzpModel m;
  if (lzp_load("export", path, LZP_NEED_SCHED, &log, &m) < 0) return 1;
  int rc = 0;
  if (!rc && index_threads(&m) < 0) {
    fprintf(stderr, "lzprof: out of memory\n");
    rc = 1;
  }
  if (!rc && chrome) rc = write_file(chrome, &m, path, write_chrome);
  if (!rc && speedscope) rc = write_file(speedscope, &m, path, write_speedscope);
  free(tids);
  lzp_model_free(&m);
  lzp_log_free(&log);
  return rc;
}

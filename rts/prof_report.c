/* prof_report.c — writing the cost-centre profile: GHC's `.prof` text layout (+RTS -p,
 * -pa) and its JSON form (-pj).
 *
 * The layout is GHC 9.0's ProfilerReport.c, column for column, so tools that read GHC's
 * profiles (profiteur, ghc-prof-flamegraph, speedscope for the JSON) read ours: a header
 * (date, command line, total time in ticks and processors, total allocation), the flat
 * table of cost centres above 1 % of time or allocation sorted by time then allocation,
 * and the tree of cost-centre stacks from MAIN, indented one space per level, with `no.`,
 * `entries`, individual and inherited `%time` and `%alloc`. Stacks with no entries, no
 * ticks, no allocation and no remaining children are left out (all are kept with -pa);
 * children are printed in order of inherited time, then of creation. Times: total time =
 * ticks x interval / processors, as GHC computes it.
 */
#include "prof.h"
#include "rts_priv.h"

#if LZ_PROF
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Totals {
  uint64_t ticks, alloc;
} Totals;

/* ---- aggregation --------------------------------------------------------------------------- */

static void inherit(LzCCS *s) {
  s->inh_ticks = s->ticks;
  s->inh_alloc = s->alloc;
  for (LzCCS *c = s->children; c; c = c->sibling) {
    inherit(c);
    s->inh_ticks += c->inh_ticks;
    s->inh_alloc += c->inh_alloc;
  }
}

static int by_inherited(const void *a, const void *b) {
  const LzCCS *x = *(LzCCS *const *)a, *y = *(LzCCS *const *)b;
  if (x->inh_ticks != y->inh_ticks) return x->inh_ticks > y->inh_ticks ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Children in report order, pruned unless `all`; returns whether s itself is kept. */
static bool arrange(LzCCS *s, bool all) {
  size_t n = 0;
  for (LzCCS *c = s->children; c; c = c->sibling)
    n++;
  LzCCS **v = n ? malloc(n * sizeof *v) : NULL;
  size_t k = 0;
  for (LzCCS *c = s->children; c; c = c->sibling)
    if (arrange(c, all) && v) v[k++] = c;
  if (k) qsort(v, k, sizeof *v, by_inherited);
  s->children = NULL;
  for (size_t i = k; i-- > 0;) {
    v[i]->sibling = s->children;
    s->children = v[i];
  }
  free(v);
  return all || s->children || s->entries || s->ticks || s->alloc;
}

/* Costs per cost centre, over every stack it tops. */
typedef struct CCRow {
  LzProfCC *cc;
  uint64_t ticks, alloc;
} CCRow;

static int by_cost(const void *a, const void *b) {
  const CCRow *x = a, *y = b;
  if (x->ticks != y->ticks) return x->ticks > y->ticks ? -1 : 1;
  if (x->alloc != y->alloc) return x->alloc > y->alloc ? -1 : 1;
  return x->cc->id < y->cc->id ? -1 : x->cc->id > y->cc->id;
}

static CCRow *cc_rows(size_t *n_out) {
  uint64_t max = 0;
  for (LzCCS *s = lz_prof_all_stacks(); s; s = s->next_all)
    if (s->cc->id > max) max = s->cc->id;
  CCRow *rows = calloc(max + 1, sizeof *rows);
  if (!rows) lz_heap_exhausted();
  for (LzCCS *s = lz_prof_all_stacks(); s; s = s->next_all) {
    CCRow *r = &rows[s->cc->id];
    r->cc = s->cc;
    r->ticks += s->ticks;
    r->alloc += s->alloc;
  }
  size_t k = 0;
  for (uint64_t i = 0; i <= max; i++)
    if (rows[i].cc) rows[k++] = rows[i];
  qsort(rows, k, sizeof *rows, by_cost);
  *n_out = k;
  return rows;
}

/* ---- text ------------------------------------------------------------------------------------ */

static int width(const char *s) { /* characters, for UTF-8 names */
  int n = 0;
  for (; *s; s++)
    n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

static double pct(uint64_t x, uint64_t total) {
  return total ? (double)x / (double)total * 100.0 : 0.0;
}

typedef struct Widths {
  int label, module, src, id;
} Widths;

static void tree_widths(LzCCS *s, int indent, Widths *w) {
  char id[32];
  if (indent + width(s->cc->label) > w->label) w->label = indent + width(s->cc->label);
  if (width(s->cc->module) > w->module) w->module = width(s->cc->module);
  if (width(s->cc->srcloc) > w->src) w->src = width(s->cc->srcloc);
  if ((int)snprintf(id, sizeof id, "%u", s->id) > w->id) w->id = (int)strlen(id);
  for (LzCCS *c = s->children; c; c = c->sibling)
    tree_widths(c, indent + 1, w);
}

static void tree_rows(FILE *f, LzCCS *s, int indent, const Widths *w, Totals t) {
  fprintf(f, "%*s%s%*s %s%*s %s%*s", indent, "", s->cc->label,
          w->label - indent - width(s->cc->label), "", s->cc->module,
          w->module - width(s->cc->module), "", s->cc->srcloc, w->src - width(s->cc->srcloc), "");
  fprintf(f, " %*u%11llu  %5.1f  %5.1f   %5.1f  %5.1f\n", w->id, s->id,
          (unsigned long long)s->entries, pct(s->ticks, t.ticks), pct(s->alloc, t.alloc),
          pct(s->inh_ticks, t.ticks), pct(s->inh_alloc, t.alloc));
  for (LzCCS *c = s->children; c; c = c->sibling)
    tree_rows(f, c, indent + 1, w, t);
}

static void flat_table(FILE *f, Totals t, bool all) {
  size_t n;
  CCRow *rows = cc_rows(&n);
  Widths w = {width("COST CENTRE"), width("MODULE"), width("SRC"), 0};
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    CCRow *r = &rows[i];
    if (!(all || r->ticks > t.ticks / 100 || r->alloc > t.alloc / 100)) continue;
    rows[k++] = *r;
    if (width(r->cc->label) > w.label) w.label = width(r->cc->label);
    if (width(r->cc->module) > w.module) w.module = width(r->cc->module);
    if (width(r->cc->srcloc) > w.src) w.src = width(r->cc->srcloc);
  }
  fprintf(f, "%-*s %-*s %-*s", w.label, "COST CENTRE", w.module, "MODULE", w.src, "SRC");
  fprintf(f, " %6s %6s\n\n", "%time", "%alloc");
  for (size_t i = 0; i < k; i++) {
    LzProfCC *cc = rows[i].cc;
    fprintf(f, "%s%*s %s%*s %s%*s", cc->label, w.label - width(cc->label), "", cc->module,
            w.module - width(cc->module), "", cc->srcloc, w.src - width(cc->srcloc), "");
    fprintf(f, " %6.1f %6.1f\n", pct(rows[i].ticks, t.ticks), pct(rows[i].alloc, t.alloc));
  }
  fprintf(f, "\n\n");
  free(rows);
}

/* "x +RTS -p -RTS args": the options GHC's report shows, from the saved command line. */
static void command_line(FILE *f) {
  fprintf(f, " %s +RTS", lz_prog_name);
  bool in = false, rest = false;
  for (int i = 1; i < lz_prof_config.argc; i++) {
    const char *a = lz_prof_config.argv[i];
    if (rest) continue;
    if (!strcmp(a, "--RTS"))
      rest = true;
    else if (!strcmp(a, "+RTS"))
      in = true;
    else if (!strcmp(a, "-RTS"))
      in = false;
    else if (in)
      fprintf(f, " %s", a);
  }
  fprintf(f, " -RTS");
  for (int i = 0; i < lz_prog_argc; i++)
    fprintf(f, " %s", lz_prog_argv[i]);
}

static void end_time(char *buf, size_t n) {
  time_t now = time(NULL);
  struct tm tm;
  localtime_r(&now, &tm);
  strftime(buf, n, "%a %b %d %H:%M %Y", &tm);
}

static void text_report(FILE *f, Totals t, unsigned ncaps, bool all) {
  char date[64], commas[32];
  end_time(date, sizeof date);
  fprintf(f, "\t%s Time and Allocation Profiling Report  (Final)\n", date);
  fprintf(f, "\n\t  ");
  command_line(f);
  fprintf(f, "\n\n");
  if (lz_prof_config.replay_log) /* Note [Profiling], "Profiling a replay" */
    fprintf(f, "\t(profile of a replay of %s: times are the recorded run's)\n\n",
            lz_prof_config.replay_log);
  double us = (double)lz_prof_config.tick_ns / 1000.0;
  fprintf(f, "\ttotal time  = %11.2f secs   (%llu ticks @ %d us, %u processor%s)\n",
          (double)t.ticks * us / 1e6 / ncaps, (unsigned long long)t.ticks, (int)us, ncaps,
          ncaps > 1 ? "s" : "");
  fprintf(f, "\ttotal alloc = %11s bytes", lz_format_commas(t.alloc, commas));
  fprintf(f, "  (excludes profiling overheads)\n\n");
  flat_table(f, t, all);
  Widths w = {width("COST CENTRE"), width("MODULE"), width("SRC"), width("no.")};
  tree_widths(&lz_prof_main_ccs, 0, &w);
  fprintf(f, "%-*s %-*s %-*s %-*s", w.label, "", w.module, "", w.src, "", w.id, "");
  fprintf(f, " %11s  %12s   %12s\n", "", "individual", "inherited");
  fprintf(f, "%-*s %-*s %-*s %-*s", w.label, "COST CENTRE", w.module, "MODULE", w.src, "SRC", w.id,
          "no.");
  fprintf(f, " %11s  %5s %6s   %5s %6s\n\n", "entries", "%time", "%alloc", "%time", "%alloc");
  tree_rows(f, &lz_prof_main_ccs, 0, &w, t);
}

/* ---- JSON -------------------------------------------------------------------------------------
 */

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

static void json_tree(FILE *f, LzCCS *s) {
  fprintf(f, "{\"id\": %llu, \"entries\": %llu, \"alloc\": %llu, \"ticks\": %llu, \"children\": [",
          (unsigned long long)s->cc->id, (unsigned long long)s->entries,
          (unsigned long long)s->alloc, (unsigned long long)s->ticks);
  for (LzCCS *c = s->children; c; c = c->sibling) {
    json_tree(f, c);
    if (c->sibling) fputs(", ", f);
  }
  fputs("]}", f);
}

static void json_report(FILE *f, Totals t, unsigned ncaps) {
  char date[64];
  end_time(date, sizeof date);
  fprintf(f, "{\n\"program\": ");
  json_string(f, lz_prog_name);
  fprintf(f, ",\n\"arguments\": [");
  bool in = false, first = true;
  for (int i = 0; i < lz_prof_config.argc; i++) { /* GHC: argv[0] and the program's */
    const char *a = lz_prof_config.argv[i];
    if (!strcmp(a, "+RTS") || !strcmp(a, "-RTS")) {
      in = a[0] == '+';
      continue;
    }
    if (in) continue;
    fputs(first ? "" : ", ", f);
    json_string(f, a);
    first = false;
  }
  fprintf(f, "],\n\"rts_arguments\": [");
  in = false, first = true;
  for (int i = 1; i < lz_prof_config.argc; i++) {
    const char *a = lz_prof_config.argv[i];
    if (!strcmp(a, "+RTS") || !strcmp(a, "-RTS")) {
      in = a[0] == '+';
      continue;
    }
    if (!in) continue;
    fputs(first ? "" : ", ", f);
    json_string(f, a);
    first = false;
  }
  fprintf(f, "],\n\"end_time\": ");
  json_string(f, date);
  double us = (double)lz_prof_config.tick_ns / 1000.0;
  fprintf(f, ",\n\"initial_capabilities\": %u,\n", ncaps);
  fprintf(f, "\"total_time\": %11.2f,\n", (double)t.ticks * us / 1e6 / ncaps);
  fprintf(f, "\"total_ticks\": %llu,\n\"tick_interval\": %d,\n\"total_alloc\":%llu,\n",
          (unsigned long long)t.ticks, (int)us, (unsigned long long)t.alloc);
  if (lz_prof_config.replay_log) {
    fprintf(f, "\"replay_of\": ");
    json_string(f, lz_prof_config.replay_log);
    fprintf(f, ",\n");
  }
  fprintf(f, "\"cost_centres\": [\n");
  size_t n;
  CCRow *rows = cc_rows(&n);
  for (size_t i = 0; i < n; i++) {
    LzProfCC *cc = rows[i].cc;
    fprintf(f, "%s{\"id\": %llu, \"label\": ", i ? ", " : "", (unsigned long long)cc->id);
    json_string(f, cc->label);
    fprintf(f, ", \"module\": ");
    json_string(f, cc->module);
    fprintf(f, ", \"src_loc\": ");
    json_string(f, cc->srcloc);
    fprintf(f, ", \"is_caf\": %s}", strcmp(cc->label, "CAF") ? "false" : "true");
  }
  free(rows);
  fprintf(f, "]\n,\n\"profile\": ");
  json_tree(f, &lz_prof_main_ccs);
  fprintf(f, "\n}\n");
}

void lz_prof_write_report(const char *path, unsigned ncaps) {
  inherit(&lz_prof_main_ccs);
  Totals t = {lz_prof_main_ccs.inh_ticks, lz_prof_main_ccs.inh_alloc};
  int mode = lz_prof_config.report;
  arrange(&lz_prof_main_ccs, mode != 1);
  FILE *f = fopen(path, "w");
  if (!f) {
    lz_message("cannot write the profile %s", path);
    return;
  }
  if (mode == 3)
    json_report(f, t, ncaps ? ncaps : 1);
  else
    text_report(f, t, ncaps ? ncaps : 1, mode == 2);
  if (fclose(f) != 0) lz_message("error writing the profile %s", path);
}

#endif

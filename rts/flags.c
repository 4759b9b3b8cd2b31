/* flags.c — the +RTS ... -RTS command line, as GHC's runtime reads it.
 *
 * Arguments between "+RTS" and "-RTS" (or the end) are runtime options and are removed
 * from what the program sees; "--RTS" ends option processing (it is removed, everything
 * after it goes to the program). The vanilla runtime understands -s[file], -K<size>,
 * -M<size>, -? and -A/-H<size> (GHC's allocation-area and heap-size hints; here both set
 * Boehm's initial heap, which decides how often it collects while live data is small:
 * -A per capability, -H the total),
 * -F<factor> (the heap's size against the live data: Note [Heap sizing]); the threaded
 * way also -N, -C, -e, -qn<n>/-qg (GC threads: Note [GC threads]). Options that exist
 * only in other ways of building get GHC's message naming the compile flag ("the flag
 * -N2 requires the program to be built with -threaded"); anything else is "unknown RTS option".
 * Sizes are GHC's: a number (decimal point allowed) with an optional k, m, g (powers of 1024) or w
 * (words) suffix. Parsing is pure (lz_parse_rts_flags); printing and exiting are the caller's.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventlog.h"
#include "rts_priv.h"
#if LZ_REPLAY
#include "replay.h"
#include "replay_dup.h"
#include "replay_step.h"
#endif
#if LZ_PROF
#include "prof.h"
#endif

LzFlags lz_flags;

void lz_flags_default(LzFlags *f) {
  memset(f, 0, sizeof *f);
  /* GHC's default -K: 80% of physical memory. */
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  size_t phys = pages > 0 && page > 0 ? (size_t)pages * (size_t)page : (size_t)8 << 30;
  f->max_stack_bytes = phys / 10 * 8;
  f->initial_heap_bytes = (size_t)16 << 20; /* measured: sumeuler 6000 at -A4m spends 30-50 %
                                               of its time in 800+ collections, at -A16m 10 % */
  f->heap_factor = 5; /* Note [Heap sizing], "The default, again": 5 rather than 8 */
  f->eventlog_classes = LZ_EVC_DEFAULT;
  f->ncaps = 1;
  f->ctx_switch_ns = 20000000u; /* GHC's default -C0.02 */
  f->spark_pool = 4096;         /* GHC's default -e4096 (Note [Spark pools]) */
}

bool lz_parse_size(const char *s, size_t *out) {
  char *end;
  if (!s || !*s || (*s < '0' || *s > '9')) return false;
  double v = strtod(s, &end);
  double mult = 1;
  switch (*end) {
  case 0: break;
  case 'k':
  case 'K':
    mult = 1024.0;
    end++;
    break;
  case 'm':
  case 'M':
    mult = 1024.0 * 1024;
    end++;
    break;
  case 'g':
  case 'G':
    mult = 1024.0 * 1024 * 1024;
    end++;
    break;
  case 'w':
  case 'W':
    mult = sizeof(LzWord);
    end++;
    break;
  default: return false;
  }
  if (*end) return false;
  v *= mult;
  if (!(v >= 0) || v > 1e18) return false;
  *out = (size_t)v;
  return true;
}

static int fail(char *err, size_t errlen, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return 1;
}

/* The flag needs another way of building the program? Returns the compile flags. */
static const char *other_way(const char *a) {
#if !LZ_THREADED
  if (a[1] == 'N' || (a[1] == 'q' && a[2]) || !strcmp(a, "--lazy-blackholing")) return "-threaded";
#endif
#if !LZ_WAY_EVENTLOG
  if (a[1] == 'l' || !strcmp(a, "-v") || !strncmp(a, "-ol", 3)) return "-eventlog";
#endif
#if !LZ_PROF
  if (a[1] == 'p' || a[1] == 'P' || (a[1] == 'h' && a[2] != 0) || !strcmp(a, "-h") ||
      !strcmp(a, "-xc") || a[1] == 'i')
    return "-prof";
#endif
#if !LZ_REPLAY
  if (!strncmp(a, "--record", 8) || !strncmp(a, "--replay", 8)) return "-replay";
#endif
  if (!strncmp(a, "--step", 6) || !strncmp(a, "--dup-report", 12)) return "-replay";
  return NULL;
}

static int rts_option(const char *a, LzFlags *f, char *err, size_t errlen) {
  size_t sz;
#if LZ_REPLAY
  if (!strncmp(a, "--record", 8) || !strncmp(a, "--replay", 8))
    return lz_replay_flag(a, err, errlen);
  if (!strncmp(a, "--step", 6)) return lz_step_flag(a, err, errlen);
  if (!strncmp(a, "--dup-report", 12)) /* replay_dup.h */
    return lz_dup_flag(a, err, errlen);
#endif
  const char *way = other_way(a);
  if (way) return fail(err, errlen, "the flag %s requires the program to be built with %s", a, way);
  if (!strcmp(a, "-?")) return 2;
  if (a[0] != '-') return fail(err, errlen, "unexpected RTS argument: %s", a);
  if (!strcmp(a, "--internal-counters")) { /* GHC's flag: more counters in -s's output */
    f->internal_counters = true;
    return 0;
  }
#if LZ_THREADED
  if (!strcmp(a, "--lazy-blackholing")) { /* Note [Lazy blackholing] (threaded-rts.md) */
    f->lazy_bh = true;
    return 0;
  }
#endif
#if LZ_PROF
  if (a[1] == 'p' || a[1] == 'V' || a[1] == 'h' || a[1] == 'i') /* prof.c, prof_heap.c */
    return lz_prof_flag(a, err, errlen);
#endif
  switch (a[1]) {
#if LZ_WAY_EVENTLOG
  case 'l': /* -l[classes]: GHC's letters s g p f u a, -x removes x; unknown: warning */
    f->eventlog = true;
    for (const char *c = a + 2; *c; c++) {
      char one[3] = {c[0], 0, 0};
      if (c[0] == '-' && c[1]) one[1] = *++c;
      if (!lz_eventlog_parse_classes(one, &f->eventlog_classes) && !f->eventlog_bad_class)
        f->eventlog_bad_class = *c;
    }
    return 0;
  case 'o':
    if (a[2] == 'l' && a[3]) {
      f->eventlog_file = (char *)a + 3;
      return 0;
    }
    return fail(err, errlen, "unknown RTS option: %s", a);
#endif
#if LZ_THREADED
  case 'N': /* -N: one capability per core; -N<n> */
    if (!a[2]) {
      f->ncaps = 0;
      return 0;
    }
    {
      char *end;
      long n = strtol(a + 2, &end, 10);
      if (*end || n < 1 || n > 256)
        return fail(err, errlen, "bad value for -N: %s (1..256)", a + 2);
      f->ncaps = (unsigned)n;
    }
    return 0;
  case 'q': /* GHC's -q* scheduler/GC tuning flags: -qn<n>, -qg; others: no effect here */
    if (a[2] == 'n') { /* GC threads (Note [GC threads]) */
      char *end;
      long n = strtol(a + 3, &end, 10);
      if (!a[3] || *end || n < 1 || n > 256)
        return fail(err, errlen, "bad value for -qn: %s (1..256)", a + 3);
      f->gc_threads = (unsigned)n;
    } else if (!strcmp(a, "-qg")) { /* GHC: no parallel GC */
      f->gc_threads = 1;
    }
    return 0;
#endif
  case 'C': { /* -C<secs>: context-switch interval */
    char *end;
    double secs = a[2] ? strtod(a + 2, &end) : 0;
    if (a[2] && (*end || secs < 0 || secs > 3600))
      return fail(err, errlen, "bad value for -C: %s", a + 2);
    f->ctx_switch_ns = secs > 0 ? (uint64_t)(secs * 1e9) : 1000000u; /* -C0: 1 ms */
    return 0;
  }
  case 'e': {
    char *end;
    long n = strtol(a + 2, &end, 10);
    if (!a[2] || *end || n < 1 || n > (1L << 24))
      return fail(err, errlen, "bad value for -e: %s", a + 2);
    f->spark_pool = (size_t)n;
    return 0;
  }
  case 's':
    f->stats = true;
    f->stats_file = a[2] && strcmp(a + 2, "stderr") ? (char *)a + 2 : NULL;
    return 0;
  case 'K':
    if (!lz_parse_size(a + 2, &sz) || sz == 0)
      return fail(err, errlen, "bad value for -K: %s", a + 2);
    f->max_stack_bytes = sz;
    return 0;
  case 'M':
    if (!lz_parse_size(a + 2, &sz)) return fail(err, errlen, "bad value for -M: %s", a + 2);
    f->max_heap_bytes = sz;
    return 0;
  case 'F': {
    char *end;
    double v = strtod(a + 2, &end);
    if (a[2] == 0 || *end || !(v == 0 || (v >= 1 && v <= 1000)))
      return fail(err, errlen, "bad value for -F: %s (0, or 1 to 1000)", a + 2);
    f->heap_factor = v;
    return 0;
  }
  case 'A':
  case 'H':
    if (!lz_parse_size(a + 2, &sz)) return fail(err, errlen, "bad value for -%c: %s", a[1], a + 2);
    f->initial_heap_bytes = sz;
    f->initial_heap_total = a[1] == 'H';
    return 0;
  default: return fail(err, errlen, "unknown RTS option: %s", a);
  }
}

int lz_parse_rts_flags(int argc, char **argv, LzFlags *flags, int *out_argc, char **out_argv,
                       char *err, size_t errlen) {
  lz_flags_default(flags);
  int n = 0;
  bool in_rts = false, all_program = false;
  int status = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (all_program) {
      out_argv[n++] = argv[i];
    } else if (!strcmp(a, "--RTS")) {
      all_program = true;
    } else if (!strcmp(a, "+RTS")) {
      in_rts = true;
    } else if (!strcmp(a, "-RTS")) {
      in_rts = false;
    } else if (in_rts) {
      int r = rts_option(a, flags, err, errlen);
      if (r == 1) return 1;
      if (r == 2) status = 2;
    } else {
      out_argv[n++] = argv[i];
    }
  }
  out_argv[n] = NULL;
  *out_argc = n;
  return status;
}

static const char *const usage[] = {
    "",
    "Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>] ... --RTS <args>",
    "",
    "   +RTS    Indicates run time system options follow",
    "   -RTS    Indicates program arguments follow",
    "  --RTS    Indicates that ALL subsequent arguments will be given to the",
    "           program (including any of these RTS flags)",
    "",
    "The following run time system options are available:",
    "",
    "  -?       Prints this message and exits; the program is not executed",
    "",
    "  -K<size>  Sets the maximum stack size (default: 80% of physical memory)",
    "            Egs: -K32k -K512k -K8M",
    "  -M<size>  Sets the maximum heap size (default unlimited)  Egs: -M256k -M1G",
    "  -A<size>  Sets the initial heap size per capability (default 16m)",
    "  -H<size>  Sets the initial heap size (the total)",
    "  -F<n>     Lets the heap grow to <n> times the live data (default 5; 0: off)",
    "",
    "  -s[<file>] Summary GC statistics (if <file> omitted, uses stderr)",
    "",
#if LZ_WAY_EVENTLOG
    "  -l[flags]  Log events to a file <program>.eventlog (GHC's format)",
    "             flags: s scheduler, g GC, p spark counters, f one event per spark,",
    "             u user events, a all; -x disables x (default: sgpu)",
    "  -ol<file>  Write the event log to <file>",
    "",
#endif
#if LZ_THREADED
    "  -N[<n>]    Use <n> processors (default: 1, -N alone: one per core)",
    "  -C<secs>   Context-switch interval in seconds (default 0.02)",
    "  -e<n>      Maximum number of outstanding local sparks (default 4096)",
    "  -qn<n>     Use <n> threads for GC marking (default: -N's, at most one per core)",
    "  -qg        Mark with one thread (the same as -qn1)",
    "  --lazy-blackholing  Claim a thunk only when its thread stops (GHC's default),",
    "             not on entry: threads may evaluate one thunk twice (-s counts it)",
    "  --internal-counters  With -s: how collections stopped the other capabilities",
    "",
#else
    "  -C<secs>   Context-switch interval in seconds (default 0.02)",
    "",
#endif
#if LZ_PROF
    "  -p       Time/allocation profile in <program>.prof (GHC's layout)",
    "  -pa      The same with every cost centre; -pj in GHC's JSON form",
    "  -V<secs> Profiling tick interval (default 0.001)",
    "  -hc      Heap profile by cost-centre stack in <program>.hp (-h is the same)",
    "  -i<secs> Heap profile sampling interval (default 0.1)",
    "",
#endif
    "  -N, -q*, --lazy-blackholing need a program built with -threaded;",
    "           -l with -eventlog;",
    "  -p, -h   with -prof; --record, --replay with -replay",
    "",
    "Sizes may be followed by k, m or g (powers of 1024) or w (words).",
    "",
    "Other RTS options may be available for programs compiled a different way.",
};

void lz_print_usage(FILE *out) {
  const char *p = lz_prog_name ? lz_prog_name : "lz";
  for (size_t i = 0; i < sizeof usage / sizeof usage[0]; i++)
    fprintf(out, "%s: %s\n", p, usage[i]);
}

/* start.c — starting and ending a program.
 *
 * lz_rts_main is what main() (rts/main.c) calls: it takes the program name, parses
 * +RTS options (errors and -? are printed GHC-style, exit 1), starts Boehm and the IO
 * layer, makes capability 0 with the main thread's stack (stop frame at the bottom),
 * and runs `main` by applying its closure to the world token with the generic apply,
 * which evaluates it first if it is a CAF. When the thread reaches its stop frame the
 * program exits 0; every exit (normal, exit#, errors) goes through lz_exit, which
 * flushes the handles and prints the -s summary.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eventlog.h"
#include "rts_priv.h"
#include "sparkpool.h"
#if LZ_REPLAY
#include "replay.h"
#include "replay_step.h"
#endif
#if LZ_PROF
#include "prof.h"
#endif

const char *lz_prog_name;
int lz_prog_argc;
char **lz_prog_argv;
LzCap *lz_main_cap;
unsigned lz_ncaps = 1;
LzCap **lz_caps = &lz_main_cap;
__thread LzCap *lz_current_cap;

static bool flags_set;

LzCap *lz_rts_init(void) {
  if (!flags_set) {
    lz_flags_default(&lz_flags);
    flags_set = true;
  }
  lz_gc_init();
  lz_io_init();
  if (!lz_main_cap) {
    lz_main_cap = GC_MALLOC_UNCOLLECTABLE(sizeof(LzCap));
    struct LzCapPriv *priv = GC_MALLOC_UNCOLLECTABLE(sizeof(struct LzCapPriv));
    if (!lz_main_cap || !priv) lz_heap_exhausted();
    memset(lz_main_cap, 0, sizeof(LzCap));
    memset(priv, 0, sizeof *priv);
    lz_main_cap->rest = priv;
  }
  lz_cap_attach(lz_main_cap, lz_thread_new(lz_main_cap, LZ_STACK_INIT_WORDS));
  lz_current_cap = lz_main_cap;
  return lz_main_cap;
}

/* Start the event log asked for by -l (the eventlog way): dies like GHC when the file
 * cannot be written. Capability 0 gets its buffer. */
static void eventlog_start(int argc, char **argv) {
#if LZ_REPLAY
  if (lz_replay_log_start(argc, argv)) /* --record / --replay: Note [Replay] */
    return;
#endif
  if (lz_flags.eventlog_bad_class)
    lz_message("unknown trace option: %c", lz_flags.eventlog_bad_class);
  if (!lz_flags.eventlog) return;
  char name[4096];
  const char *path = lz_flags.eventlog_file;
  if (!path) {
    snprintf(name, sizeof name, "%s.eventlog", lz_prog_name);
    path = name;
  }
  LzEvOptions o = {0};
  o.classes = lz_flags.eventlog_classes;
  if (lz_eventlog_open(path, lz_ncaps, argc, argv, &o) != 0)
    lz_die(1, "initEventLogFileWriter: can't open %s: %s", path, strerror(errno));
  for (unsigned i = 0; i < lz_ncaps; i++) {
    lz_caps[i]->rest->ev = lz_ev_on(LZ_EVC_SCHED) ? lz_ev_cap_buf(i) : NULL;
    lz_caps[i]->rest->ev_sparks = lz_ev_on(LZ_EVC_SPARKS_FULL) ? lz_ev_cap_buf(i) : NULL;
  }
}

/* No capability may run any more (threaded way: the scheduler stops them first). */
static void eventlog_end(void) {
  if (!lz_eventlog_is_open()) return;
  for (unsigned i = 0; lz_main_cap && i < lz_ncaps; i++)
    lz_caps[i]->rest->ev = lz_caps[i]->rest->ev_sparks = NULL;
  if (lz_eventlog_close() != 0) lz_message("error writing the event log");
}

_Noreturn void lz_exit(int status) {
  lz_stats_mut_end();
  uint64_t alloc = lz_main_cap ? lz_main_cap->alloc_bytes : 0;
  char extra[1024] = "";
#if LZ_THREADED
  if (lz_caps != &lz_main_cap) { /* the scheduler started */
    lz_sched_stop_others();
    LzSparkCounters sparks;
    lz_sched_final_sparks(&sparks);
    alloc = lz_sched_alloc_bytes();
    int n = snprintf(extra, sizeof extra,
                     "  TASKS: %u (1 bound, %u peak workers (%u total), using -N%u)\n\n",
                     lz_ncaps + 1, lz_ncaps, lz_ncaps, lz_ncaps);
    n += lz_spark_format_stats(extra + n, sizeof extra - (size_t)n, &sparks);
    if (lz_flags.lazy_bh) /* Note [Lazy blackholing]: evaluations another thread repeated */
      n += snprintf(extra + n, sizeof extra - (size_t)n,
                    "\n  DUPLICATES: %llu thunk updates found the thunk updated already "
                    "(lazy blackholing)",
                    (unsigned long long)lz_lazy_dup_updates());
    if (lz_flags.internal_counters) { /* Note [Parking for collections] */
      uint64_t stops, parked, signalled;
      lz_gc_park_counters(&stops, &parked, &signalled);
      n += snprintf(extra + n, sizeof extra - (size_t)n,
                    "\n\n  INTERNAL COUNTERS:\n"
                    "    gc_stops      %10llu  (collections with other capabilities)\n"
                    "    gc_parked     %10llu  (capabilities parked at a safe point)\n"
                    "    gc_signalled  %10llu  (running capabilities Boehm signalled)",
                    (unsigned long long)stops, (unsigned long long)parked,
                    (unsigned long long)signalled);
    }
    snprintf(extra + n, sizeof extra - (size_t)n, "\n\n");
  }
#endif
  lz_io_flush_all();
#if LZ_PROF
  lz_prof_end(); /* the cost-centre report (+RTS -p): Note [Profiling] */
#endif
  eventlog_end();
#if LZ_REPLAY
  lz_replay_log_end();
#endif
  if (lz_flags.stats) {
    FILE *f = stderr;
    if (lz_flags.stats_file) {
      f = fopen(lz_flags.stats_file, "w");
      if (!f) f = stderr;
    }
    lz_stats_print(f, alloc, extra);
    fflush(f);
    if (f != stderr) fclose(f);
  }
#if LZ_REPLAY
  lz_step_exit(status); /* stepping: the controller may still ask about the final state */
#endif
  exit(status);
}

int lz_rts_main(int argc, char **argv, LzWord *main_closure) {
  lz_ev_clock_start(); /* event times count from here */
  lz_stats_start();
  const char *slash = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
  lz_prog_name = slash ? slash + 1 : argc > 0 && argv[0] ? argv[0] : "lz";
  char **args = malloc(((size_t)(argc > 0 ? argc : 1) + 1) * sizeof(char *));
  if (!args) return 251;
  char err[512];
  int r = lz_parse_rts_flags(argc, argv, &lz_flags, &lz_prog_argc, args, err, sizeof err);
  flags_set = true;
  if (r != 0) {
    if (r == 1) fprintf(stderr, "%s: %s\n", lz_prog_name, err);
    lz_print_usage(stderr);
    return 1;
  }
  lz_prog_argv = args;
#if LZ_REPLAY
  lz_replay_prepare(); /* --replay: the recorded arguments, -N and flags */
#endif
  LzCap *cap = lz_rts_init();
#if LZ_THREADED
  lz_sched_init();
#endif
  eventlog_start(argc, argv);
#if LZ_PROF
  lz_prof_start(argc, argv);
#endif
  lz_stats_mut_start();
#if LZ_THREADED
  lz_sched_main(cap, main_closure);
#else
  LzThread *t = cap->tso;
  lz_ev_create_thread(cap->rest->ev, t->id);
  lz_ev_run_thread(cap->rest->ev, t->id);
  lz_run(cap, lz_apply_1, (LzWord)main_closure, 0, 0, 0); /* main realWorld# */
  lz_ev_stop_thread(cap->rest->ev, t->id, LZ_EV_STOP_FINISHED, 0);
  lz_exit(0);
#endif
}

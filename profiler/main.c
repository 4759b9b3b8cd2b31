/* main.c — lzprof, the Lz profiler's command line: `lzprof SUBCOMMAND ARGS`. Each
 * sub-command lives in its own file (cmd_*.c, timeline_*.c); see docs/notes/lzprof.md.
 */
#include "lzprof.h"

#include <string.h>

static void usage(FILE *f) {
  fprintf(f, "usage: lzprof COMMAND LOG [options]\n"
             "  timeline LOG -o OUT.html|OUT.svg   per-capability timeline (self-contained page or "
             "picture)\n"
             "  sparks LOG [--tsv]                 spark fates, granularity histogram, verdict\n"
             "  threads LOG [--sort COL] [--cap N] [--tsv]   per-thread times and stop reasons\n"
             "  marks [PROG] LOG [--tsv] [--cap N] [--match TEXT]   traceEvent/traceMarker "
             "checkpoints\n"
             "  export LOG --chrome OUT.json | --speedscope OUT.json   for Perfetto / speedscope\n"
             "  eventlog LOG.lzr -o OUT.eventlog   decompress a replay log to GHC's format\n"
             "  step PROG LOG.lzr [--script FILE]  step through a replay of LOG (`help` at the "
             "prompt)\n"
             "  dup PROG LOG.lzr [--json] [--keep F]   duplicate work, sparks thrown away\n"
             "  dup --report F [--json]           a report kept with --keep, again\n"
             "  compare LOG1 LOG2                  the same run? (events per capability, "
             "no times)\n"
             "LOG is an event log in GHC's format (+RTS -l, or -lf for one event per spark),\n"
             "or a replay log (.lzr, +RTS --record).\n");
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!strcmp(argv[1], "sparks")) return lzp_cmd_sparks(argc - 2, argv + 2);
  if (!strcmp(argv[1], "threads")) return lzp_cmd_threads(argc - 2, argv + 2);
  if (!strcmp(argv[1], "timeline")) return lzp_cmd_timeline(argc - 2, argv + 2);
  if (!strcmp(argv[1], "marks")) return lzp_cmd_marks(argc - 2, argv + 2);
  if (!strcmp(argv[1], "export")) return lzp_cmd_export(argc - 2, argv + 2);
  if (!strcmp(argv[1], "eventlog")) return lzp_cmd_eventlog(argc - 2, argv + 2);
  if (!strcmp(argv[1], "step")) return lzp_cmd_step(argc - 2, argv + 2);
  if (!strcmp(argv[1], "dup")) return lzp_cmd_dup(argc - 2, argv + 2);
  if (!strcmp(argv[1], "compare")) return lzp_cmd_compare(argc - 2, argv + 2);
  fprintf(stderr, "lzprof: unknown command '%s'\n", argv[1]);
  usage(stderr);
  return 2;
}

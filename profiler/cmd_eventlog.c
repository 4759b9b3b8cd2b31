/* cmd_eventlog.c — `lzprof eventlog LOG.lzr -o OUT.eventlog`: the event log inside a
 * replay log, in GHC's format, for ThreadScope, ghc-events or any other tool.
 *
 * The replay log is decompressed with the runtime's reader (replay_input.c: every zstd
 * frame's checksum verified) and parsed like any log before anything is written, so a
 * damaged recording gives an error with its offset instead of a file that other tools
 * choke on. The bytes written are exactly those the run's event-log writer produced
 * (`zstd -dc LOG.lzr` gives the same). A recording that stops before the end marker (the
 * program was killed) is written as it is, with a warning.
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

static void usage(void) {
  fprintf(stderr, "usage: lzprof eventlog LOG.lzr -o OUT.eventlog   (-o -: standard output)\n"
                  "  the event log of a replay log (+RTS --record), in GHC's format\n");
}

int lzp_cmd_eventlog(int argc, char **argv) {
  const char *path = NULL, *out = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (argv[i][0] == '-' || path) {
      usage();
      return 2;
    } else
      path = argv[i];
  }
  if (!path || !out) {
    usage();
    return 2;
  }
  uint8_t magic[4] = {0};
  FILE *in = fopen(path, "rb");
  if (!in) {
    perror(path);
    return 1;
  }
  size_t got = fread(magic, 1, 4, in);
  fclose(in);
  if (!lzp_is_replay_log(magic, got)) {
    if (got == 4 && !memcmp(magic, "hdrb", 4))
      fprintf(stderr, "lzprof eventlog: %s is already a plain event log (nothing to decompress)\n",
              path);
    else
      fprintf(stderr,
              "lzprof eventlog: %s: not a replay log (it does not start with the zstd "
              "skippable frame of a .lzr file)\n",
              path);
    return 1;
  }
  LzpLog log;
  char err[1024];
  if (lzp_log_read(path, &log, err, sizeof err, stderr) < 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  FILE *f = strcmp(out, "-") ? fopen(out, "wb") : stdout;
  if (!f) {
    perror(out);
    lzp_log_free(&log);
    return 1;
  }
  size_t put = fwrite(log.data, 1, log.size, f);
  int bad = put != log.size || (f == stdout ? fflush(f) != 0 : fclose(f) != 0);
  if (bad) fprintf(stderr, "lzprof: %s: write error\n", out);
  lzp_log_free(&log);
  return bad;
}

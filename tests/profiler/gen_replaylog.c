/* gen_replaylog.c — wraps an existing event log into a replay log (.lzr) with the
 * runtime's writer (rts/replaylog.h), for lzprof's tests:
 *
 *   gen_replaylog IN.eventlog OUT.lzr [--exe PROG] [--piece BYTES] [--no-end]
 *
 * The header names PROG (its SHA-256; default: this generator) with 2 capabilities and a
 * made-up command line; the event-log bytes are handed to lz_replay_sink in pieces of
 * BYTES (default 65536, so frames split events and blocks anywhere, which the reader must
 * not mind), each becoming one zstd frame as in a real recording. --no-end leaves out the
 * final 2-byte end marker, as when the recorded program is killed. `lzprof eventlog
 * OUT.lzr` must give IN back byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replaylog.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: gen_replaylog IN.eventlog OUT.lzr [--exe PROG] [--piece BYTES] "
                    "[--no-end]\n");
    return 2;
  }
  const char *exe = "/proc/self/exe";
  size_t piece = 65536;
  int no_end = 0;
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--exe") && i + 1 < argc)
      exe = argv[++i];
    else if (!strcmp(argv[i], "--piece") && i + 1 < argc)
      piece = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--no-end"))
      no_end = 1;
    else {
      fprintf(stderr, "gen_replaylog: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  FILE *in = fopen(argv[1], "rb");
  if (!in) {
    perror(argv[1]);
    return 1;
  }
  fseek(in, 0, SEEK_END);
  long n = ftell(in);
  fseek(in, 0, SEEK_SET);
  unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
  if (!buf || fread(buf, 1, (size_t)n, in) != (size_t)n) {
    fprintf(stderr, "gen_replaylog: cannot read %s\n", argv[1]);
    return 1;
  }
  fclose(in);
  size_t len = (size_t)n;
  if (no_end && len >= 2 && buf[len - 2] == 0xff && buf[len - 1] == 0xff) len -= 2;

  char err[512];
  LzReplayHeader h = {0};
  if (lz_sha256_file(exe, h.exe_hash, err, sizeof err) < 0) {
    fprintf(stderr, "gen_replaylog: %s\n", err);
    return 1;
  }
  char *args[] = {"./prog", "+RTS", "-N2", "--record", "-RTS"};
  char *opts[] = {"-N2"};
  h.ncaps = 2;
  h.exe_path = exe;
  h.argc = 5;
  h.argv = args;
  h.n_rts_opts = 1;
  h.rts_opts = opts;
  LzReplayWriter *w = lz_replay_writer_open(argv[2], &h, 0, err, sizeof err);
  if (!w) {
    fprintf(stderr, "gen_replaylog: %s\n", err);
    return 1;
  }
  for (size_t off = 0; off < len; off += piece) {
    size_t k = len - off < piece ? len - off : piece;
    if (lz_replay_sink(w, buf + off, k) != k) {
      fprintf(stderr, "gen_replaylog: %s\n", lz_replay_writer_error(w));
      return 1;
    }
  }
  lz_replay_sink(w, NULL, 0);
  LzReplayWriteStats st;
  lz_replay_writer_free(w, &st);
  fprintf(stderr, "gen_replaylog: %llu frames, %llu log bytes, %llu file bytes\n",
          (unsigned long long)st.frames, (unsigned long long)st.log_bytes,
          (unsigned long long)st.file_bytes);
  free(buf);
  return 0;
}

/* cmd_step.c — `lzprof step PROG LOG [--script FILE]`: step through a replay of LOG. The
 * stepper lives in the program's runtime (the -replay way: Note [Stepper] in
 * docs/notes/stepper.md); this runs PROG +RTS --replay=LOG --step -RTS in its place, so
 * the prompt, line editing and exit status are the program's. */
#include "lzprof.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int lzp_cmd_step(int argc, char **argv) {
  const char *prog = NULL, *log = NULL, *script = NULL;
  for (int i = 0; i < argc; i++) {
    if (!strcmp(argv[i], "--script") && i + 1 < argc)
      script = argv[++i];
    else if (!strncmp(argv[i], "--script=", 9))
      script = argv[i] + 9;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "lzprof step: unknown option %s\n", argv[i]);
      return 2;
    } else if (!prog)
      prog = argv[i];
    else if (!log)
      log = argv[i];
    else {
      fprintf(stderr, "lzprof step: too many arguments (%s)\n", argv[i]);
      return 2;
    }
  }
  if (!prog || !log) {
    fprintf(stderr, "usage: lzprof step PROG LOG.lzr [--script FILE]\n"
                    "  PROG is the program built with lzc -replay that recorded LOG\n");
    return 2;
  }
  char replay[4096], stepflag[4096];
  snprintf(replay, sizeof replay, "--replay=%s", log);
  if (script)
    snprintf(stepflag, sizeof stepflag, "--step-script=%s", script);
  else
    snprintf(stepflag, sizeof stepflag, "--step");
  char *args[] = {(char *)prog, "+RTS", replay, stepflag, "-RTS", NULL};
  /* a bare name is a file here, not something to look up on PATH */
  char path[4096];
  snprintf(path, sizeof path, "%s%s", strchr(prog, '/') ? "" : "./", prog);
  execv(path, args);
  fprintf(stderr, "lzprof step: cannot run %s: %s\n", prog, strerror(errno));
  return 1;
}

/* maxrss.c — run a command and report its peak memory, for the space tests
 * (tests/space/run.sh).
 *
 *   lz_maxrss OUTFILE PROG ARGS...
 *
 * Runs PROG with ARGS (stdin, stdout and stderr inherited), waits for it, writes the
 * child's maximum resident set size in kilobytes (getrusage's ru_maxrss, taken with
 * wait4 so only this child counts) to OUTFILE, and exits with the child's exit status
 * (128 + signal number when it was killed). GNU time -v reports the same number; this
 * wrapper avoids depending on the `time` package. Exit status 127: PROG could not be
 * run; 126: bad usage or OUTFILE not writable.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUTFILE PROG ARGS...\n", argv[0]);
    return 126;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("lz_maxrss: fork");
    return 126;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    perror("lz_maxrss: exec");
    _exit(127);
  }
  int status = 0;
  struct rusage ru;
  if (wait4(pid, &status, 0, &ru) < 0) {
    perror("lz_maxrss: wait4");
    return 126;
  }
  FILE *f = fopen(argv[1], "w");
  if (!f) {
    perror("lz_maxrss: output file");
    return 126;
  }
  fprintf(f, "%ld\n", ru.ru_maxrss);
  fclose(f);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 126;
}

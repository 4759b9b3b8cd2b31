/* test_rts_util.h — helpers shared by the runtime's unit tests.
 *
 * Programs that die (<<loop>>, stack overflow, heap exhaustion, error) are run in a
 * fork()ed child with stderr captured, so a test can check the exit status and GHC's
 * message. Also a tiny allocator for hand-written "compiled code" (the inline free-list
 * pop that the code generator emits), and constructors for Lz strings.
 */
#ifndef LZ_TEST_RTS_UTIL_H
#define LZ_TEST_RTS_UTIL_H

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rts_priv.h"

typedef struct {
  int status;     /* exit status, or -signal */
  char err[8192]; /* what the child wrote on stderr */
  char out[8192]; /* and on stdout */
} ChildResult;

static inline void read_all(int fd, char *buf, size_t cap) {
  size_t n = 0;
  ssize_t k;
  while ((k = read(fd, buf + n, cap - 1 - n)) > 0 && n < cap - 1)
    n += (size_t)k;
  buf[n] = 0;
}

/* Run fn in a child process; its stdout and stderr are captured. */
static inline ChildResult run_child(void (*fn)(void *), void *arg) {
  ChildResult r;
  memset(&r, 0, sizeof r);
  int e[2], o[2];
  if (pipe(e) || pipe(o)) return r;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(e[1], 2);
    dup2(o[1], 1);
    close(e[0]);
    close(o[0]);
    /* cmocka's handlers would turn a crash into a longjmp back into the test list */
    signal(SIGSEGV, SIG_DFL);
    signal(SIGBUS, SIG_DFL);
    signal(SIGILL, SIG_DFL);
    signal(SIGFPE, SIG_DFL);
    signal(SIGABRT, SIG_DFL);
    alarm(60); /* a hung child must not hang the test */
    lz_prog_name = "prog";
    fn(arg);
    _exit(0);
  }
  close(e[1]);
  close(o[1]);
  read_all(e[0], r.err, sizeof r.err); /* outputs are small: no deadlock */
  read_all(o[0], r.out, sizeof r.out);
  close(e[0]);
  close(o[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
  return r;
}

/* The inline allocation sequence of compiled code, for `words` words. */
static inline LzWord *test_alloc(LzCap *cap, LzWord *sp, size_t words) {
  LzWord g = LZ_WORDS_TO_GRANULES(words);
  void *p = cap->fl[g];
  if (p)
    cap->fl[g] = *(void **)p;
  else
    p = lz_alloc_slow(cap, sp, g);
  cap->alloc_bytes += LZ_GRANULE_BYTES * g;
  return p;
}

#endif

/* test_rts_flags.c — the +RTS ... -RTS parser: which arguments the program sees, each
 * supported flag, sizes, GHC's messages for unknown flags and flags of other ways, and
 * the help request. The parser is pure (lz_parse_rts_flags), so these are plain calls;
 * one test runs the whole lz_rts_main in a child process to check the exit status and
 * the printed message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rts_priv.h"

typedef struct {
  int status, argc;
  char *argv[32];
  char err[256];
  LzFlags flags;
} Parsed;

static Parsed parse(int argc, char **argv) {
  Parsed p;
  memset(&p, 0, sizeof p);
  p.status = lz_parse_rts_flags(argc, argv, &p.flags, &p.argc, p.argv, p.err, sizeof p.err);
  return p;
}

#define PARSE(...)                                                                                 \
  ({                                                                                               \
    char *a_[] = {"prog", __VA_ARGS__, NULL};                                                      \
    parse((int)(sizeof a_ / sizeof a_[0]) - 1, a_);                                                \
  })

static void test_sections(void **state) {
  (void)state;
  Parsed p = PARSE("a", "+RTS", "-s", "-RTS", "b");
  assert_int_equal(p.status, 0);
  assert_int_equal(p.argc, 2);
  assert_string_equal(p.argv[0], "a");
  assert_string_equal(p.argv[1], "b");
  assert_true(p.flags.stats);
  assert_null(p.argv[2]);
  /* +RTS without -RTS: options to the end */
  p = PARSE("x", "+RTS", "-K1m");
  assert_int_equal(p.status, 0);
  assert_int_equal(p.argc, 1);
  assert_int_equal(p.flags.max_stack_bytes, 1024 * 1024);
  /* --RTS: everything after goes to the program, itself removed */
  p = PARSE("--RTS", "+RTS", "-s");
  assert_int_equal(p.status, 0);
  assert_int_equal(p.argc, 2);
  assert_string_equal(p.argv[0], "+RTS");
  assert_false(p.flags.stats);
  /* -RTS outside a section is dropped, several sections */
  p = PARSE("-RTS", "x", "+RTS", "-RTS", "y", "+RTS", "-s", "-RTS");
  assert_int_equal(p.argc, 2);
  assert_string_equal(p.argv[0], "x");
  assert_string_equal(p.argv[1], "y");
  assert_true(p.flags.stats);
  /* no arguments at all */
  char *none[] = {"prog", NULL};
  p = parse(1, none);
  assert_int_equal(p.status, 0);
  assert_int_equal(p.argc, 0);
}

static void test_flags(void **state) {
  (void)state;
  Parsed p = PARSE("+RTS", "-sout.txt");
  assert_true(p.flags.stats);
  assert_string_equal(p.flags.stats_file, "out.txt");
  p = PARSE("+RTS", "-sstderr");
  assert_true(p.flags.stats);
  assert_null(p.flags.stats_file);
  p = PARSE("+RTS", "-M256m", "-A64m", "-H1g");
  assert_int_equal(p.status, 0);
  assert_int_equal(p.flags.max_heap_bytes, 256u << 20);
  assert_int_equal(p.flags.initial_heap_bytes, (size_t)1 << 30); /* the last of -A/-H */
  assert_true(p.flags.initial_heap_total); /* -H: the total, not per capability */
  p = PARSE("+RTS", "-H1g", "-A64m");
  assert_int_equal(p.flags.initial_heap_bytes, 64u << 20);
  assert_false(p.flags.initial_heap_total); /* -A: per capability */
  p = PARSE("+RTS", "-A");
  assert_int_equal(p.status, 1);
  assert_string_equal(p.err, "bad value for -A: ");
  p = PARSE("+RTS", "-F2.5");
  assert_int_equal(p.status, 0);
  assert_true(p.flags.heap_factor == 2.5);
  p = PARSE("+RTS", "-F0");
  assert_true(p.flags.heap_factor == 0);
  p = PARSE("+RTS", "-F0.5");
  assert_int_equal(p.status, 1);
  assert_string_equal(p.err, "bad value for -F: 0.5 (0, or 1 to 1000)");
  p = PARSE("+RTS", "-F");
  assert_int_equal(p.status, 1);
  p = PARSE("+RTS", "-F3x");
  assert_int_equal(p.status, 1);
  p = PARSE("+RTS", "-?");
  assert_int_equal(p.status, 2);
  /* defaults */
  p = PARSE("a");
  assert_false(p.flags.stats);
  assert_int_equal(p.flags.max_heap_bytes, 0);
  assert_int_equal(p.flags.initial_heap_bytes, 16u << 20);
  assert_true(p.flags.heap_factor == 5);
  assert_true(p.flags.max_stack_bytes > (size_t)64 << 20);
}

static void test_sizes(void **state) {
  (void)state;
  size_t n;
  assert_true(lz_parse_size("8m", &n));
  assert_int_equal(n, 8u << 20);
  assert_true(lz_parse_size("1G", &n));
  assert_int_equal(n, (size_t)1 << 30);
  assert_true(lz_parse_size("512k", &n));
  assert_int_equal(n, 512u << 10);
  assert_true(lz_parse_size("4096", &n));
  assert_int_equal(n, 4096);
  assert_true(lz_parse_size("1.5m", &n));
  assert_int_equal(n, 3u << 19);
  assert_true(lz_parse_size("100w", &n));
  assert_int_equal(n, 800);
  assert_false(lz_parse_size("", &n));
  assert_false(lz_parse_size("m", &n));
  assert_false(lz_parse_size("8x", &n));
  assert_false(lz_parse_size("8mm", &n));
  assert_false(lz_parse_size("-1", &n));
  Parsed p = PARSE("+RTS", "-Kfoo");
  assert_int_equal(p.status, 1);
  assert_string_equal(p.err, "bad value for -K: foo");
  p = PARSE("+RTS", "-K");
  assert_int_equal(p.status, 1);
  p = PARSE("+RTS", "-K0");
  assert_int_equal(p.status, 1);
}

static void test_errors(void **state) {
  (void)state;
  Parsed p = PARSE("+RTS", "-y");
  assert_int_equal(p.status, 1);
  assert_string_equal(p.err, "unknown RTS option: -y");
  p = PARSE("+RTS", "--foo");
  assert_string_equal(p.err, "unknown RTS option: --foo");
  p = PARSE("+RTS", "-N2");
  assert_int_equal(p.status, 1);
  assert_string_equal(p.err, "the flag -N2 requires the program to be built with -threaded");
  p = PARSE("+RTS", "-N");
  assert_string_equal(p.err, "the flag -N requires the program to be built with -threaded");
  p = PARSE("+RTS", "-l");
  assert_string_equal(p.err, "the flag -l requires the program to be built with -eventlog");
  p = PARSE("+RTS", "-p");
  assert_string_equal(p.err, "the flag -p requires the program to be built with -prof");
  p = PARSE("+RTS", "--replay=x.lzr");
  assert_string_equal(p.err,
                      "the flag --replay=x.lzr requires the program to be built with -replay");
  p = PARSE("+RTS", "--dup-report=d.txt");
  assert_string_equal(p.err,
                      "the flag --dup-report=d.txt requires the program to be built with -replay");
  p = PARSE("+RTS", "-s", "-y", "-RTS", "a"); /* first error wins, parsing stops */
  assert_int_equal(p.status, 1);
  assert_string_equal(p.err, "unknown RTS option: -y");
  p = PARSE("-y"); /* outside +RTS: a program argument */
  assert_int_equal(p.status, 0);
  assert_string_equal(p.argv[0], "-y");
}

/* lz_rts_main with a bad flag: "prog: unknown RTS option: -y", usage, exit 1. */
static void test_main_unknown_flag(void **state) {
  (void)state;
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    dup2(fds[1], 2);
    close(fds[0]);
    char *argv[] = {"/some/dir/myprog", "+RTS", "-y", NULL};
    _exit(lz_rts_main(3, argv, NULL));
  }
  close(fds[1]);
  char buf[8192];
  size_t n = 0;
  ssize_t k;
  while ((k = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
    n += (size_t)k;
  buf[n] = 0;
  close(fds[0]);
  int st;
  waitpid(pid, &st, 0);
  assert_true(WIFEXITED(st));
  assert_int_equal(WEXITSTATUS(st), 1);
  assert_non_null(strstr(buf, "myprog: unknown RTS option: -y\nmyprog: \nmyprog: Usage:"));
  assert_non_null(strstr(buf, "-K<size>"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sections),
      cmocka_unit_test(test_flags),
      cmocka_unit_test(test_sizes),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_main_unknown_flag),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

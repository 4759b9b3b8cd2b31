/* test_rts_io.c — the IO primops and whole-program runs through lz_rts_main.
 *
 * Strings are built as Lz values ((:)/[] cells of C# boxes, some behind indirections) and
 * passed to the primops as compiled code would. Checked: UTF-8 output and input
 * (including invalid bytes), buffering and flushing, files (write, append, read back,
 * end of file, GHC's error texts and locking), closed handles, trace, exit#, raiseError#,
 * arguments and program name, and a hand-written `main` run by lz_rts_main in a child
 * process with +RTS -s (summary on stderr, RTS options removed from the arguments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "test_rts_util.h"

static LzCap *cap;

static const LzInfo nil_info = {lz_con_entry, LZ_CON, 0, 0, 0, 0, "[]"};
static const LzInfo cons_info = {lz_con_entry, LZ_CON, 0, 1, 2, 0, ":"};
static const LzInfo char_info = {lz_con_entry, LZ_CON, 0, 0, 1, 0, "C#"};
static LzWord nil_closure[1] = {(LzWord)&nil_info};

static LzWord *words(size_t n) { return lz_alloc_words(cap, n); }

/* An evaluated Lz String from UTF-8 text; every third cell sits behind an IND. */
static LzWord lz_string(const char *s) {
  size_t n = strlen(s);
  uint32_t *cps = malloc((n + 1) * sizeof *cps);
  size_t k = 0;
  for (size_t i = 0; i < n;) {
    unsigned char b = (unsigned char)s[i];
    int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    uint32_t c = len == 1 ? b : len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
    for (int j = 1; j < len; j++)
      c = (c << 6) | ((unsigned char)s[i + j] & 0x3F);
    cps[k++] = c;
    i += (size_t)len;
  }
  LzWord list = (LzWord)nil_closure | 1;
  while (k-- > 0) {
    LzWord *ch = words(2);
    ch[0] = (LzWord)&char_info, ch[1] = cps[k];
    LzWord *cell = words(3);
    cell[0] = (LzWord)&cons_info, cell[1] = (LzWord)ch | 1, cell[2] = list;
    list = (LzWord)cell | 2;
    if (k % 3 == 1) {
      LzWord *ind = words(2);
      ind[0] = (LzWord)&lz_ind_info, ind[1] = list;
      list = (LzWord)ind;
    }
  }
  free(cps);
  return list;
}

static LzWord put(LzWord fd, const char *s) {
  return lz_prim_hPutStr(cap, fd, lz_string(s), strlen(s) + 100);
}

static char *tmp_path(const char *name) {
  static char buf[256];
  snprintf(buf, sizeof buf, "/tmp/lz_test_rts_io_%d_%s", (int)getpid(), name);
  return buf;
}

static char *read_file(const char *path) {
  static char buf[4096];
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
  if (f) fclose(f);
  buf[n] = 0;
  return buf;
}

static void test_strings(void **state) {
  (void)state;
  size_t len;
  char *s = lz_string_utf8(lz_string("héllo €𝄞"), -1, false, &len);
  assert_string_equal(s, "héllo €𝄞");
  assert_int_equal(len, strlen("héllo €𝄞"));
  assert_string_equal(lz_string_utf8(lz_string("abcdef"), 3, false, NULL), "abc");
  /* only the wanted cells are looked at: a thunk after them is fine */
  static const LzInfo thunk_info = {NULL, LZ_THUNK, 0, 0, 1, 0, "sat_tail"};
  LzWord *thunk = words(2);
  thunk[0] = (LzWord)&thunk_info;
  LzWord *ch = words(2);
  ch[0] = (LzWord)&char_info, ch[1] = 'a';
  LzWord *cell = words(3);
  cell[0] = (LzWord)&cons_info, cell[1] = (LzWord)ch | 1, cell[2] = (LzWord)thunk;
  assert_string_equal(lz_string_utf8((LzWord)cell | 2, 1, false, NULL), "a");
  char path[256];
  strcpy(path, tmp_path("thunk"));
  LzWord fd = lz_prim_openFile(cap, lz_string(path), 1);
  assert_int_equal(lz_prim_hPutStr(cap, fd, (LzWord)cell | 2, 1), 0);
  assert_int_equal(lz_prim_hPutStr(cap, fd, (LzWord)thunk, 0), 0); /* n = 0 */
  lz_prim_hClose(cap, fd);
  assert_string_equal(read_file(path), "a");
  unlink(path);
  unsigned char o[4];
  assert_int_equal(lz_utf8_encode(0, o, true), 2);
  assert_int_equal(o[0], 0xC0);
  assert_int_equal(lz_utf8_encode(0, o, false), 1);
}

static void test_file_roundtrip(void **state) {
  (void)state;
  char path[256];
  strcpy(path, tmp_path("rt"));
  LzWord fd = lz_prim_openFile(cap, lz_string(path), 1); /* WriteMode */
  assert_true(fd > 2);
  assert_int_equal(lz_prim_hGetBufferMode(cap, fd), 2);
  put(fd, "line 1\nλ 2\n");
  assert_string_equal(read_file(path), ""); /* block-buffered: not yet written */
  lz_prim_hFlush(cap, fd);
  assert_string_equal(read_file(path), "line 1\nλ 2\n");
  lz_prim_hClose(cap, fd);
  lz_prim_hClose(cap, fd);                              /* closing twice is a no-op */
  LzWord a = lz_prim_openFile(cap, lz_string(path), 2); /* AppendMode */
  lz_prim_hSetBufferMode(cap, a, 1);
  put(a, "end\n"); /* line-buffered: flushed at the newline */
  assert_string_equal(read_file(path), "line 1\nλ 2\nend\n");
  lz_prim_hClose(cap, a);
  LzWord r = lz_prim_openFile(cap, lz_string(path), 0); /* ReadMode */
  const char *want = "line 1\nλ 2\nend\n";
  assert_int_equal(lz_prim_hIsEOF(cap, r), 0);
  assert_int_equal(lz_prim_hGetChar(cap, r), 'l');
  for (int i = 1; i < 7; i++)
    assert_int_equal(lz_prim_hGetChar(cap, r), (LzWord)want[i]);
  assert_int_equal(lz_prim_hGetChar(cap, r), 0x3BB); /* λ */
  for (int i = 0; i < 7; i++)
    lz_prim_hGetChar(cap, r);
  assert_int_equal(lz_prim_hIsEOF(cap, r), 1);
  assert_int_equal((intptr_t)lz_prim_hGetChar(cap, r), -1);
  lz_prim_hClose(cap, r);
  assert_int_equal((intptr_t)lz_prim_hGetChar(cap, r), -3); /* closed */
  /* invalid UTF-8 */
  FILE *f = fopen(path, "wb");
  fputs("a\xff", f);
  fclose(f);
  r = lz_prim_openFile(cap, lz_string(path), 0);
  assert_int_equal(lz_prim_hGetChar(cap, r), 'a');
  assert_int_equal((intptr_t)lz_prim_hGetChar(cap, r), -2);
  lz_prim_hClose(cap, r);
  unlink(path);
}

static const char *g_path;
static int g_mode;
static void open_child(void *arg) {
  (void)arg;
  lz_prim_openFile(lz_rts_init(), lz_string(g_path), (LzWord)g_mode);
  _exit(0);
}

static void test_open_errors(void **state) {
  (void)state;
  g_path = "/nonexistent/nosuch.txt", g_mode = 0;
  ChildResult r = run_child(open_child, NULL);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.err, "prog: /nonexistent/nosuch.txt: openFile: does not exist (No such "
                             "file or directory)\n");
  g_path = "/tmp", g_mode = 0;
  r = run_child(open_child, NULL);
  assert_string_equal(r.err, "prog: /tmp: openFile: inappropriate type (is a directory)\n");
  g_path = "/tmp", g_mode = 1;
  r = run_child(open_child, NULL);
  assert_string_equal(r.err, "prog: /tmp: openFile: inappropriate type (Is a directory)\n");
}

static void locked_child(void *arg) {
  (void)arg;
  LzCap *c = lz_rts_init();
  lz_prim_openFile(c, lz_string(g_path), 1);
  lz_prim_openFile(c, lz_string(g_path), 0);
  _exit(0);
}

static void closed_child(void *arg) {
  (void)arg;
  LzCap *c = lz_rts_init();
  put(1, "partial");
  lz_prim_hClose(c, 1);
  put(1, "x");
  _exit(0);
}

static void test_locks_and_closed(void **state) {
  (void)state;
  char path[256];
  strcpy(path, tmp_path("lock"));
  g_path = path;
  ChildResult r = run_child(locked_child, NULL);
  assert_int_equal(r.status, 1);
  char want[512];
  snprintf(want, sizeof want, "prog: %s: openFile: resource busy (file is locked)\n", path);
  assert_string_equal(r.err, want);
  unlink(path);
  r = run_child(closed_child, NULL);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "partial");
  assert_string_equal(r.err, "prog: <stdout>: hPutStr: illegal operation (handle is closed)\n");
}

static void error_child(void *arg) {
  (void)arg;
  LzCap *c = lz_rts_init();
  put(1, "out before"); /* buffered: flushed before the message */
  lz_prim_traceString(c, lz_string("trace\n"));
  lz_prim_raiseError(c, lz_string("Prelude.head: empty list"));
}

static void exit_child(void *arg) {
  (void)arg;
  LzCap *c = lz_rts_init();
  put(1, "bye");
  put(2, "err");
  lz_prim_exit(c, 3);
}

static void test_error_and_exit(void **state) {
  (void)state;
  ChildResult r = run_child(error_child, NULL);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "out before");
  assert_string_equal(r.err, "trace\nprog: Prelude.head: empty list\n");
  r = run_child(exit_child, NULL);
  assert_int_equal(r.status, 3);
  assert_string_equal(r.out, "bye");
  assert_string_equal(r.err, "err");
}

/* main = IO (\w -> case hPutStr# 1# ("hi " ++ args) n w of _ -> IORes w ()) */
static const LzInfo iores_info = {lz_con_entry, LZ_CON, 0, 0, 2, 0, "IORes"};
LZ_FN(main_entry) {
  char buf[256];
  snprintf(buf, sizeof buf, "hi %s %s %ld\n", (const char *)lz_prim_progName(cap),
           lz_prim_argCount(cap) ? (const char *)lz_prim_argAt(cap, 0) : "-",
           (long)lz_prim_argCount(cap));
  put(1, buf);
  LzWord *res = test_alloc(cap, sp, 3);
  res[0] = (LzWord)&iores_info, res[1] = 0, res[2] = (LzWord)nil_closure | 1;
  r1 = (LzWord)res | 1;
  LZ_RETURN();
}
static const LzInfo main_info = {main_entry, LZ_FUN, 1, 0, 0, 0, "main"};
static LzWord main_closure[1] = {(LzWord)&main_info};

static char **g_argv;
static void main_child(void *arg) {
  int argc = 0;
  while (g_argv[argc])
    argc++;
  _exit(lz_rts_main(argc, g_argv, arg));
}

static void test_main(void **state) {
  (void)state;
  char *argv1[] = {"/x/y/myprog", "a", "+RTS", "-s", "-RTS", "b", NULL};
  g_argv = argv1;
  ChildResult r = run_child(main_child, main_closure);
  assert_int_equal(r.status, 0);
  assert_string_equal(r.out, "hi myprog a 2\n");
  assert_non_null(strstr(r.err, " bytes allocated in the heap\n"));
  assert_non_null(strstr(r.err, "  MUT     time "));
  assert_non_null(strstr(r.err, "  Productivity "));
  char *argv2[] = {"p", "+RTS", "-?", NULL};
  g_argv = argv2;
  r = run_child(main_child, main_closure);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "");
  assert_non_null(strstr(r.err, "p: Usage: <prog> <args> [+RTS <rtsopts> | -RTS <args>]"));
  char *argv3[] = {"p", "+RTS", "-N4", NULL};
  g_argv = argv3;
  r = run_child(main_child, main_closure);
  assert_int_equal(r.status, 1);
  assert_non_null(strstr(r.err, "p: the flag -N4 requires the program to be built with "
                                "-threaded\np: \np: Usage:"));
}

int main(void) {
  cap = lz_rts_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_strings),        cmocka_unit_test(test_file_roundtrip),
      cmocka_unit_test(test_open_errors),    cmocka_unit_test(test_locks_and_closed),
      cmocka_unit_test(test_error_and_exit), cmocka_unit_test(test_main),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

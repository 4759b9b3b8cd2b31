/* error.c — how a program dies: GHC's messages and exit statuses.
 *
 * Every fatal message has GHC's shape "<prog>: <text>" on stderr, written after
 * stdout's buffer has been flushed (so output that preceded the failure is not lost).
 * error/undefined/failed patterns (raiseError#) and <<loop>> exit with 1, stack
 * overflow with 2, heap exhaustion with 251 (heap.c), internal errors with 3.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "rts_priv.h"

static void vmessage(const char *fmt, va_list ap) {
  char buf[4096];
  int n = snprintf(buf, sizeof buf, "%s: ", lz_prog_name ? lz_prog_name : "lz");
  if (n < 0) n = 0;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  int m = vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
  size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
  if (len > sizeof buf - 2) len = sizeof buf - 2;
  buf[len++] = '\n';
  lz_io_write_stderr(buf, len);
}

void lz_message(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lz_io_flush_all();
  vmessage(fmt, ap);
  va_end(ap);
}

_Noreturn void lz_die(int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lz_io_flush_all();
  vmessage(fmt, ap);
  va_end(ap);
  lz_exit(status);
}

_Noreturn void lz_loop(LzCap *cap) {
  (void)cap;
  /* once: with lazy blackholing the threads of a cycle may find it at the same moment */
  static int reported;
  if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
    for (;;)
      pause(); /* the first reporter ends the process */
  lz_die(1, "<<loop>>");
}

_Noreturn void lz_stack_overflow(size_t current_bytes) {
  lz_message("Stack space overflow: current size %zu bytes.", current_bytes);
  lz_message("Use `+RTS -Ksize -RTS' to increase it.");
  lz_exit(2);
}

_Noreturn void lz_internal_error(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  lz_die(3, "internal error: %s", buf);
}

/* raiseError# :: [Char] -> a  (the message is fully evaluated) */
LzWord lz_prim_raiseError(LzCap *cap, LzWord msg) {
#if LZ_THREADED
  if (lz_sched_is_spark_thread(cap)) /* speculative work must not end the program */
    lz_sched_raise_in_spark(cap, msg);
#endif
  (void)cap;
  size_t len;
  char *text = lz_string_utf8(msg, -1, false, &len);
  const char *prog = lz_prog_name ? lz_prog_name : "lz";
  size_t plen = strlen(prog);
  char *line = GC_MALLOC_ATOMIC(plen + 2 + len + 1);
  if (!line) lz_heap_exhausted();
  memcpy(line, prog, plen);
  memcpy(line + plen, ": ", 2);
  memcpy(line + plen + 2, text, len);
  line[plen + 2 + len] = '\n';
  lz_io_flush_all();
  lz_io_write_stderr(line, plen + 3 + len);
  lz_exit(1);
}

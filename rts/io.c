/* io.c — handles: buffered descriptors and the IO primops.
 *
 * Lz names a file by a small number (0 stdin, 1 stdout, 2 stderr, then one new number
 * per openFile#, never reused, so a closed handle stays closed). Each has an output
 * buffer with GHC's modes (0 none, 1 line, 2 block; stdin/stdout line-buffered on a
 * terminal, else block; stderr unbuffered; files block) and an input buffer decoded as
 * UTF-8. Errors carry GHC's wording ("<stdout>: hPutStr: illegal operation (handle is
 * closed)", "f: openFile: does not exist (No such file or directory)"), and files are
 * locked as GHC does (many readers or one writer per file, else "resource busy (file is
 * locked)"). Reading stdin flushes stdout first when stdin is a terminal, so prompts
 * appear; with pipes the order of output is GHC's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eventlog.h"
#include "rts_priv.h"
#if LZ_REPLAY
#include "replay.h"
#endif

#define BUF_BYTES 8192

typedef struct Handle {
  int os; /* OS descriptor, -1 once closed */
  bool readable, writable;
  int mode;   /* 0 none, 1 line, 2 block */
  char *name; /* "<stdout>" or the file's path (messages) */
  unsigned char *wbuf;
  size_t wlen;
  unsigned char *rbuf;
  size_t rpos, rlen;
  bool eof;
  dev_t dev; /* file lock identity (files only) */
  ino_t ino;
  bool locked;
} Handle;

static Handle *handles;
static size_t nhandles, handles_cap;
static bool io_started;

static Handle *new_handle(int os, bool r, bool w, int mode, const char *name) {
  if (nhandles == handles_cap) {
    handles_cap = handles_cap ? 2 * handles_cap : 16;
    handles = realloc(handles, handles_cap * sizeof(Handle));
    if (!handles) lz_heap_exhausted();
  }
  Handle *h = &handles[nhandles++];
  memset(h, 0, sizeof *h);
  h->os = os, h->readable = r, h->writable = w, h->mode = mode;
  h->name = strdup(name);
  h->wbuf = w ? malloc(BUF_BYTES) : NULL;
  h->rbuf = r ? malloc(BUF_BYTES) : NULL;
  return h;
}

void lz_io_init(void) {
  if (io_started) return;
  io_started = true;
  signal(SIGPIPE, SIG_IGN); /* a closed pipe is an EPIPE error, as in GHC */
  new_handle(0, true, false, isatty(0) ? 1 : 2, "<stdin>");
  new_handle(1, false, true, isatty(1) ? 1 : 2, "<stdout>");
  new_handle(2, false, true, 0, "<stderr>");
}

static Handle *get(LzWord fd) {
  if (fd >= nhandles) lz_internal_error("bad file descriptor %ld", (long)fd);
  return &handles[fd];
}

/* GHC's IOErrorType wording for an errno. */
static const char *io_error_type(int e) {
  switch (e) {
  case ENOENT:
  case ENXIO:
  case ESRCH: return "does not exist";
  case EACCES:
  case EPERM:
  case EROFS:
  case EFBIG: return "permission denied";
  case EEXIST: return "already exists";
  case EBUSY:
  case ETXTBSY: return "resource busy";
  case ENOSPC:
  case EMFILE:
  case ENFILE:
  case EAGAIN:
  case EMLINK: return "resource exhausted";
  case EISDIR:
  case ENOTDIR: return "inappropriate type";
  case EPIPE:
  case ECONNRESET: return "resource vanished";
  case EINVAL:
  case ELOOP:
  case ENAMETOOLONG: return "invalid argument";
  case EIO: return "hardware fault";
  default: return "failed";
  }
}

static _Noreturn void io_fail(Handle *h, const char *op, int err) {
  lz_die(1, "%s: %s: %s (%s)", h->name, op, io_error_type(err), strerror(err));
}

static _Noreturn void io_illegal(Handle *h, const char *op, const char *why) {
  lz_die(1, "%s: %s: illegal operation (%s)", h->name, op, why);
}

/* Write out the buffer; returns an errno, 0 on success. */
static int flush_raw(Handle *h) {
  size_t off = 0;
  lz_sched_may_block();
  while (off < h->wlen) {
    ssize_t n = write(h->os, h->wbuf + off, h->wlen - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      int e = errno;
      h->wlen = 0;
      return e;
    }
    off += (size_t)n;
  }
  h->wlen = 0;
  return 0;
}

static void flush_or_die(Handle *h, const char *op) {
  int e = flush_raw(h);
  if (e) io_fail(h, op, e);
}

void lz_io_flush_all(void) {
  for (size_t i = 0; i < nhandles; i++)
    if (handles[i].os >= 0 && handles[i].writable && handles[i].wlen) flush_raw(&handles[i]);
}

void lz_io_write_stderr(const char *bytes, size_t n) {
  if (nhandles > 2 && handles[2].os >= 0 && handles[2].wlen) flush_raw(&handles[2]);
  while (n > 0) {
    ssize_t k = write(2, bytes, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    bytes += k, n -= (size_t)k;
  }
}

/* ---- output --------------------------------------------------------------------------- */

/* hPutStr# fd s n: the first n characters of s (evaluated). */
LzWord lz_prim_hPutStr(LzCap *cap, LzWord fd, LzWord str, LzWord n) {
  (void)cap;
  Handle *h = get(fd);
  if (h->os < 0) io_illegal(h, "hPutStr", "handle is closed");
  if (!h->writable) io_illegal(h, "hPutStr", "handle is not open for writing");
  bool newline = false;
  LzWord rest = str; /* cells beyond the n-th may be unevaluated: never look at them */
  for (LzWord i = 0; i < n; i++) {
    LzWord cell = lz_string_cell(rest);
    if (LZ_TAG(cell) != 2) break;
    LzWord *c = LZ_UNTAG(cell);
    uint32_t ch = lz_char_value(c[1]);
    if (h->wlen + 4 > BUF_BYTES) flush_or_die(h, "hPutStr");
    h->wlen += lz_utf8_encode(ch, h->wbuf + h->wlen, false);
    newline |= ch == '\n';
    rest = c[2];
  }
  if (h->mode == 0 || (h->mode == 1 && newline)) flush_or_die(h, "hPutStr");
  return 0;
}

LzWord lz_prim_hFlush(LzCap *cap, LzWord fd) {
  (void)cap;
  Handle *h = get(fd);
  if (h->os < 0) io_illegal(h, "hFlush", "handle is closed");
  if (!h->writable) io_illegal(h, "hFlush", "handle is not open for writing");
  flush_or_die(h, "hFlush");
  return 0;
}

static void unlock(Handle *h);

LzWord lz_prim_hClose(LzCap *cap, LzWord fd) {
  (void)cap;
  Handle *h = get(fd);
  if (h->os < 0) return 0;
  int e = h->writable ? flush_raw(h) : 0;
  close(h->os);
  h->os = -1;
  unlock(h);
  if (e) io_fail(h, "hClose", e);
  return 0;
}

LzWord lz_prim_hSetBufferMode(LzCap *cap, LzWord fd, LzWord mode) {
  (void)cap;
  Handle *h = get(fd);
  if (h->os >= 0 && h->writable && mode < (LzWord)h->mode) flush_raw(h);
  h->mode = mode <= 2 ? (int)mode : 2;
  return 0;
}

LzWord lz_prim_hGetBufferMode(LzCap *cap, LzWord fd) {
  (void)cap;
  return (LzWord)get(fd)->mode;
}

/* ---- input ---------------------------------------------------------------------------- */

/* Make at least `want` bytes available if the file has them; false at end of file. */
static bool fill(Handle *h, size_t want) {
  while (h->rlen - h->rpos < want) {
    if (h->eof) return false;
    if (h->os == 0 && isatty(0) && nhandles > 1 && handles[1].os >= 0 && handles[1].wlen)
      flush_raw(&handles[1]);
    if (h->rpos > 0) {
      memmove(h->rbuf, h->rbuf + h->rpos, h->rlen - h->rpos);
      h->rlen -= h->rpos;
      h->rpos = 0;
    }
#if LZ_REPLAY
    ssize_t n = lz_replay_io_read(h->os, h->rbuf + h->rlen, BUF_BYTES - h->rlen);
#else
    lz_sched_may_block();
    ssize_t n = read(h->os, h->rbuf + h->rlen, BUF_BYTES - h->rlen);
#endif
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) io_fail(h, "hGetChar", errno);
    if (n == 0) h->eof = true;
    h->rlen += (size_t)n;
  }
  return true;
}

/* Next code point; -1 end of file, -2 invalid UTF-8, -3 closed or not readable. */
LzWord lz_prim_hGetChar(LzCap *cap, LzWord fd) {
  (void)cap;
  Handle *h = get(fd);
  if (h->os < 0 || !h->readable) return (LzWord)-3;
  if (!fill(h, 1)) return (LzWord)-1;
  unsigned char b = h->rbuf[h->rpos];
  size_t len = b < 0x80             ? 1
               : (b & 0xE0) == 0xC0 ? 2
               : (b & 0xF0) == 0xE0 ? 3
               : (b & 0xF8) == 0xF0 ? 4
                                    : 0;
  if (len == 0 || (len > 1 && !fill(h, len))) return (LzWord)-2;
  const unsigned char *s = h->rbuf + h->rpos;
  uint32_t c = len == 1 ? b : len == 2 ? b & 0x1F : len == 3 ? b & 0x0F : b & 0x07;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return (LzWord)-2;
    c = (c << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < min[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return (LzWord)-2;
  h->rpos += len;
  return c;
}

LzWord lz_prim_hIsEOF(LzCap *cap, LzWord fd) {
  (void)cap;
  Handle *h = get(fd);
  if (h->os < 0) io_illegal(h, "hIsEOF", "handle is closed");
  if (!h->readable) io_illegal(h, "hIsEOF", "handle is not open for reading");
  return !fill(h, 1);
}

/* ---- files ---------------------------------------------------------------------------- */

/* GHC's per-file lock: many readers or one writer. */
static bool lock_conflict(dev_t dev, ino_t ino, bool write) {
  for (size_t i = 0; i < nhandles; i++) {
    Handle *o = &handles[i];
    if (o->os >= 0 && o->locked && o->dev == dev && o->ino == ino && (write || o->writable))
      return true;
  }
  return false;
}

static void unlock(Handle *h) { h->locked = false; }

LzWord lz_prim_openFile(LzCap *cap, LzWord path_list, LzWord mode) {
  (void)cap;
  char *path = lz_string_utf8(path_list, -1, false, NULL);
  static const int oflags[4] = {O_RDONLY, O_WRONLY | O_CREAT | O_TRUNC,
                                O_WRONLY | O_CREAT | O_APPEND, O_RDWR | O_CREAT};
  if (mode > 3) mode = 0;
  Handle tmp = {.name = path};
  struct stat st;
  /* Check the lock before opening, so WriteMode does not truncate a locked file. */
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && lock_conflict(st.st_dev, st.st_ino, mode != 0))
    lz_die(1, "%s: openFile: resource busy (file is locked)", path);
  int os = open(path, oflags[mode] | O_CLOEXEC | O_NOCTTY, 0666);
  if (os < 0) io_fail(&tmp, "openFile", errno);
  if (fstat(os, &st) == 0 && S_ISDIR(st.st_mode)) {
    close(os);
    lz_die(1, "%s: openFile: inappropriate type (is a directory)", path);
  }
  Handle *h = new_handle(os, mode == 0 || mode == 3, mode != 0, 2, path);
  h->dev = st.st_dev, h->ino = st.st_ino, h->locked = S_ISREG(st.st_mode);
  return (LzWord)(h - handles);
}

/* ---- environment, exit, trace ---------------------------------------------------------- */

LzWord lz_prim_argCount(LzCap *cap) {
  (void)cap;
  return (LzWord)lz_prog_argc;
}

LzWord lz_prim_argAt(LzCap *cap, LzWord i) {
  (void)cap;
  if (i >= (LzWord)lz_prog_argc) lz_internal_error("argAt#: no argument %ld", (long)i);
  return (LzWord)lz_prog_argv[i];
}

LzWord lz_prim_progName(LzCap *cap) {
  (void)cap;
  return (LzWord)(lz_prog_name ? lz_prog_name : "lz");
}

LzWord lz_prim_exit(LzCap *cap, LzWord status) {
  (void)cap;
  lz_exit((int)(status & 0xFF));
}

LzWord lz_prim_traceString(LzCap *cap, LzWord str) {
  (void)cap;
  size_t len;
  char *s = lz_string_utf8(str, -1, false, &len);
  lz_io_write_stderr(s, len);
  return 0;
}

/* Debug.Trace.traceEvent/traceMarker: user events in this capability's event log. */
static void post_user_event(LzCap *cap, LzWord str, bool marker) {
  LzEvBuf *eb = lz_ev_class_buf(LZ_EVC_USER, cap->cap_no);
  if (!eb) return;
  size_t len;
  char *s = lz_string_utf8(str, -1, false, &len);
  if (marker)
    lz_ev_user_marker(eb, s, len);
  else
    lz_ev_user_msg(eb, s, len);
}

LzWord lz_prim_traceEvent(LzCap *cap, LzWord str) {
  post_user_event(cap, str, false);
  return 0;
}

LzWord lz_prim_traceMarker(LzCap *cap, LzWord str) {
  post_user_event(cap, str, true);
  return 0;
}

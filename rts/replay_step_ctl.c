/* replay_step_ctl.c — the controller side of the stepper: the `(lzdb)` prompt (or a
 * script), breakpoints, the event lines seen so far, and the engines it forks. Note
 * [Stepper] in docs/notes/stepper.md; the engine is replay_step_engine.c.
 *
 * The controller is the process the user started, stopped in lz_replay_prepare with the
 * recording loaded and nothing else running. An engine is a fork of it that returns from
 * lz_step_start (a longjmp back into this frame) and replays. Moving to an event the
 * controller has already seen only moves the cursor and prints the kept line; a question
 * about state (info, where, print) or a move past the known events makes the engine be
 * at the cursor: ahead of it, a fresh engine is forked and replayed up to it.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay.h"
#include "replay_step.h"

void lz_step_engine_init(int cmd_fd, int rep_fd);

static bool step_wanted;
static const char *script_path;

int lz_step_flag(const char *a, char *err, size_t errlen) {
  if (!strcmp(a, "--step")) {
    step_wanted = true;
    return 0;
  }
  if (!strncmp(a, "--step-script=", 14) && a[14]) {
    step_wanted = true;
    script_path = a + 14;
    return 0;
  }
  snprintf(err, errlen, "bad RTS option: %s (use --step or --step-script=<file>)", a);
  return 1;
}

bool lz_step_wanted(void) { return step_wanted; }

/* ---- the engine ------------------------------------------------------------------------------ */

typedef struct Engine {
  pid_t pid; /* 0: none */
  FILE *cmd;
  int rep, out, err; /* read ends; -1 when closed */
  char buf[8192];    /* rep bytes not yet split into lines */
  size_t nbuf;
  uint64_t pos;                /* the event it stands at */
  bool ended;                  /* the program has exited in it (pos = its last event) */
  uint64_t seen_out, seen_err; /* bytes of the program's stdout/stderr it has written */
} Engine;

static Engine eng = {.rep = -1, .out = -1, .err = -1};
static jmp_buf engine_start;
static uint64_t shown_out, shown_err; /* program output already shown to the user */
static char **lines;                  /* lines[n]: event n as printed, 1..nknown */
static uint64_t nknown, lines_room;
static uint64_t total;      /* events in the recording */
static uint64_t cur;        /* the cursor: events replayed */
static int end_status = -1; /* the program's exit status once an engine saw it */
static LzBreak *breaks;
static size_t nbreaks;
static int next_break_no = 1;

static void keep_line(uint64_t n, const char *text) {
  if (n != nknown + 1) { /* a re-replay: the same line again (replay is deterministic) */
    if (n <= nknown && strcmp(lines[n], text) != 0)
      printf("warning: event #%" PRIu64 " replayed differently the second time:\n  %s\n  %s\n", n,
             lines[n], text);
    return;
  }
  if (nknown + 2 > lines_room) {
    lines_room = lines_room ? lines_room * 2 : 4096;
    lines = realloc(lines, lines_room * sizeof *lines);
    if (!lines) abort();
  }
  lines[++nknown] = strdup(text);
}

/* Copy program output from an engine to ours, skipping what an earlier engine showed. */
static void forward(int *fd, uint64_t *seen, uint64_t *shown, FILE *to) {
  char b[4096];
  ssize_t k = read(*fd, b, sizeof b);
  if (k <= 0) {
    if (k == 0 || errno != EINTR) close(*fd), *fd = -1;
    return;
  }
  uint64_t from = *seen, upto = *seen + (uint64_t)k;
  *seen = upto;
  if (upto <= *shown) return;
  size_t skip = from < *shown ? (size_t)(*shown - from) : 0;
  fwrite(b + skip, 1, (size_t)k - skip, to);
  fflush(to);
  *shown = upto;
}

static void engine_kill(void) {
  if (!eng.pid) return;
  kill(eng.pid, SIGKILL);
  waitpid(eng.pid, NULL, 0);
  fclose(eng.cmd);
  int fds[3] = {eng.rep, eng.out, eng.err};
  for (int i = 0; i < 3; i++)
    if (fds[i] >= 0) close(fds[i]);
  eng = (Engine){.rep = -1, .out = -1, .err = -1};
}

/* The next line from the engine (without '\n'), forwarding its output meanwhile; NULL when
 * the engine has gone (its exit is reported). */
static char *engine_line(void) {
  static char line[sizeof eng.buf];
  for (;;) {
    char *nl = memchr(eng.buf, '\n', eng.nbuf);
    if (nl) {
      size_t k = (size_t)(nl - eng.buf);
      memcpy(line, eng.buf, k);
      line[k] = 0;
      memmove(eng.buf, nl + 1, eng.nbuf - k - 1);
      eng.nbuf -= k + 1;
      return line;
    }
    if (eng.rep < 0) return NULL;
    struct pollfd p[3] = {{eng.rep, POLLIN, 0}, {eng.out, POLLIN, 0}, {eng.err, POLLIN, 0}};
    if (poll(p, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return NULL;
    }
    if (p[1].revents) forward(&eng.out, &eng.seen_out, &shown_out, stdout);
    if (p[2].revents) forward(&eng.err, &eng.seen_err, &shown_err, stderr);
    if (p[0].revents) {
      if (eng.nbuf == sizeof eng.buf) eng.nbuf = 0; /* an over-long line: drop it */
      ssize_t k = read(eng.rep, eng.buf + eng.nbuf, sizeof eng.buf - eng.nbuf);
      if (k > 0) {
        eng.nbuf += (size_t)k;
      } else if (k == 0 || errno != EINTR) {
        close(eng.rep);
        eng.rep = -1;
      }
    }
  }
}

/* The engine went away without saying why: drain its output, report its exit. */
static void engine_died(void) {
  while (eng.out >= 0 || eng.err >= 0) {
    struct pollfd p[2] = {{eng.out, POLLIN, 0}, {eng.err, POLLIN, 0}};
    if (poll(p, 2, 1000) <= 0) break;
    if (p[0].revents) forward(&eng.out, &eng.seen_out, &shown_out, stdout);
    if (p[1].revents) forward(&eng.err, &eng.seen_err, &shown_err, stderr);
  }
  int st = 0;
  waitpid(eng.pid, &st, 0);
  eng.pid = 0; /* reaped */
  printf("the replay stopped (%s %d) at event #%" PRIu64 "; going back or on starts a new one\n",
         WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
         eng.pos);
  fclose(eng.cmd);
  eng = (Engine){.rep = -1, .out = -1, .err = -1};
}

/* The engine has stopped: show the output it wrote before saying so (flushed by then). */
static void drain(void) {
  for (;;) {
    struct pollfd p[2] = {{eng.out, POLLIN, 0}, {eng.err, POLLIN, 0}};
    if (poll(p, 2, 0) <= 0 || !(p[0].revents | p[1].revents)) return;
    if (p[0].revents) forward(&eng.out, &eng.seen_out, &shown_out, stdout);
    if (p[1].revents) forward(&eng.err, &eng.seen_err, &shown_err, stderr);
  }
}

typedef enum { R_STOP, R_END, R_GONE } Reply;

/* Read E lines (kept; printed when their number is above `print_above`) until the engine
 * stops (S: pos and the breakpoint hit) or ends (X). */
static Reply engine_run(uint64_t print_above, int *bp) {
  for (char *l; (l = engine_line());) {
    if (l[0] == 'E' && l[1] == ' ') {
      char *text;
      uint64_t n = strtoull(l + 2, &text, 10);
      if (*text == ' ') text++;
      keep_line(n, text);
      if (n > print_above) printf("%s\n", text);
    } else if (l[0] == 'S') {
      unsigned long long n = 0;
      int b = 0;
      sscanf(l, "S %llu %d", &n, &b);
      eng.pos = n;
      if (bp) *bp = b;
      drain();
      return R_STOP;
    } else if (l[0] == 'X') {
      unsigned long long n = 0;
      int st = 0;
      sscanf(l, "X %d %llu", &st, &n);
      eng.pos = n, eng.ended = true, end_status = st;
      drain();
      return R_END;
    }
  }
  engine_died();
  return R_GONE;
}

static void engine_send(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void engine_send(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(eng.cmd, fmt, ap);
  va_end(ap);
  fflush(eng.cmd);
}

static bool engine_fork(void) {
  int c[2], r[2], o[2], e[2];
  if (pipe(c) || pipe(r) || pipe(o) || pipe(e)) {
    printf("cannot start a replay: %s\n", strerror(errno));
    return false;
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    printf("cannot start a replay: %s\n", strerror(errno));
    return false;
  }
  if (pid == 0) { /* the engine */
    signal(SIGPIPE, SIG_DFL);
    dup2(o[1], 1), dup2(e[1], 2);
    int null = open("/dev/null", 0);
    if (null >= 0) dup2(null, 0), close(null);
    close(c[1]), close(r[0]), close(o[0]), close(o[1]), close(e[0]), close(e[1]);
    lz_step_engine_init(c[0], r[1]);
    longjmp(engine_start, 1);
  }
  close(c[0]), close(r[1]), close(o[1]), close(e[1]);
  eng = (Engine){.pid = pid, .cmd = fdopen(c[1], "w"), .rep = r[0], .out = o[0], .err = e[0]};
  if (!eng.cmd) abort();
  if (engine_run(UINT64_MAX, NULL) != R_STOP) return false;
  for (size_t i = 0; i < nbreaks; i++)
    engine_send("bp add %d %s\n", breaks[i].no, breaks[i].spec);
  return true;
}

/* Make the engine stand at event `pos` (known to exist). */
static bool engine_at(uint64_t pos) {
  if (eng.pid && eng.pos == pos) return true;
  if (!eng.pid || eng.pos > pos || eng.ended) {
    engine_kill();
    if (pos > 1000) printf("(replaying to event #%" PRIu64 ")\n", pos), fflush(stdout);
    if (!engine_fork()) return false;
    if (pos == 0) return true;
  }
  engine_send("go %" PRIu64 " 0\n", pos);
  return engine_run(UINT64_MAX, NULL) == R_STOP && eng.pos == pos;
}

/* ---- commands ------------------------------------------------------------------------------ */

static void show_position(void) {
  if (cur == 0)
    printf("at the start (before event #1 of %" PRIu64 ")\n", total);
  else if (cur <= nknown)
    printf("%s\n", lines[cur]);
}

static void said_end(void) {
  printf("the program exited with status %d after event #%" PRIu64 " (the last)\n", end_status,
         cur);
}

/* Move forward: `n` events (verbose) or to `to` (quiet); stop at breakpoints if asked. */
static void forward_by(uint64_t n, bool verbose, bool breaks_on) {
  uint64_t to = n == UINT64_MAX ? UINT64_MAX : cur + n;
  if (to > total && !breaks_on) to = total;
  if (cur >= total) {
    printf("at the end of the recording (event #%" PRIu64 " of %" PRIu64 ")\n", cur, total);
    return;
  }
  /* over events already seen: no engine needed (not with breakpoints: they may look at state) */
  while (!breaks_on && cur < to && cur < nknown) {
    cur++;
    if (verbose) printf("%s\n", lines[cur]);
  }
  if (cur == to) {
    if (!verbose) show_position();
    return;
  }
  if (!engine_at(cur)) return;
  int bp = 0;
  engine_send("go %" PRIu64 " %d\n", to, breaks_on ? 1 : 0);
  Reply r = engine_run(verbose ? cur : UINT64_MAX, &bp);
  if (r == R_GONE) return;
  cur = eng.pos;
  if (r == R_END) {
    said_end();
    return;
  }
  if (bp) printf("Breakpoint %d: ", bp);
  if (!verbose || bp) show_position();
}

static void ask_engine(const char *request) {
  if (!engine_at(cur)) return;
  engine_send("%s\n", request);
  for (char *l; (l = engine_line());) {
    if (!strcmp(l, ".")) return;
    if ((l[0] == 'T' || l[0] == 'E') && l[1] == ' ') printf("%s\n", l + 2);
  }
  engine_died();
}

static bool parse_count(const char *arg, uint64_t dflt, uint64_t *n) {
  while (isspace((unsigned char)*arg))
    arg++;
  if (!*arg) {
    *n = dflt;
    return true;
  }
  char *end;
  unsigned long long v = strtoull(arg, &end, 10);
  while (isspace((unsigned char)*end))
    end++;
  if (end == arg || *end || arg[0] == '-') {
    printf("not a number: %s\n", arg);
    return false;
  }
  *n = v;
  return true;
}

static const char help_text[] =
    "Commands (a replayed run, event by event; the same run every time):\n"
    "  next [n], n [n]       replay n events (default 1), printing each\n"
    "  continue, c           run to the next breakpoint or the end\n"
    "  run N, goto N         go to event N (forward or back)\n"
    "  back [n], reverse-next [n]   go back n events (default 1)\n"
    "  when                  the current event number\n"
    "  break KIND            stop at an event kind: create run stop runnable migrate wakeup\n"
    "                        slice spark run-spark steal fizzle claim block trace marker\n"
    "  break spark C:N | thunk C:N | thread T | cap C | cc NAME | FILE:LINE | time T\n"
    "                        (FILE:LINE: a thunk or spark made there; T like 1.5ms)\n"
    "  info breaks, delete N breakpoints\n"
    "  info caps             what each capability runs, run queues, spark pools\n"
    "  info threads          every thread: state, capability, what it is blocked on\n"
    "  info sparks           spark pools with ids and source locations\n"
    "  where                 the current thread's frames (and cost-centre stack with -prof)\n"
    "  print C:N             a thunk named by an event: unevaluated, blackhole and owner, value\n"
    "  help, quit            this text; leave\n";

/* Run one command; false to quit. */
static bool command(char *line) {
  while (isspace((unsigned char)*line))
    line++;
  size_t len = strlen(line);
  while (len && isspace((unsigned char)line[len - 1]))
    line[--len] = 0;
  if (!*line) return true;
  char word[32] = "";
  int wl = 0;
  while (line[wl] && !isspace((unsigned char)line[wl]) && wl < 31)
    word[wl] = line[wl], wl++;
  word[wl] = 0;
  char *arg = line + wl;
  while (isspace((unsigned char)*arg))
    arg++;
  uint64_t n;
  if (!strcmp(word, "next") || !strcmp(word, "n")) {
    if (parse_count(arg, 1, &n) && n > 0) forward_by(n, true, false);
  } else if (!strcmp(word, "continue") || !strcmp(word, "c")) {
    forward_by(UINT64_MAX, false, true);
  } else if (!strcmp(word, "run") || !strcmp(word, "goto")) {
    if (!*arg)
      printf("%s needs an event number\n", word);
    else if (parse_count(arg, 0, &n)) {
      if (n > total)
        printf("no event #%" PRIu64 ": the recording has %" PRIu64 " events\n", n, total);
      else if (n <= cur || n <= nknown)
        cur = n, show_position();
      else
        forward_by(n - cur, false, false);
    }
  } else if (!strcmp(word, "back") || !strcmp(word, "reverse-next")) {
    if (parse_count(arg, 1, &n)) {
      if (cur == 0)
        printf("already at the start\n");
      else
        cur = n > cur ? 0 : cur - n, show_position();
    }
  } else if (!strcmp(word, "when")) {
    printf("event #%" PRIu64 " of %" PRIu64 "%s\n", cur, total, cur == 0 ? " (at the start)" : "");
  } else if (!strcmp(word, "break") || !strcmp(word, "b")) {
    LzBreak b;
    char err[256];
    if (!lz_step_parse_break(arg, &b, err, sizeof err)) {
      printf("%s\n", err);
    } else {
      b.no = next_break_no++;
      LzBreak *nb = realloc(breaks, (nbreaks + 1) * sizeof *breaks);
      if (!nb) abort();
      breaks = nb;
      breaks[nbreaks++] = b;
      if (eng.pid) engine_send("bp add %d %s\n", b.no, b.spec);
      printf("Breakpoint %d: %s\n", b.no, b.spec);
    }
  } else if (!strcmp(word, "delete") || !strcmp(word, "d")) {
    if (parse_count(arg, 0, &n)) {
      size_t i = 0;
      while (i < nbreaks && (uint64_t)breaks[i].no != n)
        i++;
      if (i == nbreaks) {
        printf("no breakpoint %" PRIu64 "\n", n);
      } else {
        memmove(&breaks[i], &breaks[i + 1], (nbreaks - i - 1) * sizeof *breaks);
        nbreaks--;
        if (eng.pid) engine_send("bp del %" PRIu64 "\n", n);
        printf("deleted breakpoint %" PRIu64 "\n", n);
      }
    }
  } else if (!strcmp(word, "info") || !strcmp(word, "i")) {
    if (!strcmp(arg, "breaks") || !strcmp(arg, "breakpoints") || !strcmp(arg, "b")) {
      if (!nbreaks) printf("no breakpoints\n");
      for (size_t i = 0; i < nbreaks; i++)
        printf("%d  %s\n", breaks[i].no, breaks[i].spec);
    } else if (!strcmp(arg, "caps") || !strcmp(arg, "threads") || !strcmp(arg, "sparks")) {
      char req[32];
      snprintf(req, sizeof req, "info %s", arg);
      ask_engine(req);
    } else {
      printf("info what? (breaks, caps, threads, sparks)\n");
    }
  } else if (!strcmp(word, "where") || !strcmp(word, "bt")) {
    ask_engine("where");
  } else if (!strcmp(word, "print") || !strcmp(word, "p")) {
    uint64_t id;
    if (!lz_step_parse_id(arg, true, &id)) {
      printf("print needs a thunk id as events show it (e.g. 0:1234)\n");
    } else {
      char req[96];
      snprintf(req, sizeof req, "print %s", arg);
      ask_engine(req);
    }
  } else if (!strcmp(word, "help") || !strcmp(word, "h") || !strcmp(word, "?")) {
    fputs(help_text, stdout);
  } else if (!strcmp(word, "quit") || !strcmp(word, "q") || !strcmp(word, "exit")) {
    return false;
  } else {
    printf("unknown command: %s (try `help`)\n", word);
  }
  return true;
}

/* ---- reading commands: a script, a terminal (libedit when it is there), or a pipe --------- */

typedef char *(*ReadlineFn)(const char *);
typedef int (*AddHistoryFn)(const char *);

static char *read_command(FILE *script, bool tty) {
  fflush(stdout); /* everything so far is seen before we wait (a pipe is block-buffered) */
  static ReadlineFn rl;
  static AddHistoryFn add;
  static bool tried;
  if (tty && !tried) {
    tried = true;
    void *h = dlopen("libedit.so.2", RTLD_NOW);
    if (!h) h = dlopen("libreadline.so.8", RTLD_NOW);
    if (h) {
      rl = (ReadlineFn)(uintptr_t)dlsym(h, "readline");
      add = (AddHistoryFn)(uintptr_t)dlsym(h, "add_history");
    }
  }
  if (tty && rl) {
    char *l = rl("(lzdb) ");
    if (l && *l && add) add(l);
    return l;
  }
  static char buf[1024];
  if (tty) printf("(lzdb) "), fflush(stdout);
  if (!fgets(buf, sizeof buf, script ? script : stdin)) return NULL;
  buf[strcspn(buf, "\n")] = 0;
  if (!tty) printf("(lzdb) %s\n", buf);
  return strdup(buf);
}

void lz_step_start(void) {
  if (!step_wanted) return;
  if (setjmp(engine_start)) return; /* a forked engine: go on with the replay */
  signal(SIGPIPE, SIG_IGN);
  for (unsigned c = 0; c < lz_rpl_ncaps(); c++) {
    LzRplEvent e;
    for (size_t i = 0; lz_rpl_event(c, i, &e); i++)
      if (!lz_rpl_timing_dependent(e.type)) total++;
  }
  FILE *script = NULL;
  if (script_path && !(script = fopen(script_path, "r"))) {
    fprintf(stderr, "%s: --step-script: cannot open %s: %s\n", lz_prog_name, script_path,
            strerror(errno));
    exit(1);
  }
  bool tty = !script && isatty(0);
  printf("stepping through a replay: %" PRIu64 " events on %u capabilit%s; `help` lists the "
         "commands\n",
         total, lz_rpl_ncaps(), lz_rpl_ncaps() == 1 ? "y" : "ies");
  char *last = NULL;
  for (char *l; (l = read_command(script, tty));) {
    if (tty && !*l && last) { /* Enter repeats the last command, as in gdb */
      free(l);
      l = strdup(last);
    }
    bool go_on = command(l);
    fflush(stdout);
    if (*l) free(last), last = strdup(l);
    free(l);
    if (!go_on) break;
  }
  if (tty) printf("\n");
  engine_kill();
  fflush(stdout);
  exit(0);
}
#endif

/* lzprof.h — the profiler's public face: an event log read into memory (eventlog_read.c),
 * the model computed from it in one pass (model.c: per-capability state intervals,
 * per-thread times, spark fates and spark runs), and the sub-commands that print or draw
 * that model (cmd_sparks.c, cmd_threads.c, timeline_*.c).
 *
 * The log is GHC's binary event-log format (docs/notes/eventlog.md); what each
 * sub-command computes, and the exact definitions of states and intervals, are in
 * docs/notes/lzprof.md. Times are nanoseconds since the log's clock start.
 */
#ifndef LZPROF_H
#define LZPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- the event log ------------------------------------------------------------------- */

/* GHC 9.0's event numbers that lzprof interprets (the header may declare more; those are
 * skipped using their declared sizes). */
enum {
  LZP_CREATE_THREAD = 0,
  LZP_RUN_THREAD = 1,
  LZP_STOP_THREAD = 2,
  LZP_THREAD_RUNNABLE = 3,
  LZP_MIGRATE_THREAD = 4,
  LZP_THREAD_WAKEUP = 8,
  LZP_GC_START = 9,
  LZP_GC_END = 10,
  LZP_CREATE_SPARK_THREAD = 15,
  LZP_BLOCK_MARKER = 18,
  LZP_CAP_CREATE = 45,
  LZP_SPARK_COUNTERS = 34,
  LZP_SPARK_CREATE = 35,
  LZP_SPARK_DUD = 36,
  LZP_SPARK_OVERFLOW = 37,
  LZP_SPARK_RUN = 38,
  LZP_SPARK_STEAL = 39,
  LZP_SPARK_FIZZLE = 40,
  LZP_SPARK_GC = 41,
  LZP_THREAD_LABEL = 44,
  LZP_RTS_IDENTIFIER = 29,
  LZP_PROGRAM_ARGS = 30,
  LZP_WALL_CLOCK_TIME = 43,
  LZP_LOG_MSG = 16,
  LZP_USER_MSG = 19,
  LZP_USER_MARKER = 58,
  LZP_DATA_END = 0xffff,
};

/* Lz's own optional events, found by their description in the header (their numbers are
 * whatever the log declares in 1000..2047): see Note [Spark sites] in lzprof.md. */
#define LZP_DESC_SPARK_SITE "Lz: spark site" /* var: site u32, UTF-8 "name file:line:col" */
#define LZP_DESC_SPARK_INFO "Lz: spark"      /* 12: spark id u64, site u32 */

enum { LZP_NO_CAP = -1, LZP_MAX_CAPS = 1024 };

typedef struct {
  uint64_t time;    /* ns */
  uint32_t payload; /* offset of the payload in LzpLog.data */
  uint16_t type;
  uint16_t len;      /* payload bytes */
  int32_t cap;       /* from the enclosing block marker; LZP_NO_CAP for global blocks */
  uint32_t file_off; /* byte offset of the event in the file (for messages) */
} LzpEvent;

typedef struct {
  int32_t size; /* payload size, -1: variable */
  char *desc;   /* NULL: not declared */
} LzpEventType;

/* The events of one capability (or of none: global blocks and events outside blocks), in
 * time order: byte ranges of the file, block by block. */
typedef struct {
  uint32_t begin, end;
} LzpSeg;
typedef struct {
  LzpSeg *seg;
  size_t n_seg, cap_seg;
  int32_t cap;        /* LZP_NO_CAP or a capability */
  uint64_t last_time; /* while reading: to check the order */
} LzpStream;

typedef struct {
  uint8_t *data; /* the whole file (mapped read-only when `mapped`) */
  size_t size;
  LzpEventType *types; /* indexed by event number, 65536 entries */
  /* Note [Reading in time order]: the events are read through lzp_iter_* (a merge of the
   * streams). `ev` is an index of them all, sorted by time (stable: file order among equal
   * times), built only when a stream is out of order or a command asks (lzp_log_index). */
  LzpEvent *ev;
  size_t n_ev;              /* events, block markers not counted */
  LzpStream *streams;       /* [LZP_MAX_CAPS + 1]: stream 0 has no capability, c + 1 is cap c */
  int n_streams;            /* highest used + 1 */
  uint64_t t_first, t_last; /* the first and last event times (in time order) */
  int has_user;             /* holds USER_MSG or USER_MARKER events */
  int mapped;               /* data is an mmap of the file: pages read are dropped behind */
  int unsorted;             /* a stream is out of time order: ev is built at reading */
  int n_caps;               /* highest capability seen + 1 */
  int has_end;              /* EVENT_DATA_END was present */
  int spark_site_type;      /* event number of LZP_DESC_SPARK_SITE, or -1 */
  int spark_info_type;      /* event number of LZP_DESC_SPARK_INFO, or -1 */
  char rts_id[128];
  char prog_name[256]; /* PROGRAM_ARGS' argv[0], "" if absent */
  int is_replay;       /* read from a replay log (.lzr), decompressed */
} LzpLog;

/* Reads and decodes PATH. On error writes "lzprof: PATH: byte N: what" into ERR and
 * returns -1 (the log is then empty). Warnings (e.g. no end marker) go to WARN (may be
 * NULL). */
int lzp_log_read(const char *path, LzpLog *log, char *err, size_t errlen, FILE *warn);
void lzp_log_free(LzpLog *log);
/* The events in time order (file order among equal times), one at a time: the pointer is
 * valid until the next call; NULL at the end. Several iterators may be open at once. */
typedef struct LzpIter LzpIter;
LzpIter *lzp_iter_new(const LzpLog *log); /* NULL: out of memory */
const LzpEvent *lzp_iter_next(LzpIter *it);
void lzp_iter_free(LzpIter *it);
/* The event at byte offset AT of a stream's range (validated by the reader), of
 * capability CAP, into *E; returns the offset after it. */
uint32_t lzp_decode_event(const LzpLog *log, uint32_t at, int32_t cap, LzpEvent *e);
/* Builds log->ev (every event, sorted) for commands that keep pointers to events; 0 or -1
 * (out of memory). */
int lzp_log_index(LzpLog *log);
/* A mapped log: gives back the pages of [from, to) (rounded inwards to whole pages; they
 * are read again from the file if touched); returns the new low mark. */
size_t lzp_drop_pages(const LzpLog *log, size_t from, size_t to);

/* Replay logs (replay_input.c). lzp_read_replay decompresses PATH whole into *DATA
 * (malloc'd); *COMPLETE: it ends with the end marker. lzp_check_binary: 0 if PROG may be
 * the program that wrote the log (a replay log: its SHA-256 matches; a plain log: only a
 * warning when argv[0]'s name differs), -1 with a message on stderr otherwise. */
int lzp_is_replay_log(const uint8_t *p, size_t n);
/* Read a whole stream into a malloc'd buffer: `read` returns bytes read into (buf, room),
 * 0 at the end, < 0 on error. 0 with *data and *size set; -1 with *data NULL (a read error, or
 * out of memory / over 4 GiB: *oom says which). */
int lzp_read_all(long (*read)(void *ctx, uint8_t *buf, size_t room), void *ctx, uint8_t **data,
                 size_t *size, int *oom);
int lzp_read_replay(const char *path, uint8_t **data, size_t *size, int *complete, char *err,
                    size_t errlen);
int lzp_check_binary(const char *prog, const char *log_path, const LzpLog *log);

/* Payload accessors: big-endian, 0 past the payload's end. */
uint16_t lzp_u16(const LzpLog *log, const LzpEvent *e, size_t off);
uint32_t lzp_u32(const LzpLog *log, const LzpEvent *e, size_t off);
uint64_t lzp_u64(const LzpLog *log, const LzpEvent *e, size_t off);

/* ---- the model ----------------------------------------------------------------------- */

typedef enum { LZP_IDLE, LZP_RUNNING, LZP_GC, LZP_BLOCKED, LZP_N_STATES } LzpCapState;
extern const char *const lzp_state_names[LZP_N_STATES];

/* ghc-events' names of STOP_THREAD statuses (GHC >= 7.8.3 numbering), 0..20. */
enum { LZP_N_STOP = 21 };
const char *lzp_stop_name(unsigned status); /* "thread finished", ... */
int lzp_stop_is_blocked(unsigned status);

/* 24 bytes (a 10-million-event log has millions): t1 < 2^54 ns (208 days). */
typedef struct {
  uint64_t t0;
  uint64_t t1 : 54;
  uint64_t state : 2; /* LzpCapState */
  uint64_t stop : 8;  /* running: the status that ended it (255: log ended) */
  uint32_t tid;       /* running: the thread; blocked: the thread that blocked */
  uint32_t blocker;   /* running, stopped on a black hole: its owner */
} LzpInterval;

typedef enum {
  LZP_SP_CREATE,
  LZP_SP_DUD,
  LZP_SP_OVERFLOW,
  LZP_SP_RUN,
  LZP_SP_STEAL,
  LZP_SP_FIZZLE,
  LZP_SP_GC,
  LZP_SP_N
} LzpSparkKind;
extern const char *const lzp_spark_kind_names[LZP_SP_N];

typedef struct { /* 40 bytes */
  uint64_t time;
  uint64_t id;     /* (cap << 48) | seq; 0: unknown */
  uint64_t run_ns; /* RUN/STEAL: running time of the thread evaluating it (Note
                      [Spark run times] in lzprof.md) */
  uint32_t site;   /* index into LzpModel.sites + 1; 0: none */
  uint32_t tid;    /* the thread running on the capability, 0: none */
  int16_t cap;
  uint8_t kind;     /* LzpSparkKind */
  uint8_t victim;   /* steals: the capability it came from (mod 256) */
  uint8_t id_known; /* id from an Lz spark event (1) or inferred (0) */
} LzpSparkEvent;

typedef struct {
  uint64_t counts[LZP_SP_N];
  uint64_t counters[7]; /* last SPARK_COUNTERS: crt dud ovf cnv gcd fiz rem */
  int has_counters;
} LzpSparkTotals;

/* A thread (kept small: logs can have a million spark threads). */
typedef struct {
  uint64_t created;  /* time of CREATE_THREAD (or first sight) */
  uint64_t finished; /* time it stopped with "finished"; 0: never */
  /* per state time and runs, per capability where it happened (the capability the thread
   * was on when the interval started); stops: lzp_thread_stops */
  uint64_t *run_ns, *runnable_ns, *blocked_ns; /* [n_caps] */
  uint32_t *runs;                              /* [n_caps] */
  const char *label;                           /* THREAD_LABEL, "" if none */
  uint32_t tid;
  int32_t cap; /* where it last ran (or was created) */
  /* state machine while reading */
  uint64_t since;
  int32_t st_cap;
  uint32_t spark; /* the spark run it is evaluating: index in LzpModel.sparks + 1, 0 none */
  uint8_t st;     /* 0 runnable, 1 running, 2 blocked, 3 finished */
  uint8_t spark_thread;
} LzpThread;

typedef struct {
  char *label;
  uint64_t counts[LZP_SP_N];
} LzpSite;

typedef struct {
  const LzpLog *log;
  int n_caps;
  uint64_t t_begin, t_end; /* first and last event times */
  LzpInterval **iv;        /* per capability, in time order */
  size_t *n_iv;
  LzpThread *threads; /* in order of creation */
  size_t n_threads;
  LzpSparkEvent *sparks; /* in time order */
  size_t n_sparks;
  LzpSparkTotals *cap_sparks; /* [n_caps] */
  LzpSite *sites;
  size_t n_sites;
  int has_spark_events, has_counters, has_site_info;
  uint8_t **arena; /* zeroed chunks holding the threads' per-capability arrays */
  size_t n_arena, arena_used;
  /* stops by (thread, capability, status): a hash table, as most threads stop once or
   * twice (key (thread index + 1) << 16 | cap << 5 | status, 0 empty) */
  uint64_t *stop_keys;
  uint32_t *stop_counts;
  size_t stop_cap, n_stop_keys;
} LzpModel;

/* opts: LZP_NO_INTERVALS leaves m->iv empty (commands that do not draw capabilities). */
enum { LZP_NO_INTERVALS = 1 };
int lzp_model_build(const LzpLog *log, LzpModel *m, unsigned opts, char *err, size_t errlen);
void lzp_model_free(LzpModel *m);
LzpThread *lzp_model_thread(const LzpModel *m, uint32_t tid); /* NULL: unknown */
/* How many times thread TH stopped on capability CAP with STATUS (< LZP_N_STOP). */
uint32_t lzp_thread_stops(const LzpModel *m, const LzpThread *th, int cap, unsigned status);

/* Formats a duration in ns as "12.3 µs" etc. into BUF. */
const char *lzp_fmt_ns(uint64_t ns, char *buf, size_t len);

/* ---- sub-commands (argv after the sub-command's name; return the exit status) -------- */
int lzp_cmd_sparks(int argc, char **argv);
int lzp_cmd_threads(int argc, char **argv);
int lzp_cmd_timeline(int argc, char **argv);
int lzp_cmd_marks(int argc, char **argv);    /* cmd_marks.c */
int lzp_cmd_export(int argc, char **argv);   /* export.c */
int lzp_cmd_eventlog(int argc, char **argv); /* cmd_eventlog.c */
int lzp_cmd_step(int argc, char **argv);     /* cmd_step.c */
int lzp_cmd_dup(int argc, char **argv);      /* cmd_dup.c */
int lzp_cmd_compare(int argc, char **argv);  /* cmd_compare.c */

/* Timeline writers (timeline_html.c, timeline_svg.c) over a built model. */
typedef struct {
  size_t detail_budget; /* bytes of exact interval/event records the HTML may embed */
  unsigned width;       /* SVG width in pixels */
  const char *title;
} LzpTimelineOptions;
int lzp_timeline_html(const LzpModel *m, FILE *out, const LzpTimelineOptions *o);
int lzp_timeline_svg(const LzpModel *m, FILE *out, const LzpTimelineOptions *o);

/* Shared by the commands: open, read and model a log, and check that it holds the events
 * NEED asks for; or print the error (naming the +RTS flag that records what is missing)
 * and return -1. CMD names the command in messages. */
enum { LZP_NEED_SCHED = 1, LZP_NEED_SPARKS = 2, LZP_NEED_USER = 4, LZP_LOAD_NO_INTERVALS = 8 };
int lzp_load(const char *cmd, const char *path, unsigned need, LzpLog *log, LzpModel *m);

#endif

/* rts_priv.h — what the runtime's own files share and compiled code never sees.
 *
 * The thread object, the private tail of the capability, the parsed +RTS flags, the
 * statistics counters, and small helpers used across the runtime: reading evaluated Lz
 * values (following indirections), making Integers, turning an evaluated [Char] into
 * UTF-8 bytes, and the GHC-style message functions. Boehm is included here with its
 * thread support enabled (GC_THREADS), so every runtime file sees the same gc.h.
 */
#ifndef LZ_RTS_PRIV_H
#define LZ_RTS_PRIV_H

#define GC_THREADS 1
#include <gc/gc.h>
#include <gmp.h>
#include <stdio.h>

#include "rts.h"

/* ---- threads and capabilities -------------------------------------------------------- */

#define LZ_STACK_RED         32   /* words below sp_lim kept free for the runtime */
#define LZ_STACK_INIT_WORDS  4096 /* initial stack: 32 KiB */
#define LZ_SPARK_STACK_WORDS (LZ_STACK_INIT_WORDS / 4) /* a spark thread's: 8 KiB */

typedef enum LzThreadKind { LZ_THREAD_MAIN, LZ_THREAD_SPARK } LzThreadKind;

typedef struct LzThread {
  LzWord *stack;      /* lowest word of the stack object (GC-allocated)            */
  size_t stack_words; /* its size                                                  */
  LzWord *sp;         /* saved stack pointer while not running                      */
  LzWord result;      /* what the stop frame received                               */
  uint32_t id;
  /* threaded way (sched.c): how to resume, and where the thread is */
  LzThreadKind kind;
  uint32_t cap_no; /* the capability it last ran on (its run queue when woken)  */
  LzCode next;     /* resume: next(cap, sp, r1, r2, r3, r4)                      */
  LzWord r1, r2, r3, r4;
  struct LzThread *link; /* run queue or blackhole wait list                          */
  LzWord blocked_on;     /* the BLACKHOLE it waits for (wait list)                     */
} LzThread;

/* Why a thread returned to the scheduler (threaded way): set before returning. */
typedef enum LzStopWhy { LZ_STOP_FINISHED, LZ_STOP_YIELD, LZ_STOP_BLOCKED, LZ_STOP_DIED } LzStopWhy;

/* Fresh blocks a capability took with its last one, per object size (Note [Stashed
 * blocks] in docs/notes/threaded-rts.md). */
#define LZ_STASH_BLOCKS     3
#define LZ_HEAP_BLOCK_BYTES 65536 /* Boehm's HBLKSIZE, as rts/bdwgc/bdwgc.cmake builds it */

struct LzCapPriv {
  LzWord *gc_sp; /* sp during lz_alloc_slow (dead words below it are cleared at GC) */
  /* stash[g][i]: a fresh block for g-granule objects, + LZ_BUMP_HIDE, or 0 */
  LzWord stash[LZ_FL_MAX + 1][LZ_STASH_BLOCKS];
  /* Event log (eventlog.h, Note [Event log] in docs/notes/eventlog.md): this capability's
   * buffer, NULL when not logging; ev_sparks the same only when one event per spark is
   * logged (+RTS -lf), so each call site tests one pointer. */
  struct LzEvBuf *ev;
  struct LzEvBuf *ev_sparks;
  struct LzSched *sched;  /* threaded way: the scheduler's part (sched.c), else NULL     */
  uint64_t dup_updates;   /* lazy blackholing: updates that found the thunk updated already */
  uint32_t slice_updates; /* -replay way: updates since the capability's last slice ended
                           * (RPL_YIELD: Note [Pre-emption in a loop], docs/notes/replay.md) */
  /* threaded way, parking for collections (gcpark.c): the park word, Boehm's descriptor of
   * the capability's OS thread, and whether it is inside Boehm (never at a heap check) */
  _Atomic int gc_park;
  void *gc_thread;
  int in_boehm;
};

/* Before a system call that may wait (a read, a write to a pipe): a capability running
 * alone stops being alone, so that others need not wait for it (Note [Running alone]). */
#if LZ_THREADED && !LZ_REPLAY
void lz_sched_may_block(void);
#else
static inline void lz_sched_may_block(void) {}
#endif

LzThread *lz_thread_new(LzCap *cap, size_t words);
/* Forget what a finished thread's stack held before it runs again (the spare spark
 * thread): Note [Stale registers], "The spare spark thread". */
void lz_thread_clear_stack(LzThread *t);
void lz_cap_attach(LzCap *cap, LzThread *t); /* make t the running thread of cap */

/* ---- the threaded way (sched.c, blackhole.c; Note [Threaded runtime] in
 * docs/notes/threaded-rts.md) ------------------------------------------------------- */

extern unsigned lz_ncaps;              /* capabilities running (1 in the vanilla way)       */
extern LzCap **lz_caps;                /* lz_caps[i]->cap_no == i                           */
extern __thread LzCap *lz_current_cap; /* the capability this OS thread runs, or NULL   */
/* Run the program's main thread to completion on -N capabilities; never returns. */
_Noreturn void lz_sched_main(LzCap *cap0, LzWord *main_closure);
/* Stop every other capability (they park at their next safe point); called by lz_exit
 * before the event log is closed. Waits at most a moment. */
void lz_sched_stop_others(void);
/* A thread became runnable again (woken from a blackhole): queue it on its capability. */
void lz_sched_wake(LzCap *cap, LzThread *t);
/* The running thread stops: state saved in t, why in the capability; returns to C. */
void lz_sched_stopping(LzCap *cap, LzThread *t, LzStopWhy why, uint16_t ev_status);
/* raiseError# in a spark thread: the thunks it was evaluating re-raise the error when
 * someone demands them; the thread ends (longjmp to its scheduler). */
_Noreturn void lz_sched_raise_in_spark(LzCap *cap, LzWord msg);
bool lz_sched_is_spark_thread(LzCap *cap);
void lz_sched_init(void); /* make the -N capabilities (after lz_rts_init)    */
struct LzSparkCounters;
void lz_sched_final_sparks(struct LzSparkCounters *sum); /* prune at exit, sum, log     */
uint64_t lz_sched_alloc_bytes(void); /* over all capabilities                          */
/* At a safe point: should the running thread give way (another thread is runnable, or
 * the program is stopping)? */
bool lz_sched_yield_wanted(LzCap *cap);
void lz_sched_alone_check(LzCap *cap); /* at a heap check: Note [Running alone] */
/* gcpark.c: parking at safe points for a collection (Note [Parking for collections]) */
void lz_gc_park_init(void);             /* with the capabilities made            */
void lz_gc_park_thread(LzCap *cap);     /* on the capability's OS thread, at start */
bool lz_gc_park_safe_point(LzCap *cap); /* at a heap check whose yield flag was set */
void lz_gc_park_counters(uint64_t *stops, uint64_t *parked, uint64_t *signalled);
/* Blackholes (blackhole.c): wake every thread waiting for `thunk` (just updated). */
void lz_blackhole_wake(LzCap *cap, LzWord *thunk);
extern const LzInfo lz_blackhole_waited_info; /* a BLACKHOLE someone waits for          */
extern const LzInfo lz_raise_info;            /* {info, message}: raises on entry        */
/* Note [Lazy blackholing] (docs/notes/threaded-rts.md): the info word of a thunk while one
 * thread writes its result (or error) and then IND; whoever enters it waits a moment. */
extern const LzInfo lz_locked_info;
/* Lazy blackholing: the running thread stops (yield, block): blackhole the thunks of the
 * update frames on its stack from sp up (a CAS each, which may fail: another thread has
 * it), GHC's threadPaused. Not under a lock: replay may pass the baton here. */
void lz_lazy_blackhole_stack(LzCap *cap, LzThread *t, LzWord *sp);
/* Take a thunk for writing its result: CAS of its info word to lz_locked_info from
 * whatever it is, unless it is IND already (then false). *old: what was replaced. */
bool lz_thunk_lock(LzWord *thunk, LzWord *old);
uint64_t lz_lazy_dup_updates(void); /* summed over the capabilities (for +RTS -s) */

/* ---- flags -------------------------------------------------------------------------- */

typedef struct LzFlags {
  bool stats;                /* -s */
  char *stats_file;          /* -s<file>: NULL for stderr */
  size_t max_stack_bytes;    /* -K */
  size_t max_heap_bytes;     /* -M (0: unlimited) */
  size_t initial_heap_bytes; /* -A / -H: Boehm's initial heap (collections happen about
                                every third of it while live data is small) */
  bool initial_heap_total;   /* -H: initial_heap_bytes is the total; -A, default: per cap */
  double heap_factor;        /* -F: let the heap grow to this many times the live data
                                (Note [Heap sizing]); 0: only Boehm's own growth */
  bool eventlog;             /* -l[classes]: write an event log (eventlog way only) */
  uint32_t eventlog_classes; /* LZ_EVC_* mask, from -l's letters (default GHC's: sgpu) */
  char *eventlog_file;       /* -ol<file>: NULL for <prog>.eventlog */
  char eventlog_bad_class;   /* an unknown -l letter: GHC warns and goes on */
  unsigned ncaps;            /* -N[n] (threaded way; 1 otherwise)                        */
  uint64_t ctx_switch_ns;    /* -C<secs>: pre-emption interval (GHC's default 20 ms)     */
  size_t spark_pool;         /* -e<n>: maximum outstanding local sparks (GHC: 4096)     */
  unsigned gc_threads;       /* -qn<n>: Boehm's marker threads (0: min(-N, cores)); -qg: 1 */
  bool lazy_bh;              /* --lazy-blackholing (threaded ways; Note [Lazy blackholing]) */
  bool internal_counters;    /* --internal-counters: -s adds the runtime's own counters */
} LzFlags;

extern LzFlags lz_flags;
extern const char *lz_prog_name; /* basename of argv[0] */
extern int lz_prog_argc;         /* program arguments (RTS options removed) */
extern char **lz_prog_argv;

/* Parse argv: fills *flags (starting from the defaults) and the program arguments
 * (argv[1..] minus RTS options, into out_argv, which has room for argc entries, NULL
 * terminated). Returns 0 on success, 1 on an error (message in err, without the program
 * name), 2 when -? asked for help. Does not print or exit. */
int lz_parse_rts_flags(int argc, char **argv, LzFlags *flags, int *out_argc, char **out_argv,
                       char *err, size_t errlen);
void lz_flags_default(LzFlags *flags);
bool lz_parse_size(const char *s, size_t *out); /* "8m", "1g", "512k", "4096", "1.5m" */
void lz_print_usage(FILE *f);                   /* every line prefixed "<prog>: " */

/* ---- statistics (stats.c) ----------------------------------------------------------- */

void lz_stats_start(void);     /* process start: INIT begins */
void lz_stats_mut_start(void); /* main begins */
void lz_stats_mut_end(void);   /* main finished (or exit called) */
void lz_stats_gc_event(int event);
/* extra: lines printed after the GC table (threaded: TASKS and SPARKS), "" for none */
void lz_stats_print(FILE *f, uint64_t alloc_bytes, const char *extra);
char *lz_format_commas(uint64_t n, char *buf); /* buf: >= 32 bytes */

/* ---- heap and values ---------------------------------------------------------------- */

extern LzCap *lz_main_cap;
void lz_gc_init(void);                    /* once */
void lz_gc_thread_owner(unsigned cap_no); /* a capability's thread, at its start */
LzWord lz_whnf(LzWord p);                 /* follow INDs; tag untagged values; die on thunks */
LzWord lz_string_cell(LzWord p);          /* lz_whnf on a list cell (tag 1 [] or 2 (:)) */
uint32_t lz_char_value(LzWord c);         /* the Char# of an evaluated C# box */
/* UTF-8 encoding (GC'd, NUL-terminated; NUL chars as C0 80 if `modified`) of the first
 * n characters of an evaluated [Char] (all of it when n < 0); *len gets the byte count. */
char *lz_string_utf8(LzWord list, long n, bool modified, size_t *len);
size_t lz_utf8_encode(uint32_t c, unsigned char *out, bool modified); /* 1..4 bytes */
char *lz_gc_strdup(const char *s); /* atomic GC copy (an Addr# result) */
/* Could p be a closure? Non-zero, 8-aligned, in Boehm's heap or the executable's data (a
 * CAF). For conservative stack walks and checks of addresses that may be stale. */
bool lz_plausible_closure(LzWord p);
/* thunk[from..to] = 0: a thunk's free variables, when it is updated or blackholed. Volatile
 * stores: a plain loop becomes a call to memset, which for the usual one to three words
 * cost more than the stores (1.9 % of sumeuler's run). */
static inline void lz_clear_words(LzWord *thunk, size_t from, size_t to) {
  volatile LzWord *w = thunk;
  for (size_t i = from; i <= to; i++)
    w[i] = 0;
}
/* Is obj (an object of `bytes` bytes) one that a capability has not yet handed out from
 * its fresh block (Note [Bump allocation], rts/heap.c)? Marked, but stale: not a closure.
 * For heap walks with the world stopped. */
bool lz_heap_unallocated(const void *obj, size_t bytes);
size_t lz_show_double(double x, char *buf);        /* GHC's show; buf >= 64 bytes; returns length */
double lz_int_encode_double(int64_t m, int64_t e); /* GHC's __int_encodeDouble */

/* ---- IO (io.c) ---------------------------------------------------------------------- */

void lz_io_init(void);
void lz_io_flush_all(void); /* every writable handle; errors ignored (used when dying) */
void lz_io_write_stderr(const char *bytes, size_t n); /* through the stderr handle */

/* ---- messages (error.c) ------------------------------------------------------------- */

/* Print "<prog>: " + message + "\n" on stderr (stdout flushed first), no exit. */
void lz_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void lz_stack_overflow(size_t current_bytes);
_Noreturn void lz_internal_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

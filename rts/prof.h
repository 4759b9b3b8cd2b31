/* prof.h — cost-centre profiling (the -prof way): what generated code and the runtime
 * share, and the profiler's own structures.
 *
 * GHC's model (Sansom & Peyton Jones): a *cost centre* (LzProfCC) is a named place in the
 * program (an SCC, a -fprof-auto binding, a module's CAFs); a *cost-centre stack* (LzCCS)
 * is a path of cost centres from the root MAIN, a node of a tree that grows as the program
 * pushes. Each capability has a current stack; costs go to it: the bytes it allocates
 * (exact), the timer ticks that find it running, and the number of times an SCC entered
 * it. The report (prof_report.c) prints the tree and the costs per cost centre in GHC's
 * `.prof` layout. Note [Profiling] (docs/notes/profiling.md) has the design: how stacks
 * are saved and restored by a frame, the thunk layout of this way, what is charged where.
 *
 * Everything here exists only in the -prof runtime (LZ_PROF); the vanilla, threaded and
 * replay archives compile prof*.c to nothing.
 */
#ifndef LZ_PROF_H
#define LZ_PROF_H

#include <stdint.h>

#include "rts.h"

/* A cost centre, emitted by the code generator as a writable static
 * { ptr label, ptr module, ptr srcloc, i64 id } (codegen/cg_prof.c). The runtime numbers
 * it (id, from 1) the first time a stack with it is made. */
typedef struct LzProfCC {
  const char *label;  /* "main.go", "CAF", "MAIN" */
  const char *module; /* "Main" */
  const char *srcloc; /* "x.lz:4:1-50", "<entire-module>", "<built-in>" */
  uint64_t id;        /* 0 until registered */
} LzProfCC;

/* A cost-centre stack: a node of the tree rooted at MAIN. Costs are atomic counters
 * (several capabilities may run the same stack). `memo` caches the result of pushing a
 * cost centre onto this stack (a child, or an older stack when the cost centre is
 * already on this one: recursion is flattened); `children` lists the real children. */
typedef struct LzCCS {
  LzProfCC *cc;
  struct LzCCS *prev;               /* the stack below (NULL for MAIN) */
  struct LzCCSMemo *_Atomic memo;   /* push results, newest first */
  struct LzCCS *children, *sibling; /* the tree (under the profiler's lock) */
  uint32_t id, depth;               /* `no.` in the report; MAIN has depth 1 */
  _Atomic uint64_t entries;         /* SCC entries that made this the current stack */
  _Atomic uint64_t ticks;           /* timer ticks that found it current */
  _Atomic uint64_t alloc;           /* bytes allocated while current */
  _Atomic uint64_t replay_ns;       /* profiling a replay: recorded time shared out */
  uint64_t heap_bytes;              /* -hc: live bytes at the sample being taken     */
  uint64_t inh_ticks, inh_alloc;    /* report: this node and everything under it */
  struct LzCCS *next_all;           /* every stack, newest first */
} LzCCS;

typedef struct LzCCSMemo {
  LzProfCC *cc;
  LzCCS *ccs;
  struct LzCCSMemo *next;
} LzCCSMemo;

/* The per-capability profiling registers, indexed by cap_no, one cache line each.
 * Generated code reads the current stack inline (a thunk records it when allocated):
 *     ccs = *(LzCCS **)((char *)lz_prof_caps + LZ_PROF_CAP_STRIDE * cap->cap_no)  */
#define LZ_PROF_MAX_CAPS   256
#define LZ_PROF_CAP_STRIDE 64
typedef struct LzProfCap {
  LzCCS *_Atomic ccs;  /* offset 0: the current stack (NULL means MAIN)                */
  uint64_t mark;       /* cap->alloc_bytes when `ccs` last changed (alloc accounting) */
  _Atomic int running; /* running Lz code: the timer charges its ticks to `ccs`       */
  char pad[LZ_PROF_CAP_STRIDE - 20];
} __attribute__((aligned(LZ_PROF_CAP_STRIDE))) LzProfCap;
extern LzProfCap lz_prof_caps[LZ_PROF_MAX_CAPS];

/* ---- called by generated code (C calls, not tail calls) ------------------------------
 * Each sets the capability's current stack and returns the new sp: when the stack
 * changes, a restore frame {&lz_prof_restore_frame_info, old ccs} is pushed first (unless
 * one is already on top: a tail call keeps the stack flat), so whoever is returned to
 * next runs under the stack that was current when its frame was pushed. */
LzWord *lz_prof_enter_scc(LzCap *cap, LzWord *sp, LzProfCC *cc);  /* SE_SCC: push cc     */
LzWord *lz_prof_enter_thunk(LzCap *cap, LzWord *sp, LzWord ccs);  /* the thunk's stack   */
LzWord *lz_prof_enter_caf(LzCap *cap, LzWord *sp, LzProfCC *caf); /* MAIN > CAF:module  */
extern const LzInfo lz_prof_restore_frame_info; /* frame {info, ccs}: restores ccs      */

/* ---- the runtime's side (prof.c, prof_report.c) -------------------------------------- */

extern LzCCS lz_prof_main_ccs;                 /* MAIN */
LzCCS *lz_prof_push(LzCCS *ccs, LzProfCC *cc); /* GHC's pushCostCentre */
void lz_prof_set(LzCap *cap, LzCCS *ccs);      /* charge allocation so far, switch      */
/* +RTS flags of this way: -p, -pa, -pj, -V<secs>. Returns 0, or 1 with a message. */
int lz_prof_flag(const char *a, char *err, unsigned long errlen);
void lz_prof_start(int argc, char **argv); /* after the capabilities exist: timer, MAIN */
void lz_prof_end(void);                    /* at exit, others stopped: write the report */
/* The scheduler (threaded way) around running a lightweight thread. */
void lz_prof_thread_run(LzCap *cap, uint32_t thread_id);
void lz_prof_thread_stop(LzCap *cap, uint32_t thread_id); /* before it can be resumed */
void lz_prof_cap_idle(LzCap *cap);                        /* back in the scheduler   */

/* Profiling a replay (Note [Profiling], "Profiling a replay"): called by the replay way
 * (rts/replay*.c). lz_prof_replay_begin(log, end_ns) when the log is loaded (end_ns: the
 * time of its last event): with -p the report says it is a replay of `log`, and time comes
 * from the recorded clock instead of the timer. lz_prof_replay_event(cap, ns) where the
 * replay reaches a recorded event of `cap` (ns: its time in the recorded run; replay_sched.c
 * calls it at each slice's RUN_THREAD and RPL_SLICE): the recorded time since the
 * capability's previous event is shared among the stacks that ran on it in between, in
 * proportion to the bytes each allocated there (the deterministic measure of work a replay
 * reproduces exactly); time in which no Lz code ran there (idle) is nobody's.
 * lz_prof_flags_keep(0) / (1): save and restore this way's +RTS flags around the replay's
 * parse of the recorded command line (the replay's -p/-hc/-V count, not the recording's). */
void lz_prof_replay_begin(const char *log, uint64_t end_ns);
void lz_prof_replay_event(LzCap *cap, uint64_t orig_ns);
void lz_prof_flags_keep(int restore);

/* Flags and totals the report needs. */
typedef struct LzProfConfig {
  int report;       /* 0 none, 1 -p, 2 -pa (all rows), 3 -pj (JSON) */
  uint64_t tick_ns; /* -V (default 1 ms) */
  int argc;
  char **argv; /* the whole command line, +RTS options included */
  _Atomic uint64_t total_ticks;
  const char *replay_log; /* set by the replay way: the report says it is a replay's */
} LzProfConfig;
extern LzProfConfig lz_prof_config;
/* Heap profile by cost-centre stack (+RTS -hc [-i<secs>]), prof_heap.c: GHC's .hp file,
 * Note [Profiling], "Heap profile". */
typedef struct LzProfHeapFlags {
  int by_ccs;           /* -h / -hc */
  uint64_t interval_ns; /* -i<secs>, default 0.1 s (GHC's) */
} LzProfHeapFlags;
extern LzProfHeapFlags lz_prof_heap_flags;
int lz_prof_heap_flag(const char *a, char *err, unsigned long errlen); /* -h*, -i* */
void lz_prof_heap_start(int argc, char **argv);
void lz_prof_heap_end(void);
/* True when p is a cost-centre stack (stacks live in one region: a range check). */
bool lz_prof_is_ccs(const void *p);

/* Write the report to `path` (prof_report.c). */
void lz_prof_write_report(const char *path, unsigned ncaps);
LzCCS *lz_prof_all_stacks(void);

#endif

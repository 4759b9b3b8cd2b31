/* replay_step.h — stepping through a replayed parallel run (`+RTS --replay --step`).
 *
 * Two processes of the same binary. The *controller* is the process the user started:
 * after the recording is loaded (and before the runtime starts: one OS thread, no GC
 * yet) it reads commands at an `(lzdb)` prompt or from a script, and never runs the
 * program itself. It forks *engines*: each continues the ordinary start-up as a replay
 * and stops at events the controller asks for, answering questions about its state over
 * two pipes. Going back is a fresh engine replayed to an earlier event — replay is
 * deterministic, so it reaches the same state; the controller keeps every event line it
 * has seen, so moving over known events needs no engine at all. Design, protocol and
 * costs: Note [Stepper] in docs/notes/stepper.md.
 */
#ifndef LZ_REPLAY_STEP_H
#define LZ_REPLAY_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eventlog.h"
#include "rts_priv.h"
#include "sparkpool.h"

/* flags.c: "--step" or "--step-script=FILE" (with --replay). 0, or 1 with a message. */
int lz_step_flag(const char *arg, char *err, size_t errlen);
bool lz_step_wanted(void);

/* replay.c, after the recording is loaded: become the controller (never returns), or,
 * in a forked engine, return and let the replay start. */
void lz_step_start(void);

/* ---- engine hooks (only while lz_step_on) ---------------------------------------------- */
extern bool lz_step_on;
/* eventlog.h lz_ev_begin: an event of `type` is about to be posted on eb's capability. */
void lz_step_event(LzEvBuf *eb, uint16_t type);
/* replay_slice.c, replay_lazybh.c: the capability is about to claim thunk x (id its thunk id). */
void lz_step_claiming(LzCap *cap, LzWord *x, LzWord id);
/* replay_sched.c: a spark was pushed. */
void lz_step_spark_pushed(LzCap *cap, LzWord closure, LzSparkId id);
/* start.c lz_exit: the program ends with `status` (output flushed). */
void lz_step_exit(int status);

/* ---- shared by engine and controller (replay_step_common.c) ---------------------------- */

/* A breakpoint: what the controller parsed, and the engine parses again from `spec`. */
typedef enum LzBreakKind {
  LZ_BRK_EVENT,  /* an event kind: steal, block, run, ... (ev: a LzStepEvKind)         */
  LZ_BRK_SPARK,  /* a spark id                                                          */
  LZ_BRK_THUNK,  /* a thunk id                                                          */
  LZ_BRK_THREAD, /* a thread (recorded id)                                              */
  LZ_BRK_CAP,    /* a capability                                                        */
  LZ_BRK_CC,     /* a cost centre on the running capability's stack (-prof builds)      */
  LZ_BRK_LINE,   /* a thunk or spark made at file:line                                  */
  LZ_BRK_TIME    /* the first event at or after a time of the original run              */
} LzBreakKind;

typedef enum LzStepEvKind {
  LZ_SEV_OTHER,
  LZ_SEV_CREATE,
  LZ_SEV_RUN,
  LZ_SEV_STOP,
  LZ_SEV_RUNNABLE,
  LZ_SEV_MIGRATE,
  LZ_SEV_WAKEUP,
  LZ_SEV_SLICE,
  LZ_SEV_SPARK_RUN,
  LZ_SEV_STEAL,
  LZ_SEV_FIZZLE,
  LZ_SEV_CLAIM,
  LZ_SEV_BLOCK,
  LZ_SEV_TRACE,
  LZ_SEV_MARKER,
  LZ_SEV_SPARK /* any spark event */
} LzStepEvKind;

typedef struct LzBreak {
  int no; /* as numbered for the user, from 1 */
  LzBreakKind kind;
  LzStepEvKind ev;
  uint64_t id;    /* spark/thunk id, thread, capability, time (ns) */
  char text[200]; /* cost-centre name, or the file of file:line */
  int line;
  char spec[256]; /* what the user typed after `break` */
} LzBreak;

/* Parse the text after `break`; false with a message in err. */
bool lz_step_parse_break(const char *spec, LzBreak *b, char *err, size_t errlen);
/* Spark and thunk ids as the stepper prints and reads them: "cap:number". */
void lz_step_fmt_spark(char *out, size_t n, uint64_t id);
void lz_step_fmt_thunk(char *out, size_t n, uint64_t id);
bool lz_step_parse_id(const char *s, bool thunk, uint64_t *id);
LzStepEvKind lz_step_ev_kind(uint16_t type, const uint8_t *payload, uint32_t len);
/* Does the location "path/file.lz:12:3-9" (or "(12,3)-(14,1)") cover `line` of `file`
 * (a path whose last component is compared when `file` has no '/')? */
bool lz_step_srcloc_covers(const char *loc, const char *file, int line);

#endif

/* replay_step_engine.c — the engine side of the stepper: a replay that numbers the events
 * it reproduces, describes each from the recording, stops where the controller asks
 * (an event number or a breakpoint) and answers questions about its state. Note
 * [Stepper] in docs/notes/stepper.md; the controller is replay_step_ctl.c.
 *
 * The engine stops inside lz_ev_begin of the event it has just numbered, before the
 * event is written: exactly one capability runs in a replay (the baton), so everything
 * else is parked and may be read without locks. The thread states shown come from the
 * recorded events (what the original run did), the heap, stacks and spark pools from the
 * replay's memory (the same as the original's at this point, up to addresses).
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay.h"
#include "replay_step.h"
#include "spark_sites.h"
#if LZ_PROF
#include "prof.h"
#endif

bool lz_step_on;

static FILE *cmd_in, *rep_out;
static uint64_t nev;     /* events reproduced so far (the current event's number) */
static uint64_t target;  /* stop when nev reaches this */
static uint64_t go_from; /* nev when the last `go` began (breakpoints need nev > it) */
static bool use_breaks, started;
static size_t *idx; /* per capability: the next recorded event */
static unsigned ncaps;
static LzBreak *breaks;
static size_t nbreaks;
static int cur_cap = -1;      /* capability of the current event */
static bool sp_saved;         /* its thread's saved stack pointer is current (not mid-slice) */
static LzStepEvKind cur_kind; /* the current event's kind */

/* ---- the threads of the recording, from its events --------------------------------------- */

typedef enum { T_NONE, T_RUNNABLE, T_RUNNING, T_BLOCKED, T_FINISHED } TState;
typedef struct TInfo {
  TState state;
  unsigned cap;
  uint64_t blocked_on; /* thunk id (T_BLOCKED) */
  uint64_t created;    /* event number */
  bool spark;          /* a spark thread */
} TInfo;
static TInfo *tinfo;
static size_t ntinfo;
static uint32_t *running;    /* per capability: the recorded thread running, 0 none */
static uint64_t *last_block; /* per capability: the id of its last RPL_BLOCK */

static TInfo *thread_info(uint32_t tid) {
  if (tid >= ntinfo) {
    size_t n = tid + 64;
    tinfo = realloc(tinfo, n * sizeof *tinfo);
    if (!tinfo) abort();
    memset(tinfo + ntinfo, 0, (n - ntinfo) * sizeof *tinfo);
    ntinfo = n;
  }
  return &tinfo[tid];
}

/* ---- thunks and sparks named by events: their source and, for thunks, owner and object -- */

typedef struct Named {
  uint64_t id;
  uint32_t srcloc;
  uint32_t owner; /* thunks: the recorded thread that claimed it */
  size_t slot;    /* thunks: index in `objects` + 1 */
} Named;
typedef struct NameMap {
  Named *e;
  size_t mask, n;
} NameMap;
static NameMap thunks, sparks;
static LzWord *objects; /* GC-visible (uncollectable): the thunks events name, so `print` works */
static size_t nobjects, objects_room;

static Named *name_slot(NameMap *m, uint64_t id, bool add) {
  if (!m->e) {
    if (!add) return NULL;
    m->mask = 1023;
    m->e = calloc(m->mask + 1, sizeof(Named));
    if (!m->e) abort();
  }
  if (add && (m->n + 1) * 2 > m->mask) {
    NameMap g = {calloc((m->mask + 1) * 2, sizeof(Named)), m->mask * 2 + 1, 0};
    if (!g.e) abort();
    for (size_t i = 0; i <= m->mask; i++)
      if (m->e[i].id) *name_slot(&g, m->e[i].id, true) = m->e[i], g.n++;
    free(m->e);
    *m = g;
  }
  for (size_t i = (size_t)(id * 0x9E3779B97F4A7C15ull) & m->mask;; i = (i + 1) & m->mask) {
    if (m->e[i].id == id) return &m->e[i];
    if (!m->e[i].id) {
      if (!add) return NULL;
      m->e[i].id = id;
      m->n++;
      return &m->e[i];
    }
  }
}

/* The thunk ids some event of the recording names: only those are remembered. */
static NameMap wanted;

static void collect_wanted(void) {
  for (unsigned c = 0; c < ncaps; c++) {
    LzRplEvent e;
    for (size_t i = 0; lz_rpl_event(c, i, &e); i++)
      if ((e.type == LZ_EVT_RPL_CLAIM || e.type == LZ_EVT_RPL_BLOCK) && e.len >= 8) {
        uint64_t id = lz_ev_get64(e.payload);
        if (id) name_slot(&wanted, id, true);
      }
  }
}

static uint32_t closure_srcloc(LzWord closure) {
  if (!closure || LZ_TAG(closure)) return 0;
  const LzInfo *info = (const LzInfo *)LZ_UNTAG(closure)[0];
  return info && (info->type == LZ_THUNK || info->type == LZ_FUN) ? info->srcloc : 0;
}

/* Every claim's source, in a direct-mapped cache (later claims overwrite): what `where`
 * shows for the update frames of thunks no event names. It is 1 MiB and holds no heap
 * pointers, so it is calloc'd when stepping starts: as a static array it sat in .bss of
 * every -replay binary, and Boehm scanned (and faulted in) all of it at each collection,
 * 3 ms at start-up alone. */
#define RECENT_BITS 16
typedef struct {
  uint64_t id;
  uint32_t srcloc;
} RecentClaim;
static RecentClaim *recent;

static size_t recent_slot(uint64_t id) {
  return (size_t)((id * 0x9E3779B97F4A7C15ull) >> (64 - RECENT_BITS));
}

static uint32_t recent_srcloc(uint64_t id) {
  size_t i = recent_slot(id);
  return recent && recent[i].id == id ? recent[i].srcloc : 0;
}

void lz_step_claiming(LzCap *cap, LzWord *x, LzWord id) {
  if (!recent && !(recent = calloc(1u << RECENT_BITS, sizeof *recent))) lz_heap_exhausted();
  size_t i = recent_slot(id);
  recent[i].id = id, recent[i].srcloc = closure_srcloc((LzWord)x);
  if (!name_slot(&wanted, id, false)) return;
  Named *n = name_slot(&thunks, id, true);
  n->srcloc = closure_srcloc((LzWord)x);
  n->owner = cap->tso ? lz_rpl_rec_tid(((LzThread *)cap->tso)->id) : 0;
  if (!n->slot) {
    if (nobjects == objects_room) {
      size_t room = objects_room ? objects_room * 2 : 256;
      LzWord *o = GC_MALLOC_UNCOLLECTABLE(room * sizeof(LzWord));
      if (!o) lz_heap_exhausted();
      if (objects) memcpy(o, objects, nobjects * sizeof(LzWord)), GC_FREE(objects);
      objects = o, objects_room = room;
    }
    objects[nobjects++] = (LzWord)x;
    n->slot = nobjects;
  }
}

void lz_step_spark_pushed(LzCap *cap, LzWord closure, LzSparkId id) {
  (void)cap;
  name_slot(&sparks, id, true)->srcloc = closure_srcloc(closure);
}

/* ---- talking to the controller ------------------------------------------------------------ */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(rep_out, fmt, ap);
  va_end(ap);
}

static uint32_t event_thread(unsigned c, const LzRplEvent *e) {
  switch (e->type) {
  case LZ_EVT_CREATE_THREAD:
  case LZ_EVT_RUN_THREAD:
  case LZ_EVT_STOP_THREAD:
  case LZ_EVT_THREAD_RUNNABLE:
  case LZ_EVT_MIGRATE_THREAD:
  case LZ_EVT_THREAD_WAKEUP:
  case LZ_EVT_CREATE_SPARK_THREAD:
  case LZ_EVT_RPL_SLICE: return e->len >= 4 ? lz_ev_get32(e->payload) : 0;
  default: return running[c];
  }
}

static void site_text(char *out, size_t n, uint32_t srcloc) {
  const char *s = lz_srcloc(srcloc);
  snprintf(out, n, "%s%s", s ? "  at " : "", s ? s : "");
}

/* One line for the event: what it did, with ids and source locations. */
static void describe(char *out, size_t n, const LzRplEvent *e) {
  const uint8_t *p = e->payload;
  char id[48], site[256] = "";
  uint32_t tid = e->len >= 4 ? lz_ev_get32(p) : 0;
  switch (e->type) {
  case LZ_EVT_CREATE_THREAD: snprintf(out, n, "create thread %u", tid); return;
  case LZ_EVT_CREATE_SPARK_THREAD: snprintf(out, n, "create spark thread %u", tid); return;
  case LZ_EVT_RUN_THREAD: snprintf(out, n, "run thread %u", tid); return;
  case LZ_EVT_STOP_THREAD:
    snprintf(out, n, "stop thread %u: %s", tid,
             lz_ev_stop_status_name(e->len >= 6 ? lz_ev_get16(p + 4) : 0));
    return;
  case LZ_EVT_THREAD_RUNNABLE: snprintf(out, n, "thread %u runnable", tid); return;
  case LZ_EVT_MIGRATE_THREAD:
    snprintf(out, n, "migrate thread %u to cap %u", tid, lz_ev_get16(p + 4));
    return;
  case LZ_EVT_THREAD_WAKEUP:
    snprintf(out, n, "wake up thread %u on cap %u", tid, lz_ev_get16(p + 4));
    return;
  case LZ_EVT_RPL_SLICE:
    snprintf(out, n, "slice of thread %u ends after %" PRIu64 " bytes", tid, lz_ev_get64(p + 6));
    return;
  case LZ_EVT_RPL_SPARK: {
    uint64_t sid = lz_ev_get64(p);
    lz_step_fmt_spark(id, sizeof id, sid);
    Named *nm = name_slot(&sparks, sid, false);
    if (nm) site_text(site, sizeof site, nm->srcloc);
    unsigned pool = lz_ev_get16(p + 9);
    if (p[8] == LZ_SPARK_EV_STEAL)
      snprintf(out, n, "steal spark %s from cap %u%s", id, pool, site);
    else
      snprintf(out, n, "%s spark %s%s", p[8] == LZ_SPARK_EV_RUN ? "run" : "fizzle", id, site);
    return;
  }
  case LZ_EVT_RPL_CLAIM:
  case LZ_EVT_RPL_BLOCK: {
    uint64_t tk = lz_ev_get64(p);
    lz_step_fmt_thunk(id, sizeof id, tk);
    Named *nm = tk ? name_slot(&thunks, tk, false) : NULL;
    if (nm) site_text(site, sizeof site, nm->srcloc);
    if (e->type == LZ_EVT_RPL_CLAIM)
      snprintf(out, n, "claim thunk %s%s", id, site);
    else if (nm && nm->owner)
      snprintf(out, n, "block on thunk %s (owner thread %u)%s", tk ? id : "?", nm->owner, site);
    else
      snprintf(out, n, "block on thunk %s%s", tk ? id : "?", site);
    return;
  }
  case LZ_EVT_USER_MSG:
  case LZ_EVT_USER_MARKER: {
    snprintf(out, n, "%s \"%.*s\"", e->type == LZ_EVT_USER_MSG ? "trace" : "marker",
             (int)(e->len > 150 ? 150 : e->len), (const char *)p);
    return;
  }
  default: {
    const char *d = lz_rpl_type_desc(e->type);
    snprintf(out, n, "%s", d ? d : "event");
  }
  }
}

static void update_model(unsigned c, const LzRplEvent *e) {
  const uint8_t *p = e->payload;
  uint32_t tid = e->len >= 4 ? lz_ev_get32(p) : 0;
  TInfo *t;
  switch (e->type) {
  case LZ_EVT_CREATE_THREAD:
  case LZ_EVT_CREATE_SPARK_THREAD:
    t = thread_info(tid);
    t->state = T_RUNNABLE, t->cap = c, t->created = nev;
    t->spark = e->type == LZ_EVT_CREATE_SPARK_THREAD;
    break;
  case LZ_EVT_RUN_THREAD:
    t = thread_info(tid);
    t->state = T_RUNNING, t->cap = c;
    running[c] = tid;
    break;
  case LZ_EVT_STOP_THREAD: {
    t = thread_info(tid);
    unsigned s = e->len >= 6 ? lz_ev_get16(p + 4) : 0;
    t->state = s == LZ_EV_STOP_FINISHED               ? T_FINISHED
               : s == LZ_EV_STOP_BLOCKED_ON_BLACKHOLE ? T_BLOCKED
                                                      : T_RUNNABLE;
    if (t->state == T_BLOCKED) t->blocked_on = last_block[c];
    if (running[c] == tid) running[c] = 0;
    break;
  }
  case LZ_EVT_THREAD_RUNNABLE: thread_info(tid)->state = T_RUNNABLE; break;
  case LZ_EVT_MIGRATE_THREAD: thread_info(tid)->cap = lz_ev_get16(p + 4); break;
  case LZ_EVT_THREAD_WAKEUP:
    t = thread_info(tid);
    t->state = T_RUNNABLE, t->cap = lz_ev_get16(p + 4);
    break;
  case LZ_EVT_RPL_BLOCK: /* the running thread blocks: shown blocked from this event on */
    last_block[c] = lz_ev_get64(p);
    if (running[c]) {
      t = thread_info(running[c]);
      t->state = T_BLOCKED, t->blocked_on = last_block[c];
    }
    break;
  default: break;
  }
}

/* ---- breakpoints --------------------------------------------------------------------------- */

static bool cc_on_stack(unsigned c, const char *name) {
#if LZ_PROF
  LzCCS *s = atomic_load(&lz_prof_caps[c].ccs);
  for (; s; s = s->prev)
    if (s->cc && s->cc->label && !strcmp(s->cc->label, name)) return true;
#else
  (void)c, (void)name;
#endif
  return false;
}

static int break_hit(unsigned c, const LzRplEvent *e, LzStepEvKind k) {
  uint64_t id = 0;
  uint32_t srcloc = 0;
  if (e->type == LZ_EVT_RPL_SPARK && e->len >= 8) {
    id = lz_ev_get64(e->payload);
    Named *nm = name_slot(&sparks, id, false);
    srcloc = nm ? nm->srcloc : 0;
  } else if ((e->type == LZ_EVT_RPL_CLAIM || e->type == LZ_EVT_RPL_BLOCK) && e->len >= 8) {
    id = lz_ev_get64(e->payload);
    Named *nm = id ? name_slot(&thunks, id, false) : NULL;
    srcloc = nm ? nm->srcloc : 0;
  }
  for (size_t i = 0; i < nbreaks; i++) {
    LzBreak *b = &breaks[i];
    bool hit = false;
    switch (b->kind) {
    case LZ_BRK_EVENT:
      hit = b->ev == k || (b->ev == LZ_SEV_SPARK &&
                           (k == LZ_SEV_STEAL || k == LZ_SEV_SPARK_RUN || k == LZ_SEV_FIZZLE));
      break;
    case LZ_BRK_SPARK: hit = e->type == LZ_EVT_RPL_SPARK && id == b->id; break;
    case LZ_BRK_THUNK: hit = (k == LZ_SEV_CLAIM || k == LZ_SEV_BLOCK) && id == b->id; break;
    case LZ_BRK_THREAD: hit = event_thread(c, e) == b->id; break;
    case LZ_BRK_CAP: hit = c == b->id; break;
    case LZ_BRK_CC: hit = cc_on_stack(c, b->text); break;
    case LZ_BRK_LINE: {
      const char *loc = lz_srcloc(srcloc);
      hit = loc && lz_step_srcloc_covers(loc, b->text, b->line);
      break;
    }
    case LZ_BRK_TIME: hit = e->time >= b->id; break;
    }
    if (hit) return b->no;
  }
  return 0;
}

/* ---- answering questions ----------------------------------------------------------------- */

static const char *state_name(TState s) {
  static const char *const names[] = {"-", "runnable", "running", "blocked", "finished"};
  return names[s];
}

static void info_caps(void) {
  LzSparkPool **pools = lz_rpl_pools();
  for (unsigned c = 0; c < ncaps; c++) {
    char q[256] = "";
    size_t len = 0, k = 0;
    for (size_t t = 1; t < ntinfo; t++)
      if (tinfo[t].state == T_RUNNABLE && tinfo[t].cap == c) {
        if (len < sizeof q - 16) len += (size_t)snprintf(q + len, sizeof q - len, " %zu", t);
        k++;
      }
    long sp = -1;
    if (pools && pools[c])
      sp = (long)(atomic_load(&pools[c]->bottom) - atomic_load(&pools[c]->top));
    char run[32];
    if (running[c]) snprintf(run, sizeof run, "thread %u", running[c]);
    say("T cap %u: %-10s  run queue %zu%s%s  spark pool %ld%s\n", c, running[c] ? run : "idle", k,
        k ? ":" : "", q, sp < 0 ? 0 : sp, (int)c == cur_cap ? "   <- current event" : "");
  }
}

static void info_threads(void) {
  bool any = false;
  for (size_t t = 1; t < ntinfo; t++) {
    TInfo *i = &tinfo[t];
    if (i->state == T_NONE) continue;
    any = true;
    char extra[320] = "";
    if (i->state == T_BLOCKED) {
      char id[48], site[256] = "";
      lz_step_fmt_thunk(id, sizeof id, i->blocked_on);
      Named *nm = i->blocked_on ? name_slot(&thunks, i->blocked_on, false) : NULL;
      if (nm) site_text(site, sizeof site, nm->srcloc);
      if (nm && nm->owner)
        snprintf(extra, sizeof extra, "  on thunk %s owned by thread %u%s", id, nm->owner, site);
      else
        snprintf(extra, sizeof extra, "  on thunk %s%s", id, site);
    }
    say("T thread %zu%s: %-8s cap %u  (created at event #%" PRIu64 ")%s\n", t,
        i->spark ? " (spark)" : "", state_name(i->state), i->cap, i->created, extra);
  }
  if (!any) say("T no threads yet\n");
}

static void info_sparks(void) {
  LzSparkPool **pools = lz_rpl_pools();
  if (!pools) {
    say("T no spark pools yet\n");
    return;
  }
  for (unsigned c = 0; c < ncaps; c++) {
    LzSparkPool *p = pools[c];
    int64_t top = atomic_load(&p->top), bot = atomic_load(&p->bottom);
    say("T cap %u: %" PRId64 " spark%s\n", c, bot - top, bot - top == 1 ? "" : "s");
    int shown = 0;
    for (int64_t i = top; i < bot && shown < 20; i++, shown++) {
      LzSparkSlot *s = &p->slots[i & p->mask];
      char id[48], site[256] = "";
      lz_step_fmt_spark(id, sizeof id, atomic_load(&s->id));
      Named *nm = name_slot(&sparks, atomic_load(&s->id), false);
      site_text(site, sizeof site, nm ? nm->srcloc : closure_srcloc(atomic_load(&s->closure)));
      say("T   spark %s%s\n", id, site);
    }
    if (bot - top > shown) say("T   ... %" PRId64 " more\n", bot - top - shown);
  }
}

extern char __executable_start[], _end[];
static bool plausible_info(LzWord w) {
  return w && !(w & 7) && (char *)w >= __executable_start && (char *)w < _end;
}

static void show_frames(LzThread *t, LzWord *sp) {
  LzWord *top = t->stack + t->stack_words;
  if (sp < t->stack || sp > top) sp = t->sp;
  int k = 0;
  for (LzWord *p = sp; p && p < top && k < 40; k++) {
    if (!plausible_info(p[0])) {
      say("T   (frames below are not readable)\n");
      return;
    }
    const LzInfo *i = (const LzInfo *)p[0];
    char id[48];
    switch (i->type) {
    case LZ_FRAME_RET: {
      const char *loc = lz_srcloc(i->srcloc);
      say("T   #%d case continuation %s\n", k, loc ? loc : "(no location)");
      break;
    }
    case LZ_FRAME_UPDATE: {
      uint64_t tid = lz_replay_thunk_id((LzWord *)LZ_UNTAG(p[1]));
      Named *nm = tid ? name_slot(&thunks, tid, false) : NULL;
      lz_step_fmt_thunk(id, sizeof id, tid);
      const char *loc = lz_srcloc(nm ? nm->srcloc : tid ? recent_srcloc(tid) : 0);
      say("T   #%d update thunk %s%s%s\n", k, tid ? id : "(runtime)", loc ? "  at " : "",
          loc ? loc : "");
      break;
    }
    case LZ_FRAME_STOP: say("T   #%d thread start\n", k); return;
    case LZ_FRAME_AP:
      say("T   #%d apply to %u argument%s\n", k, i->size, i->size == 1 ? "" : "s");
      break;
    default: say("T   #%d %s\n", k, i->name ? i->name : "frame");
    }
    p += 1 + i->size;
  }
}

static void where(void) {
  if (cur_cap < 0) {
    say("T the program has not started yet\n");
    return;
  }
  uint32_t tid = running[cur_cap];
  if (!tid) {
    say("T cap %d is not running a thread at this event\n", cur_cap);
    return;
  }
  say("T thread %u on cap %d\n", tid, cur_cap);
  LzThread *t = lz_rpl_thread(tid);
  LzCap *cap = lz_caps[cur_cap];
  if (t && cur_kind == LZ_SEV_CLAIM && cap->hook_sp) /* claims: sp from generated code */
    show_frames(t, cap->hook_sp);
  else if (!t || (tinfo[tid].state == T_RUNNING && !sp_saved))
    say("T   (running: its frames are shown where it stops or blocks, e.g. after `next`)\n");
  else
    show_frames(t, t->sp);
#if LZ_PROF
  LzCCS *s = atomic_load(&lz_prof_caps[cur_cap].ccs);
  say("T cost-centre stack:");
  if (!s) say(" MAIN");
  for (; s; s = s->prev)
    say(" %s%s", s->cc && s->cc->label ? s->cc->label : "?", s->prev ? " <" : "");
  say("\n");
#endif
}

static void print_thunk(const char *arg) {
  uint64_t id;
  if (!lz_step_parse_id(arg, true, &id)) {
    say("E not a thunk id: %s (e.g. 0:1234, as events print them)\n", arg);
    return;
  }
  Named *nm = name_slot(&thunks, id, false);
  char ids[48];
  lz_step_fmt_thunk(ids, sizeof ids, id);
  if (!nm || !nm->slot) {
    say("E no thunk %s among those the events so far name (claims and blocks)\n", ids);
    return;
  }
  LzWord *x = (LzWord *)objects[nm->slot - 1];
  const LzInfo *i = (const LzInfo *)__atomic_load_n(&x[0], __ATOMIC_ACQUIRE);
  const char *loc = lz_srcloc(nm->srcloc);
  say("T thunk %s%s%s\n", ids, loc ? " at " : "", loc ? loc : "");
  switch (i->type) {
  case LZ_THUNK: say("T   unevaluated\n"); break;
  case LZ_BLACKHOLE: say("T   under evaluation (a blackhole) by thread %u\n", nm->owner); break;
  case LZ_IND: {
    LzWord v = x[1];
    const LzInfo *vi = (const LzInfo *)LZ_UNTAG(v)[0];
    if (vi->type == LZ_CON && vi->name)
      say("T   evaluated: %s%s\n", vi->name, vi->size ? " ..." : "");
    else if (vi->type == LZ_FUN)
      say("T   evaluated: a function\n");
    else
      say("T   evaluated (%s)\n", vi->name ? vi->name : "a value");
    break;
  }
  default: say("T   %s\n", i->name ? i->name : "an object");
  }
}

static void command_loop(void) {
  fflush(rep_out);
  char line[512];
  while (fgets(line, sizeof line, cmd_in)) {
    line[strcspn(line, "\n")] = 0;
    unsigned long long a = 0, b = 0;
    if (sscanf(line, "go %llu %llu", &a, &b) == 2) {
      target = a, use_breaks = b != 0, go_from = nev;
      return;
    }
    if (!strncmp(line, "bp add ", 7)) {
      char err[256];
      int no = atoi(line + 7);
      const char *spec = strchr(line + 7, ' ');
      breaks = realloc(breaks, (nbreaks + 1) * sizeof *breaks);
      if (breaks && spec && lz_step_parse_break(spec + 1, &breaks[nbreaks], err, sizeof err))
        breaks[nbreaks++].no = no;
      continue; /* the controller parsed it already */
    }
    if (!strncmp(line, "bp del ", 7)) {
      int no = atoi(line + 7);
      for (size_t i = 0; i < nbreaks; i++)
        if (breaks[i].no == no) breaks[i] = breaks[--nbreaks];
      continue;
    }
    if (!strcmp(line, "quit")) _exit(0);
    if (!strcmp(line, "info caps"))
      info_caps();
    else if (!strcmp(line, "info threads"))
      info_threads();
    else if (!strcmp(line, "info sparks"))
      info_sparks();
    else if (!strcmp(line, "where"))
      where();
    else if (!strncmp(line, "print ", 6))
      print_thunk(line + 6);
    else
      say("E engine: unknown request %s\n", line);
    say(".\n");
    fflush(rep_out);
  }
  _exit(0); /* the controller went away */
}

static void stop_here(int bp) {
  lz_io_flush_all();
  say("S %" PRIu64 " %d\n", nev, bp);
  command_loop();
}

void lz_step_event(LzEvBuf *eb, uint16_t type) {
  if (eb->cap >= ncaps || lz_rpl_timing_dependent(type)) return;
  if (!started) {
    started = true;
    if (target == 0) stop_here(0);
  }
  unsigned c = eb->cap;
  LzRplEvent e;
  if (!lz_rpl_event(c, idx[c], &e)) return; /* past the recording: the comparison reports it */
  idx[c]++;
  nev++;
  cur_cap = (int)c;
  /* events in the middle of a slice, posted from generated code: the thread's sp is in a
   * register; at the others it is saved (or the thread is not running) */
  LzStepEvKind k = cur_kind = lz_step_ev_kind(e.type, e.payload, e.len);
  sp_saved = k != LZ_SEV_CLAIM && k != LZ_SEV_TRACE && k != LZ_SEV_MARKER && k != LZ_SEV_WAKEUP;
  update_model(c, &e);
  char what[400];
  describe(what, sizeof what, &e);
  char tid[16] = "-";
  uint32_t t = event_thread(c, &e);
  if (t) snprintf(tid, sizeof tid, "%u", t);
  say("E %" PRIu64 " #%-6" PRIu64 " %4" PRIu64 ".%06" PRIu64 "s  cap %u  thread %-4s %s\n", nev,
      nev, e.time / 1000000000u, e.time / 1000 % 1000000, c, tid, what);
  int bp = use_breaks && nev > go_from ? break_hit(c, &e, k) : 0;
  if (nev >= target || bp) stop_here(bp);
}

void lz_step_exit(int status) {
  if (!lz_step_on) return;
  lz_step_on = false; /* no more numbering: the final flushes post nothing the user sees */
  fflush(stdout);
  for (;;) { /* stay: the controller may still ask questions; a `go` gets the same answer */
    say("X %d %" PRIu64 "\n", status, nev);
    command_loop();
  }
}

/* Called by the controller's fork: this process is an engine on these pipes. */
void lz_step_engine_init(int cmd_fd, int rep_fd);
void lz_step_engine_init(int cmd_fd, int rep_fd) {
  cmd_in = fdopen(cmd_fd, "r");
  rep_out = fdopen(rep_fd, "w");
  if (!cmd_in || !rep_out) _exit(3);
  ncaps = lz_rpl_ncaps();
  idx = calloc(ncaps, sizeof *idx);
  running = calloc(ncaps, sizeof *running);
  last_block = calloc(ncaps, sizeof *last_block);
  if (!idx || !running || !last_block) _exit(3);
  collect_wanted();
  lz_step_on = true;
  target = 0;
}
#endif

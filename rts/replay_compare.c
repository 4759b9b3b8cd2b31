/* replay_compare.c — the run's own event log during a replay goes to a sink that compares
 * it, event by event per capability, with the recording (thread ids up to the renaming
 * made at thread creation), and stops the program at the first difference with exit
 * status 3; and how events are described in those messages. Note [Replay] and Note
 * [Replay's event log] in docs/notes/replay.md.
 */
#include "rts_priv.h"

#if LZ_REPLAY
#include <errno.h>
#include <string.h>

#include "eventlog.h"
#include "replay.h"
#include "replay_sched_priv.h"
#include "replaylog.h"

/* ---- describing events (messages) ----------------------------------------------------------- */

void rpl_describe(char *out, size_t n, uint16_t type, const uint8_t *p, uint32_t len) {
  const char *d = lz_replay_type_desc(rpl_reader, type);
  /* the replay events' descriptions end with how the log stores the fields; the fields
   * decoded follow here instead */
  const char *cut =
      d && type >= LZ_EVT_RPL_SLICE && type <= LZ_EVT_RPL_JOIN ? strstr(d, " (") : NULL;
  int k = snprintf(out, n, "%.*s", cut ? (int)(cut - d) : (int)strlen(d ? d : "?"), d ? d : "?");
  if (k < 0 || (size_t)k >= n) return;
  out += k, n -= (size_t)k;
  switch (type) {
  case LZ_EVT_STOP_THREAD:
    if (len >= 6)
      snprintf(out, n, " (thread %u, %s)", lz_ev_get32(p),
               lz_ev_stop_status_name(lz_ev_get16(p + 4)));
    return;
  case LZ_EVT_CREATE_THREAD:
  case LZ_EVT_RUN_THREAD:
  case LZ_EVT_THREAD_RUNNABLE:
  case LZ_EVT_CREATE_SPARK_THREAD:
    if (len >= 4) snprintf(out, n, " (thread %u)", lz_ev_get32(p));
    return;
  case LZ_EVT_MIGRATE_THREAD:
  case LZ_EVT_THREAD_WAKEUP:
    if (len >= 6)
      snprintf(out, n, " (thread %u, capability %u)", lz_ev_get32(p), lz_ev_get16(p + 4));
    return;
  case LZ_EVT_RPL_SLICE:
    if (len >= LZ_RPL_SLICE_BYTES)
      snprintf(out, n, " (thread %u, why %u, allocated %llu bytes)", lz_ev_get32(p),
               lz_ev_get16(p + 4), (unsigned long long)lz_ev_get64(p + 6));
    return;
  case LZ_EVT_RPL_SPARK:
    if (len >= LZ_RPL_SPARK_BYTES)
      snprintf(out, n, " (spark %llu:%llu, %s, pool %u)",
               (unsigned long long)LZ_SPARK_ID_CAP(lz_ev_get64(p)),
               (unsigned long long)LZ_SPARK_ID_SEQ(lz_ev_get64(p)),
               p[8] == LZ_SPARK_EV_RUN     ? "run"
               : p[8] == LZ_SPARK_EV_STEAL ? "stolen"
                                           : "fizzled",
               lz_ev_get16(p + 9));
    return;
  case LZ_EVT_RPL_YIELD:
    if (len >= LZ_RPL_YIELD_BYTES)
      snprintf(out, n, " (code %llx, %u stack words, %u updates, %u above an update frame)",
               (unsigned long long)lz_ev_get64(p), lz_ev_get32(p + 8), lz_ev_get32(p + 12),
               lz_ev_get16(p + 16));
    return;
  case LZ_EVT_RPL_CLAIM:
  case LZ_EVT_RPL_BLOCK:
  case LZ_EVT_RPL_WAKE:
  case LZ_EVT_RPL_WON:
  case LZ_EVT_RPL_JOIN:
    if (len >= LZ_RPL_CLAIM_BYTES)
      snprintf(out, n, " (thunk %u:%llu)", LZ_THUNK_ID_CAP(lz_ev_get64(p)),
               (unsigned long long)(lz_ev_get64(p) & ((1ull << 47) - 2)));
    return;
  default: snprintf(out, n, " (%u payload bytes)", len);
  }
}

_Noreturn void rpl_diverged(unsigned cap, const Ev *want, const char *got) {
  char w[256];
  if (want)
    rpl_describe(w, sizeof w, want->type, PAY(want), want->len);
  else
    snprintf(w, sizeof w, "no more events (the recording of capability %u ends here)", cap);
  if (want)
    lz_rpl_fail("replay diverged at event #%llu (capability %u): expected %s, got %s",
                (unsigned long long)want->index, cap, w, got);
  lz_rpl_fail("replay diverged on capability %u: expected %s, got %s", cap, w, got);
}

/* ---- comparing the run's event log with the recording ----------------------------------- */

static bool seen_header;
/* +RTS -l during a replay: the replay's own event log (Note [Replay's event log]) */
static FILE *tee;
volatile int rpl_stuck_closing; /* the log is being closed because the replay is stuck */

static void compare(unsigned cap, uint16_t type, const uint8_t *p, uint32_t len) {
  if (lz_rpl_timing_dependent(type)) return;
  Stream *s = &rpl_streams[cap];
  uint8_t got[64];
  if (lz_rpl_has_tid(type) && len >= 4 && len <= sizeof got) {
    memcpy(got, p, len);
    uint32_t tid = lz_ev_get32(p);
    if (tid < rpl_ntids && rpl_rep2rec[tid]) lz_ev_put32(got, rpl_rep2rec[tid]);
    p = got;
  }
  if (s->cmp == s->n) {
    char g[256];
    rpl_describe(g, sizeof g, type, p, len);
    rpl_diverged(cap, NULL, g);
  }
  const Ev *want = &s->ev[s->cmp];
  if ((type == LZ_EVT_RPL_BLOCK || type == LZ_EVT_RPL_WAKE) && want->type == type &&
      want->len == len && !lz_ev_get64(PAY(want))) {
    /* the recording could not name the thunk (lz_replay_blocking; a CAF before the
     * recorder named CAFs there by their address) */
    s->cmp++;
    return;
  }
  if (want->type != type || want->len != len || memcmp(PAY(want), p, len) != 0) {
    char g[256];
    rpl_describe(g, sizeof g, type, p, len);
    rpl_diverged(cap, want, g);
  }
  s->cmp++;
}

/* The sink of the replay's event log: the header, then one block per call, then the end
 * marker (Note [Event log]). Blocks of capabilities are compared; global ones skipped. */
static size_t compare_sink(void *ctx, const void *bytes, size_t n) {
  (void)ctx;
  if (tee && (bytes ? fwrite(bytes, 1, n, tee) != n : fflush(tee) != 0)) {
    lz_message("error writing the replay's event log");
    tee = NULL;
  }
  if (!bytes) return 0;
  const uint8_t *p = bytes, *end = p + n;
  if (!seen_header) {
    seen_header = true;
    return n;
  }
  if (n < 24 || lz_ev_get16(p) != LZ_EVT_BLOCK_MARKER) return n; /* the end marker */
  uint32_t size = lz_ev_get32(p + 10);
  uint16_t cap = lz_ev_get16(p + 22);
  if (size < 24 || size > n)
    lz_rpl_fail("--replay: internal error: a block of %u bytes in a piece of %zu", size, n);
  end = p + size;
  if (cap == LZ_EV_CAP_GLOBAL || cap >= rpl_nstreams) return n;
  for (const uint8_t *q = p + 24; q + 10 <= end;) {
    uint16_t type = lz_ev_get16(q);
    q += 10;
    int sz = lz_replay_type_size(rpl_reader, type);
    uint32_t len;
    if (sz == LZ_EV_VAR) {
      len = lz_ev_get16(q);
      q += 2;
    } else if (sz >= 0) {
      len = (uint32_t)sz;
    } else {
      lz_rpl_fail("--replay: this run posted event type %u, which the recording does not declare",
                  type);
    }
    compare(cap, type, q, len);
    q += len;
  }
  return n;
}

bool lz_rpl_open_compare_log(int argc, char **argv) {
  LzEvOptions o = {0};
  o.classes = LZ_EVC_SCHED | LZ_EVC_USER;
  o.types = lz_rpl_types;
  o.ntypes = lz_rpl_ntypes;
  o.sink = compare_sink;
  o.chunk_bytes = 4096; /* small blocks: a divergence is seen soon after it happens */
  o.rts_id = "Lz-0.1 rts_rpl";
  if (lz_flags.eventlog) {
    char name[4096];
    const char *path = lz_flags.eventlog_file;
    if (!path) snprintf(name, sizeof name, "%s.eventlog", lz_prog_name), path = name;
    if (!(tee = fopen(path, "wb")))
      lz_die(1, "initEventLogFileWriter: can't open %s: %s", path, strerror(errno));
  }
  if (lz_eventlog_open(NULL, lz_ncaps, argc, argv, &o) != 0)
    lz_rpl_fail("--replay: cannot start the event log");
  for (unsigned i = 0; i < lz_ncaps; i++) {
    lz_caps[i]->rest->ev = lz_ev_cap_buf(i);
    lz_caps[i]->rest->ev_sparks = NULL;
  }
  return true;
}

/* After the log is closed (every block compared): was everything reproduced? */
void lz_rpl_finish(void) {
  if (rpl_stuck_closing) return;
  for (unsigned c = 0; c < rpl_nstreams; c++)
    if (rpl_streams[c].cmp < rpl_streams[c].n)
      rpl_diverged(c, &rpl_streams[c].ev[rpl_streams[c].cmp], "the end of the run");
}

#endif

/* replay_step_common.c — what the stepper's controller and engine share: breakpoints,
 * how ids are written, event kinds, the source-location table. Note [Stepper] in
 * docs/notes/stepper.md. */
#include "rts_priv.h"

#if LZ_REPLAY
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_step.h"

bool lz_step_srcloc_covers(const char *loc, const char *file, int line) {
  const char *colon = strchr(loc, ':');
  while (colon && !isdigit((unsigned char)colon[1]) && colon[1] != '(')
    colon = strchr(colon + 1, ':');
  if (!colon) return false;
  size_t plen = (size_t)(colon - loc), flen = strlen(file);
  const char *base = loc;
  if (!strchr(file, '/'))
    for (const char *p = loc; p < colon; p++)
      if (*p == '/') base = p + 1;
  if ((size_t)(colon - base) != flen || strncmp(base, file, flen) != 0) {
    if (plen != flen || strncmp(loc, file, flen) != 0) return false;
  }
  int l1 = 0, l2 = 0;
  if (colon[1] == '(') {
    if (sscanf(colon + 1, "(%d,%*d)-(%d,%*d)", &l1, &l2) != 2) return false;
  } else {
    l1 = l2 = atoi(colon + 1);
  }
  return line >= l1 && line <= l2;
}

void lz_step_fmt_spark(char *out, size_t n, uint64_t id) {
  snprintf(out, n, "%" PRIu32 ":%" PRIu64, LZ_SPARK_ID_CAP(id), (uint64_t)LZ_SPARK_ID_SEQ(id));
}

void lz_step_fmt_thunk(char *out, size_t n, uint64_t id) {
  if (LZ_THUNK_ID_CAP(id) == LZ_THUNK_ID_STATIC)
    snprintf(out, n, "caf:%" PRIu64, (uint64_t)(id & ((1ull << 47) - 1)));
  else
    snprintf(out, n, "%" PRIu32 ":%" PRIu64, LZ_THUNK_ID_CAP(id),
             (uint64_t)(id & ((1ull << 47) - 2)));
}

bool lz_step_parse_id(const char *s, bool thunk, uint64_t *id) {
  char *end;
  bool caf = thunk && !strncmp(s, "caf:", 4);
  unsigned long long c = caf ? LZ_THUNK_ID_STATIC : strtoull(s, &end, 10);
  if (caf)
    end = (char *)s + 3;
  else if (end == s)
    return false;
  if (*end != ':' || !isdigit((unsigned char)end[1])) return false;
  const char *q = end + 1;
  unsigned long long k = strtoull(q, &end, 10);
  if (*end && !isspace((unsigned char)*end)) return false;
  if (c >= LZ_SPARK_MAX_CAPS) return false;
  if (!thunk) {
    *id = LZ_SPARK_ID_MAKE(c, k);
    return k != 0;
  }
  if (caf) {
    *id = ((uint64_t)LZ_THUNK_ID_STATIC << 48) | k;
    return true;
  }
  if (k >= (1ull << 47) || (k & 1)) return false; /* printed ids are even */
  *id = ((uint64_t)c << 48) | (1ull << 47) | k | 1;
  return true;
}

LzStepEvKind lz_step_ev_kind(uint16_t type, const uint8_t *p, uint32_t len) {
  switch (type) {
  case LZ_EVT_CREATE_THREAD:
  case LZ_EVT_CREATE_SPARK_THREAD: return LZ_SEV_CREATE;
  case LZ_EVT_RUN_THREAD: return LZ_SEV_RUN;
  case LZ_EVT_STOP_THREAD: return LZ_SEV_STOP;
  case LZ_EVT_THREAD_RUNNABLE: return LZ_SEV_RUNNABLE;
  case LZ_EVT_MIGRATE_THREAD: return LZ_SEV_MIGRATE;
  case LZ_EVT_THREAD_WAKEUP: return LZ_SEV_WAKEUP;
  case LZ_EVT_RPL_SLICE: return LZ_SEV_SLICE;
  case LZ_EVT_RPL_SPARK:
    if (len < LZ_RPL_SPARK_BYTES) return LZ_SEV_OTHER;
    return p[8] == LZ_SPARK_EV_STEAL ? LZ_SEV_STEAL
           : p[8] == LZ_SPARK_EV_RUN ? LZ_SEV_SPARK_RUN
                                     : LZ_SEV_FIZZLE;
  case LZ_EVT_RPL_CLAIM: return LZ_SEV_CLAIM;
  case LZ_EVT_RPL_BLOCK: return LZ_SEV_BLOCK;
  case LZ_EVT_USER_MSG: return LZ_SEV_TRACE;
  case LZ_EVT_USER_MARKER: return LZ_SEV_MARKER;
  default: return LZ_SEV_OTHER;
  }
}

static const struct {
  const char *name;
  LzStepEvKind kind;
} ev_names[] = {
    {"create", LZ_SEV_CREATE},     {"run", LZ_SEV_RUN},         {"stop", LZ_SEV_STOP},
    {"runnable", LZ_SEV_RUNNABLE}, {"migrate", LZ_SEV_MIGRATE}, {"wakeup", LZ_SEV_WAKEUP},
    {"slice", LZ_SEV_SLICE},       {"spark", LZ_SEV_SPARK},     {"run-spark", LZ_SEV_SPARK_RUN},
    {"steal", LZ_SEV_STEAL},       {"fizzle", LZ_SEV_FIZZLE},   {"claim", LZ_SEV_CLAIM},
    {"block", LZ_SEV_BLOCK},       {"trace", LZ_SEV_TRACE},     {"marker", LZ_SEV_MARKER},
};

/* "1.5ms", "20us", "0.3s", "1200ns" (no unit: seconds) -> ns */
static bool parse_time(const char *s, uint64_t *ns) {
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return false;
  double mul = 1e9;
  if (!strcmp(end, "ms"))
    mul = 1e6;
  else if (!strcmp(end, "us"))
    mul = 1e3;
  else if (!strcmp(end, "ns"))
    mul = 1;
  else if (*end && strcmp(end, "s"))
    return false;
  *ns = (uint64_t)(v * mul + 0.5);
  return true;
}

bool lz_step_parse_break(const char *spec, LzBreak *b, char *err, size_t errlen) {
  memset(b, 0, sizeof *b);
  while (isspace((unsigned char)*spec))
    spec++;
  snprintf(b->spec, sizeof b->spec, "%s", spec);
  char word[64] = "", arg[200] = "";
  int n = sscanf(spec, "%63s %199s", word, arg);
  if (n < 1) {
    snprintf(err, errlen,
             "break what? (an event kind, spark ID, thunk ID, thread N, cap N, "
             "cc NAME, FILE:LINE or time T; `help break`)");
    return false;
  }
  for (size_t i = 0; i < sizeof ev_names / sizeof ev_names[0]; i++)
    if (!strcmp(word, ev_names[i].name) && n == 1) {
      b->kind = LZ_BRK_EVENT;
      b->ev = ev_names[i].kind;
      return true;
    }
  if (n == 1 && !strcmp(word, "spark")) {
    b->kind = LZ_BRK_EVENT, b->ev = LZ_SEV_SPARK;
    return true;
  }
  char *end;
  if (!strcmp(word, "spark") || !strcmp(word, "thunk")) {
    bool thunk = word[0] == 't';
    if (!lz_step_parse_id(arg, thunk, &b->id)) {
      snprintf(err, errlen, "not a %s id: %s (write it as the stepper prints it, e.g. %s)", word,
               arg, thunk ? "0:1234" : "0:7");
      return false;
    }
    b->kind = thunk ? LZ_BRK_THUNK : LZ_BRK_SPARK;
    return true;
  }
  if (!strcmp(word, "thread") || !strcmp(word, "cap")) {
    unsigned long long v = strtoull(arg, &end, 10);
    if (n < 2 || end == arg || *end) {
      snprintf(err, errlen, "break %s needs a number", word);
      return false;
    }
    if (word[0] == 'c' && v >= lz_rpl_ncaps()) {
      snprintf(err, errlen, "no capability %llu (the recording has %u)", v, lz_rpl_ncaps());
      return false;
    }
    b->kind = word[0] == 't' ? LZ_BRK_THREAD : LZ_BRK_CAP;
    b->id = v;
    return true;
  }
  if (!strcmp(word, "cc")) {
    if (n < 2) {
      snprintf(err, errlen, "break cc needs a cost-centre name");
      return false;
    }
    b->kind = LZ_BRK_CC;
    snprintf(b->text, sizeof b->text, "%s", arg);
    return true;
  }
  if (!strcmp(word, "time")) {
    if (n < 2 || !parse_time(arg, &b->id)) {
      snprintf(err, errlen, "break time needs a time such as 1.5ms, 200us or 0.01s");
      return false;
    }
    b->kind = LZ_BRK_TIME;
    return true;
  }
  const char *colon = strrchr(word, ':');
  if (n == 1 && colon && colon != word && isdigit((unsigned char)colon[1])) {
    long line = strtol(colon + 1, &end, 10);
    if (*end || line <= 0) {
      snprintf(err, errlen, "not a source line: %s", word);
      return false;
    }
    b->kind = LZ_BRK_LINE;
    b->line = (int)line;
    snprintf(b->text, sizeof b->text, "%.*s", (int)(colon - word), word);
    return true;
  }
  snprintf(err, errlen, "unknown breakpoint: %s (`help break` lists the kinds)", spec);
  return false;
}
#endif

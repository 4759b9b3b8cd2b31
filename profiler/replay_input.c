/* replay_input.c — lzprof reads replay logs (`prog.lzr`, `+RTS --record`) as well as plain
 * event logs: a .lzr is a zstd container around the event log (Note [Replay log] in
 * docs/notes/replay-log.md), so it is decompressed into memory with the runtime's own
 * reader (rts/replaylog_read.c, which checks every frame's checksum and names the file
 * offset of a damaged frame) and then parsed like any event log. Also here: the check
 * that a program named on the command line is the one that wrote the log (the replay
 * header's SHA-256 of the binary; a plain log only names its argv[0]).
 */
#include "lzprof.h"

#include <stdlib.h>
#include <string.h>

#include "replaylog.h"

int lzp_is_replay_log(const uint8_t *p, size_t n) {
  return n >= 4 && p[0] == 0x5C && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18;
}

int lzp_read_all(long (*read)(void *ctx, uint8_t *buf, size_t room), void *ctx, uint8_t **data,
                 size_t *size, int *oom) {
  size_t cap = (size_t)1 << 20, n = 0;
  uint8_t *buf = malloc(cap);
  *data = NULL, *size = 0, *oom = 1;
  for (;;) {
    if (!buf) return -1;
    if (cap - n < ((size_t)1 << 16)) {
      uint8_t *nb = cap >= ((size_t)1 << 32) ? NULL : realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        return -1;
      }
      buf = nb;
      cap *= 2;
    }
    long got = read(ctx, buf + n, cap - n);
    if (got < 0) {
      free(buf);
      *oom = 0;
      return -1;
    }
    if (got == 0) break;
    n += (size_t)got;
  }
  *data = buf;
  *size = n;
  return 0;
}

static long read_replay(void *r, uint8_t *buf, size_t room) { return lz_replay_read(r, buf, room); }

int lzp_read_replay(const char *path, uint8_t **data, size_t *size, int *complete, char *err,
                    size_t errlen) {
  char rerr[1024];
  *data = NULL;
  *size = 0;
  LzReplayReader *r = lz_replay_open(path, NULL, rerr, sizeof rerr);
  if (!r) {
    snprintf(err, errlen, "lzprof: %s", rerr);
    return -1;
  }
  uint8_t *buf;
  size_t n;
  int oom;
  if (lzp_read_all(read_replay, r, &buf, &n, &oom) < 0) {
    if (oom)
      snprintf(err, errlen, "lzprof: %s: the event log is too large or out of memory", path);
    else
      snprintf(err, errlen, "lzprof: %s", lz_replay_error(r));
    lz_replay_close(r);
    return -1;
  }
  lz_replay_close(r);
  /* raw reading does not parse events; the end marker is the log's last two bytes */
  *complete = n >= 2 && buf[n - 2] == 0xff && buf[n - 1] == 0xff;
  *data = buf;
  *size = n;
  return 0;
}

static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

int lzp_check_binary(const char *prog, const char *log_path, const LzpLog *log) {
  uint8_t hash[LZ_SHA256_BYTES];
  char err[1024];
  if (lz_exe_identity_file(prog, hash, err, sizeof err) < 0) {
    fprintf(stderr, "lzprof: %s\n", err);
    return -1;
  }
  if (log->is_replay) {
    LzReplayReader *r = lz_replay_open(log_path, hash, err, sizeof err);
    if (!r) {
      fprintf(stderr, "lzprof: %s\n", err);
      return -1;
    }
    lz_replay_close(r);
    return 0;
  }
  /* a plain event log records no hash: compare the program's name with its argv[0] */
  if (log->prog_name[0] && strcmp(base_name(log->prog_name), base_name(prog)) != 0)
    fprintf(stderr,
            "lzprof: warning: %s was written by '%s', not '%s' (a plain event log cannot "
            "say more; a replay log, +RTS --record, records the binary's build id)\n",
            log_path, log->prog_name, prog);
  return 0;
}

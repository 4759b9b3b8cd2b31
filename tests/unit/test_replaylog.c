/* test_replaylog.c — unit tests of the replay log container (rts/replaylog*.c).
 *
 * A replay log is written through the real event-log writer (rts/eventlog*.c) with the
 * replay sink; a "tee" sink beside it keeps the plain bytes the writer produced. The
 * tests then check: the reader returns exactly the events the independent decoder of
 * eventlog_decode.h finds in the plain bytes (type, time, capability, payload), and the
 * raw bytes; `zstd -dc` gives the plain log; SHA-256 against the standard's vectors;
 * every header problem (missing file, other kinds of files, truncation, version, check
 * value, another binary's hash) and every event-stream problem (undeclared type, event
 * outside or past its block, data after the end...) gives its message with offsets; and
 * the file cut at every 97th byte or with a random byte flipped yields either a clean
 * error or events that are a prefix of the true ones — never a crash, a hang or a wrong
 * event. Run under ASan+UBSan as unit/test_replaylog-asan.
 *
 * Other modes:
 *   test_replaylog --write FILE.lzr   a sample replay log (for the zstd + ghc-events check)
 *   test_replaylog --bench            compression speed and ratio per zstd level
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <zstd.h>

#include "../../rts/replaylog.h"
#include "eventlog_decode.h"

static char tmpdir[256];

static const char *tmp_path(const char *name) {
  static char buf[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
  return buf[k];
}

static uint8_t *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc((size_t)len + 1);
  assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return p;
}

static void spit(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, n, f), n);
  fclose(f);
}

/* ---- writing a sample replay log ------------------------------------------------------- */

typedef struct Tee {
  LzReplayWriter *w;
  uint8_t *raw;
  size_t n, cap;
  double sink_sec; /* time spent in the replay sink (compressing and writing) */
} Tee;

static double now_sec(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t tee_sink(void *ctx, const void *bytes, size_t n) {
  Tee *t = ctx;
  double t0 = now_sec();
  if (bytes) {
    if (t->n + n > t->cap) {
      t->cap = 2 * (t->n + n);
      t->raw = realloc(t->raw, t->cap);
    }
    memcpy(t->raw + t->n, bytes, n);
    t->n += n;
  }
  size_t k = lz_replay_sink(t->w, bytes, n);
  t->sink_sec += now_sec() - t0;
  return k;
}

static char *sample_argv[] = {"prog", "in.txt", "+RTS", "-N2", "--record=prog.lzr", "-RTS"};
static char *sample_rts[] = {"-N2", "-A1m", "-lsgpu"};
static char *sample_env[] = {"HOME=/root", "LANG=C.UTF-8", "EMPTY="};
static uint8_t sample_hash[LZ_SHA256_BYTES];
static uint8_t stdin_bytes[10000];

static LzReplayHeader sample_header(void) {
  lz_sha256("pretend this is the executable", 30, sample_hash);
  LzReplayHeader h = {.ncaps = 2,
                      .exe_path = "/work/prog",
                      .argc = 6,
                      .argv = sample_argv,
                      .n_rts_opts = 3,
                      .rts_opts = sample_rts,
                      .n_env = 3,
                      .env = sample_env};
  memcpy(h.exe_hash, sample_hash, sizeof sample_hash);
  return h;
}

/* n rounds on two capabilities: threads created, run and stopped, messages, a few
 * flushes (small blocks), recorded stdin and an IO result. Returns the plain log. */
static Tee write_sample(const char *path, int n, size_t chunk_bytes, int level) {
  char err[512];
  LzReplayHeader h = sample_header();
  Tee t = {0};
  t.w = lz_replay_writer_open(path, &h, level, err, sizeof err);
  if (!t.w) fail_msg("%s", err);
  LzEvOptions o = {.chunk_bytes = chunk_bytes,
                   .sink = tee_sink,
                   .sink_ctx = &t,
                   .types = lz_replay_event_types,
                   .ntypes = LZ_REPLAY_N_EVENT_TYPES,
                   .terse_types = true}; /* as recordings (replaylog/ghc-events reads it) */
  assert_int_equal(lz_eventlog_open(NULL, 2, 6, sample_argv, &o), 0);
  for (size_t i = 0; i < sizeof stdin_bytes; i++)
    stdin_bytes[i] = (uint8_t)(i * 7 + i / 251);
  for (int k = 0; k < n; k++) {
    LzEvBuf *eb = lz_ev_cap_buf((unsigned)(k % 2));
    uint32_t tid = (uint32_t)k + 1;
    lz_ev_create_thread(eb, tid);
    lz_ev_thread_runnable(eb, tid);
    lz_ev_run_thread(eb, tid);
    if (k % 7 == 0) {
      char msg[64];
      int len = snprintf(msg, sizeof msg, "round %d", k);
      lz_ev_user_msg(eb, msg, (size_t)len);
    }
    if (k == n / 2)
      assert_int_equal(lz_replay_post_input(eb, 0, stdin_bytes, sizeof stdin_bytes), 0);
    if (k % 100 == 3) {
      uint64_t clock = 1000u * (uint64_t)k;
      assert_int_equal(lz_replay_post_io_result(eb, 7, &clock, sizeof clock), 0);
    }
    lz_ev_stop_thread(eb, tid, LZ_EV_STOP_FINISHED, 0);
    if (k % 500 == 499) lz_ev_flush(eb);
  }
  assert_int_equal(lz_replay_post_input(lz_ev_cap_buf(0), 0, NULL, 0), 0); /* EOF */
  assert_int_equal(lz_eventlog_close(), 0);
  LzReplayWriteStats st;
  lz_replay_writer_free(t.w, &st);
  assert_int_equal(st.log_bytes, t.n);
  t.w = NULL;
  return t;
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct Events {
  LzReplayEvent *ev;
  uint8_t **payload;
  size_t n;
  int end; /* LZ_REPLAY_END or LZ_REPLAY_ERROR */
  bool complete;
  char err[512];
} Events;

static void events_free(Events *e) {
  for (size_t i = 0; i < e->n; i++)
    free(e->payload[i]);
  free(e->ev);
  free(e->payload);
}

/* Open and read every event; the open's failure counts as an error. */
static Events read_all(const char *path, const uint8_t *hash) {
  Events e = {0};
  LzReplayReader *r = lz_replay_open(path, hash, e.err, sizeof e.err);
  if (!r) {
    e.end = LZ_REPLAY_ERROR;
    return e;
  }
  size_t cap = 0;
  LzReplayEvent ev;
  int k;
  while ((k = lz_replay_next_event(r, &ev)) == LZ_REPLAY_EVENT) {
    if (e.n == cap) {
      cap = cap ? 2 * cap : 1024;
      e.ev = realloc(e.ev, cap * sizeof *e.ev);
      e.payload = realloc(e.payload, cap * sizeof *e.payload);
    }
    e.payload[e.n] = malloc(ev.len + 1);
    memcpy(e.payload[e.n], ev.payload, ev.len);
    e.ev[e.n] = ev;
    e.ev[e.n].payload = e.payload[e.n];
    e.n++;
  }
  e.end = k;
  e.complete = lz_replay_complete(r);
  if (k == LZ_REPLAY_ERROR) snprintf(e.err, sizeof e.err, "%s", lz_replay_error(r));
  assert_int_equal(lz_replay_next_event(r, &ev), k); /* sticky */
  lz_replay_close(r);
  return e;
}

static bool same_event(const LzReplayEvent *a, const DecEvent *d) {
  return a->type == d->type && a->time == d->ts &&
         a->cap == (d->cap < 0 ? LZ_EV_CAP_GLOBAL : (uint16_t)d->cap) && a->len == d->len &&
         memcmp(a->payload, d->payload, d->len) == 0;
}

/* The events read are a prefix of (all == true: exactly) the decoder's. */
static void assert_prefix(const Events *e, const DecLog *log, bool all) {
  assert_true(e->n <= log->nev);
  if (all) assert_int_equal(e->n, log->nev);
  for (size_t i = 0; i < e->n; i++) {
    if (!same_event(&e->ev[i], &log->ev[i]))
      fail_msg("event %zu differs (type %u vs %u)", i, e->ev[i].type, log->ev[i].type);
    assert_int_equal(e->ev[i].index, i);
  }
}

/* ---- tests ------------------------------------------------------------------------------ */

static void test_sha256(void **state) {
  (void)state;
  uint8_t h[32];
  char hex[65];
  lz_sha256("abc", 3, h);
  lz_sha256_hex(h, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  lz_sha256("", 0, h);
  lz_sha256_hex(h, hex);
  assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  lz_sha256(m, strlen(m), h);
  lz_sha256_hex(h, hex);
  assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* a million 'a', fed in uneven pieces through the block buffer */
  LzSha256 s;
  lz_sha256_init(&s);
  char a[1000];
  memset(a, 'a', sizeof a);
  size_t left = 1000000;
  for (size_t piece = 1; left > 0; piece = piece % 977 + 13) {
    size_t k = piece < left ? piece : left;
    lz_sha256_update(&s, a, k);
    left -= k;
  }
  lz_sha256_final(&s, h);
  lz_sha256_hex(h, hex);
  assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  /* a file: as sha256sum */
  spit(tmp_path("abc.txt"), "abc", 3);
  char err[256];
  assert_int_equal(lz_sha256_file(tmp_path("abc.txt"), h, err, sizeof err), 0);
  lz_sha256_hex(h, hex);
  assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  assert_int_equal(lz_sha256_file(tmp_path("nope"), h, err, sizeof err), -1);
  assert_non_null(strstr(err, "No such file"));
}

static void test_round_trip(void **state) {
  (void)state;
  const char *path = tmp_path("rt.lzr");
  Tee t = write_sample(path, 3000, 4096, 0);
  DecLog *log = dec_log(t.raw, t.n);
  if (log->err[0]) fail_msg("decoder: %s", log->err);
  assert_true(log->nblocks > 20); /* many blocks, so many frames */

  char err[512];
  LzReplayReader *r = lz_replay_open(path, sample_hash, err, sizeof err);
  if (!r) fail_msg("%s", err);
  const LzReplayHeader *h = lz_replay_header(r);
  assert_memory_equal(h->exe_hash, sample_hash, 32);
  assert_int_equal(h->ncaps, 2);
  assert_string_equal(h->exe_path, "/work/prog");
  assert_int_equal(h->argc, 6);
  for (int i = 0; i < 6; i++)
    assert_string_equal(h->argv[i], sample_argv[i]);
  assert_int_equal(h->n_rts_opts, 3);
  assert_string_equal(h->rts_opts[2], "-lsgpu");
  assert_int_equal(h->n_env, 3);
  assert_string_equal(h->env[2], "EMPTY=");
  lz_replay_close(r);

  Events e = read_all(path, sample_hash);
  if (e.end != LZ_REPLAY_END) fail_msg("%s", e.err);
  assert_true(e.complete);
  assert_prefix(&e, log, true);
  /* the recorded stdin comes back whole, in order, split over events */
  uint8_t *in = malloc(sizeof stdin_bytes);
  size_t got = 0, inputs = 0, eofs = 0, results = 0;
  for (size_t i = 0; i < e.n; i++) {
    if (e.ev[i].type == LZ_EVT_RPL_INPUT) {
      assert_true(e.ev[i].len >= 4);
      assert_int_equal(dec_be(e.ev[i].payload, 4), 0);
      size_t k = e.ev[i].len - 4;
      eofs += k == 0;
      assert_true(got + k <= sizeof stdin_bytes);
      memcpy(in + got, e.ev[i].payload + 4, k);
      got += k;
      inputs++;
    }
    if (e.ev[i].type == LZ_EVT_RPL_IO_RESULT) {
      assert_int_equal(e.ev[i].len, 12);
      assert_int_equal(dec_be(e.ev[i].payload, 4), 7);
      results++;
    }
  }
  assert_int_equal(got, sizeof stdin_bytes);
  assert_memory_equal(in, stdin_bytes, sizeof stdin_bytes);
  assert_true(inputs >= 4); /* 10000 bytes do not fit one event of a 4 KiB block */
  assert_int_equal(eofs, 1);
  assert_int_equal(results, 30);
  free(in);

  /* the declared types and file offsets */
  r = lz_replay_open(path, NULL, err, sizeof err);
  LzReplayEvent ev;
  assert_int_equal(lz_replay_next_event(r, &ev), LZ_REPLAY_EVENT);
  assert_int_equal(lz_replay_type_size(r, LZ_EVT_RPL_INPUT), LZ_EV_VAR);
  assert_int_equal(lz_replay_type_size(r, LZ_EVT_RUN_THREAD), 4);
  assert_int_equal(lz_replay_type_size(r, 4711), -1);
  assert_string_equal(lz_replay_type_desc(r, LZ_EVT_RPL_INPUT), "Lz: input bytes");
  assert_null(lz_replay_type_desc(r, 4711));
  /* GHC's types are declared without descriptions; the reader gives the runtime's */
  assert_string_equal(lz_replay_type_desc(r, LZ_EVT_RUN_THREAD), "Run thread");
  assert_null(memmem(t.raw, t.n, "Run thread", 10));
  assert_non_null(memmem(t.raw, t.n, "Lz: input bytes", 15));
  uint64_t last_file = ev.file_offset, last_log = ev.log_offset;
  size_t frames_seen = 1;
  while (lz_replay_next_event(r, &ev) == LZ_REPLAY_EVENT) {
    assert_true(ev.log_offset > last_log);
    assert_true(ev.file_offset >= last_file);
    frames_seen += ev.file_offset != last_file;
    last_file = ev.file_offset;
    last_log = ev.log_offset;
  }
  assert_true(frames_seen > 20);
  lz_replay_close(r);

  /* the raw bytes */
  r = lz_replay_open(path, NULL, err, sizeof err);
  uint8_t *raw = malloc(t.n + 1);
  size_t n = 0;
  long k;
  while ((k = lz_replay_read(r, raw + n, n + 1000 <= t.n + 1 ? 1000 : t.n + 1 - n)) > 0)
    n += (size_t)k;
  assert_int_equal(k, 0);
  assert_int_equal(n, t.n);
  assert_memory_equal(raw, t.raw, t.n);
  assert_int_equal(lz_replay_next_event(r, &ev), LZ_REPLAY_ERROR); /* no mixing */
  lz_replay_close(r);
  free(raw);
  events_free(&e);
  dec_free(log);
  free(t.raw);
}

/* `zstd -dc` of the file is the plain event log (skipped without the zstd program). */
static void test_zstd_cli(void **state) {
  (void)state;
  if (system("zstd --version >/dev/null 2>&1") != 0) skip();
  const char *path = tmp_path("cli.lzr");
  Tee t = write_sample(path, 2000, 0, 0);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "zstd -dc -q '%s' > '%s'", path, tmp_path("cli.eventlog"));
  assert_int_equal(system(cmd), 0);
  size_t n;
  uint8_t *plain = slurp(tmp_path("cli.eventlog"), &n);
  assert_int_equal(n, t.n);
  assert_memory_equal(plain, t.raw, n);
  free(plain);
  free(t.raw);
}

static void expect_open_error(const char *path, const uint8_t *hash, const char *what) {
  char err[512];
  LzReplayReader *r = lz_replay_open(path, hash, err, sizeof err);
  assert_null(r);
  if (!strstr(err, what)) fail_msg("expected \"%s\" in: %s", what, err);
  assert_non_null(strstr(err, path));
}

static void test_header_errors(void **state) {
  (void)state;
  const char *path = tmp_path("h.lzr");
  Tee t = write_sample(path, 10, 0, 0);
  size_t n;
  uint8_t *file = slurp(path, &n);
  const char *bad = tmp_path("bad.lzr");

  expect_open_error(tmp_path("missing.lzr"), NULL, "cannot open: No such file or directory");
  spit(bad, "", 0);
  expect_open_error(bad, NULL, "the file is empty");
  spit(bad, t.raw, t.n);
  expect_open_error(bad, NULL, "plain event log");
  spit(bad, "\x28\xb5\x2f\xfd\0\0\0\0", 8);
  expect_open_error(bad, NULL, "zstd-compressed file without");
  spit(bad, "hello, world\n", 13);
  expect_open_error(bad, NULL, "not a replay log");
  spit(bad, file, 3);
  expect_open_error(bad, NULL, "truncated header: the file ends at byte 3");
  spit(bad, file, 40);
  expect_open_error(bad, NULL, "truncated header: it needs");

  /* another skippable frame */
  uint8_t *copy = malloc(n);
  memcpy(copy, file, n);
  copy[8] = 'X';
  spit(bad, copy, n);
  expect_open_error(bad, NULL, "skippable frame that is not Lz's header");

  /* a later version (with a correct check value) */
  memcpy(copy, file, n);
  uint32_t hlen = (uint32_t)copy[4] | (uint32_t)copy[5] << 8 | (uint32_t)copy[6] << 16;
  copy[8 + 8] = 4;
  uint8_t sum[32];
  lz_sha256(copy + 8 + 16, hlen - 16, sum);
  memcpy(copy + 8 + 12, sum, 4);
  spit(bad, copy, n);
  expect_open_error(bad, NULL,
                    "replay log format version 4 (bytes 16-17); this runtime reads version 3 "
                    "(recorded by a newer runtime, or damaged)");
  /* older versions: 1 stored the replay events' values plain, 2 the records uncompressed */
  copy[8 + 8] = 1;
  spit(bad, copy, n);
  expect_open_error(bad, NULL,
                    "replay log format version 1 (bytes 16-17); this runtime reads version 3 "
                    "(recorded by an older runtime: record it again)");
  copy[8 + 8] = 2;
  spit(bad, copy, n);
  expect_open_error(
      bad, NULL,
      "format version 2 (bytes 16-17); this runtime reads version 3 (recorded by an older");

  /* the compressed records damaged, the check value made to match: zstd's error */
  memcpy(copy, file, n);
  copy[8 + 52 + 4] ^= 0xff; /* the records' zstd frame header */
  lz_sha256(copy + 8 + 16, hlen - 16, sum);
  memcpy(copy + 8 + 12, sum, 4);
  spit(bad, copy, n);
  expect_open_error(bad, NULL, "corrupted header: its records");

  /* a byte of the arguments changed: the check value catches it */
  memcpy(copy, file, n);
  copy[8 + 70] ^= 1;
  spit(bad, copy, n);
  expect_open_error(bad, NULL, "corrupted header: its check value does not match");

  /* another binary */
  uint8_t other[32];
  char hex_log[65], hex_other[65];
  lz_sha256("another executable", 18, other);
  lz_sha256_hex(sample_hash, hex_log);
  lz_sha256_hex(other, hex_other);
  expect_open_error(path, other, "recorded by a different binary");
  expect_open_error(path, other, hex_log);
  expect_open_error(path, other, hex_other);
  expect_open_error(path, other, "/work/prog");

  /* no path, an empty path, no strings at all */
  for (int k = 0; k < 2; k++) {
    LzReplayHeader h0 = {.ncaps = 1, .exe_path = k ? "" : NULL};
    char err[512];
    LzReplayWriter *w = lz_replay_writer_open(bad, &h0, 0, err, sizeof err);
    assert_non_null(w);
    lz_replay_writer_free(w, NULL);
    LzReplayReader *r = lz_replay_open(bad, h0.exe_hash, err, sizeof err);
    assert_non_null(r);
    const LzReplayHeader *rh = lz_replay_header(r);
    if (k)
      assert_string_equal(rh->exe_path, "");
    else
      assert_null(rh->exe_path);
    assert_int_equal(rh->argc + rh->n_rts_opts + rh->n_env, 0);
    assert_int_equal(rh->ncaps, 1);
    lz_replay_close(r);
  }

  /* nothing after the header */
  memcpy(copy, file, n);
  spit(bad, copy, 8 + hlen);
  Events e = read_all(bad, NULL);
  assert_int_equal(e.end, LZ_REPLAY_ERROR);
  assert_non_null(strstr(e.err, "ends after the replay header, before the event log"));
  free(copy);
  free(file);
  free(t.raw);
}

/* ---- hand-made event logs: each stream error with its offset ------------------------------- */

typedef struct Log {
  uint8_t b[4096];
  size_t n;
} Log;

static void put(Log *l, int bytes, uint64_t v) {
  for (int i = bytes - 1; i >= 0; i--)
    l->b[l->n++] = (uint8_t)(v >> 8 * i);
}

/* Header declaring the block marker, type 1 (4 bytes) and type 19 (variable). */
static void log_header(Log *l) {
  put(l, 4, 0x68647262);
  put(l, 4, 0x68657462);
  const struct { uint16_t num, size; } types[] = {{18, 14}, {1, 4}, {19, 0xffff}};
  for (int i = 0; i < 3; i++) {
    put(l, 4, 0x65746200);
    put(l, 2, types[i].num);
    put(l, 2, types[i].size);
    put(l, 4, 1);
    put(l, 1, 'x');
    put(l, 4, 0);
    put(l, 4, 0x65746500);
  }
  put(l, 4, 0x68657465);
  put(l, 4, 0x68647265);
  put(l, 4, 0x64617462);
}

static void block(Log *l, uint32_t size, uint16_t cap) {
  put(l, 2, 18);
  put(l, 8, 100);
  put(l, 4, size);
  put(l, 8, 200);
  put(l, 2, cap);
}

static void run_thread(Log *l, uint32_t tid) {
  put(l, 2, 1);
  put(l, 8, 150);
  put(l, 4, tid);
}

/* Write the log as a replay log in frames of `piece` bytes; read it all. */
static Events read_handmade(const Log *l, size_t piece) {
  char err[512];
  LzReplayHeader h = sample_header();
  const char *path = tmp_path("hand.lzr");
  LzReplayWriter *w = lz_replay_writer_open(path, &h, 0, err, sizeof err);
  assert_non_null(w);
  for (size_t off = 0; off < l->n; off += piece) {
    size_t k = l->n - off < piece ? l->n - off : piece;
    assert_int_equal(lz_replay_sink(w, l->b + off, k), k);
  }
  assert_int_equal(lz_replay_sink(w, NULL, 0), 0);
  lz_replay_writer_free(w, NULL);
  return read_all(path, NULL);
}

static void expect_stream_error(const Log *l, const char *what, uint64_t log_byte) {
  for (size_t piece = 1; piece <= 4096; piece *= 64) { /* one frame, or events split */
    Events e = read_handmade(l, piece);
    assert_int_equal(e.end, LZ_REPLAY_ERROR);
    char at[64];
    snprintf(at, sizeof at, "(event log byte %llu, zstd frame at file byte ",
             (unsigned long long)log_byte);
    if (!strstr(e.err, what) || !strstr(e.err, at))
      fail_msg("expected \"%s\" and \"%s\" in: %s", what, at, e.err);
    events_free(&e);
  }
}

static void test_stream_errors(void **state) {
  (void)state;
  Log l = {0};
  log_header(&l);
  size_t h = l.n;

  /* a good log, for reference: two events in one block, then the end */
  block(&l, 24 + 2 * 14, 3);
  run_thread(&l, 1);
  run_thread(&l, 2);
  put(&l, 2, 0xffff);
  Events e = read_handmade(&l, 7);
  assert_int_equal(e.end, LZ_REPLAY_END);
  assert_true(e.complete);
  assert_int_equal(e.n, 2);
  assert_int_equal(e.ev[1].cap, 3);
  assert_int_equal(e.ev[1].log_offset, h + 24 + 14);
  assert_int_equal(dec_be(e.ev[1].payload, 4), 2);
  events_free(&e);

  /* the same without the end marker: complete == false, no error */
  l.n -= 2;
  e = read_handmade(&l, 4096);
  assert_int_equal(e.end, LZ_REPLAY_END);
  assert_false(e.complete);
  assert_int_equal(e.n, 2);
  events_free(&e);

  l.n = h;
  block(&l, 24 + 14, 0);
  put(&l, 2, 7);
  put(&l, 8, 150);
  expect_stream_error(&l, "event of undeclared type 7", h + 24);

  l.n = h;
  block(&l, 24 + 10, 0);
  run_thread(&l, 1);
  expect_stream_error(&l, "runs past the end of its block", h + 24);

  l.n = h;
  block(&l, 24 + 14, 0);
  run_thread(&l, 1);
  run_thread(&l, 2);
  expect_stream_error(&l, "outside any block", h + 24 + 14);

  l.n = h;
  block(&l, 24 + 14 + 24, 0);
  block(&l, 24, 0);
  expect_stream_error(&l, "a block marker inside a block", h + 24);

  l.n = h;
  block(&l, 4, 0);
  expect_stream_error(&l, "a block marker declares a block shorter than itself", h);

  l.n = h;
  block(&l, 24 + 14, 0);
  run_thread(&l, 1);
  put(&l, 2, 0xffff);
  put(&l, 1, 0);
  expect_stream_error(&l, "bytes after the end-of-data marker", h + 24 + 14 + 2);

  l.n = h;
  block(&l, 24 + 14, 0);
  put(&l, 2, 0xffff);
  expect_stream_error(&l, "the end-of-data marker is inside a block", h + 24);

  l.n = h;
  block(&l, 24 + 28, 0);
  run_thread(&l, 1);
  expect_stream_error(&l, "the event log ends inside a block that should go on", h + 24 + 14);

  l.n = h;
  block(&l, 24 + 14, 0);
  run_thread(&l, 1);
  l.n -= 3;
  expect_stream_error(&l, "truncated: the event log ends inside an event (11 of 14 bytes)", h + 24);

  l.n = h;
  block(&l, 24 + 14, 0);
  put(&l, 2, 19);
  put(&l, 8, 150);
  put(&l, 2, 500); /* a variable-size payload running past the block and the log */
  put(&l, 4, 0);
  expect_stream_error(&l, "ends inside an event (16 of 512 bytes)", h + 24);

  l.n = 0;
  put(&l, 4, 0x68647262);
  put(&l, 4, 0x12345678);
  expect_stream_error(&l, "not a GHC event log: expected \"hetb\"", 4);

  l.n = 0;
  log_header(&l);
  l.n -= 6; /* in the middle of "hdre" */
  expect_stream_error(&l, "ends inside its header (2 of 4 bytes)", h - 8);

  l.n = 0;
  put(&l, 4, 0x68647262);
  put(&l, 4, 0x68657462);
  for (int i = 0; i < 2; i++) {
    put(&l, 4, 0x65746200);
    put(&l, 2, 1);
    put(&l, 2, 4);
    put(&l, 4, 0);
    put(&l, 4, 0);
    put(&l, 4, 0x65746500);
  }
  expect_stream_error(&l, "event type 1 is declared twice", 28);
}

/* ---- damaged files: cut anywhere, bytes flipped ---------------------------------------- */

static void test_truncation(void **state) {
  (void)state;
  const char *path = tmp_path("cut.lzr");
  Tee t = write_sample(path, 3000, 8192, 0);
  DecLog *log = dec_log(t.raw, t.n);
  size_t n;
  uint8_t *file = slurp(path, &n);
  const char *cut = tmp_path("cut-part.lzr");
  size_t errors = 0, prefixes = 0;
  for (size_t off = 0; off < n; off += 97) {
    spit(cut, file, off);
    Events e = read_all(cut, sample_hash);
    assert_prefix(&e, log, false);
    if (e.end == LZ_REPLAY_ERROR) {
      if (!strstr(e.err, "byte") && !strstr(e.err, "empty"))
        fail_msg("cut at %zu: no offset in: %s", off, e.err);
      errors++;
    } else {
      assert_false(e.complete); /* a clean end only at a frame boundary, marked incomplete */
      prefixes++;
    }
    events_free(&e);
  }
  assert_true(errors > 50);
  print_message("      %zu cuts of a %zu-byte file: %zu errors, %zu clean incomplete ends\n",
                errors + prefixes, n, errors, prefixes);

  /* cut exactly between frames: no error, the events of the whole frames, incomplete */
  Events all = read_all(path, NULL);
  size_t boundaries = 0;
  for (size_t i = 1; i < all.n; i++) {
    uint64_t f = all.ev[i].file_offset;
    if (f == all.ev[i - 1].file_offset) continue;
    spit(cut, file, f);
    Events e = read_all(cut, sample_hash);
    if (e.end != LZ_REPLAY_END)
      fail_msg("cut at frame start %llu: %s", (unsigned long long)f, e.err);
    assert_false(e.complete);
    assert_int_equal(e.n, i);
    assert_prefix(&e, log, false);
    events_free(&e);
    boundaries++;
  }
  assert_true(boundaries > 10);
  events_free(&all);
  free(file);
  dec_free(log);
  free(t.raw);
}

static void test_byte_flips(void **state) {
  (void)state;
  const char *path = tmp_path("flip.lzr");
  Tee t = write_sample(path, 1500, 8192, 0);
  DecLog *log = dec_log(t.raw, t.n);
  size_t n;
  uint8_t *file = slurp(path, &n);
  const char *bad = tmp_path("flip-bad.lzr");
  unsigned seed = 12345;
  size_t errors = 0, intact = 0;
  for (int i = 0; i < 400; i++) {
    seed = seed * 1103515245u + 12345u;
    size_t off = (seed >> 4) % n;
    seed = seed * 1103515245u + 12345u;
    uint8_t mask = (uint8_t)(1u << ((seed >> 8) % 8));
    file[off] ^= mask;
    spit(bad, file, n);
    file[off] ^= mask;
    Events e = read_all(bad, sample_hash);
    assert_prefix(&e, log, false); /* never a wrong event */
    if (e.end == LZ_REPLAY_ERROR) {
      if (!strstr(e.err, "byte") && !strstr(e.err, "header") && !strstr(e.err, "magic"))
        fail_msg("flip at %zu: no location in: %s", off, e.err);
      errors++;
    } else {
      assert_true(e.complete); /* undetected only where zstd ignores a bit: all events intact */
      assert_int_equal(e.n, log->nev);
      intact++;
    }
    events_free(&e);
  }
  assert_true(errors >= 380);
  print_message("      400 flipped bits in a %zu-byte file: %zu errors, %zu harmless\n", n, errors,
                intact);
  free(file);
  dec_free(log);
  free(t.raw);
}

/* ---- other modes ------------------------------------------------------------------------- */

static int write_mode(const char *path) {
  Tee t = write_sample(path, 2000, 0, 0);
  free(t.raw);
  return 0;
}

/* The writer-thread cost of compression: time of the sink calls per level (the rest of
 * write_sample is the same for every level), and the ratio. */
static int bench_mode(void) {
  const char *path = tmp_path("bench.lzr");
  for (int level = -1; level <= 9; level += level < 3 ? 2 : 3) {
    if (level == 0) continue;
    Tee t = write_sample(path, 400000, 0, level);
    struct stat st;
    stat(path, &st);
    double t1 = now_sec();
    Events e = read_all(path, NULL);
    double rt = now_sec() - t1;
    /* the same bytes as one zstd frame: what one frame per block costs in size */
    size_t bound = ZSTD_compressBound(t.n);
    void *one = malloc(bound);
    size_t one_n = ZSTD_compress(one, bound, t.raw, t.n, level);
    free(one);
    printf("level %2d: log %.1f MB, file %.2f MB (ratio %.2f; as one frame %.2f), sink %.0f "
           "MB/s, read %zu events in %.2f s\n",
           level, (double)t.n / 1e6, (double)st.st_size / 1e6, (double)t.n / (double)st.st_size,
           (double)t.n / (double)one_n, (double)t.n / 1e6 / t.sink_sec, e.n, rt);
    events_free(&e);
    free(t.raw);
  }
  return 0;
}

/* The replay events' encoding (Note [Replay log encoding]): what the recorder's encoder
 * writes, lz_rpl_decode gives back, for sequences that mix capabilities, zero, wrap-around
 * and far-apart values; and nearby ids of one capability encode small. */
static void test_codec(void **state) {
  (void)state;
  LzRplCodec enc, dec;
  memset(&enc, 0, sizeof enc);
  memset(&dec, 0, sizeof dec);
  uint64_t x = 88172645463325252ull, alloc = 0;
  for (int i = 0; i < 20000; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t cap = (x >> 5) % 5 == 4 ? 0x7fff : (x >> 5) % 4, id;
    switch ((x >> 9) % 4) {
    case 0: id = 0; break;                                          /* no id */
    case 1: id = cap << 48 | 1ull << 47 | (x & 0xffff0) | 1; break; /* nearby */
    case 2: id = x | 1; break;                                      /* anything */
    default: id = cap << 48 | ((1ull << 48) - 1 - (x & 0xff));      /* near the wrap */
    }
    uint16_t type = (uint16_t)(LZ_EVT_RPL_CLAIM + (x >> 12) % 2 * 3); /* CLAIM or WAKE */
    uint8_t p[LZ_RPL_SLICE_BYTES];
    lz_ev_put64(p, lz_rpl_encode_diff48(enc.id, id));
    lz_rpl_decode(&dec, type, p, LZ_RPL_CLAIM_BYTES);
    assert_int_equal(lz_ev_get64(p), id);
    lz_ev_put64(p, lz_rpl_encode_diff48(enc.spark, x));
    lz_rpl_decode(&dec, LZ_EVT_RPL_SPARK, p, LZ_RPL_SPARK_BYTES);
    assert_int_equal(lz_ev_get64(p), x);
    alloc += (x >> 20) % 4096 * 16;
    lz_ev_put64(p + 6, lz_rpl_encode_alloc(&enc, alloc));
    lz_rpl_decode(&dec, LZ_EVT_RPL_SLICE, p, LZ_RPL_SLICE_BYTES);
    assert_int_equal(lz_ev_get64(p + 6), alloc);
  }
  /* ids 32 bytes apart on one capability: the low 48 bits encode as 64, the top as is */
  memset(&enc, 0, sizeof enc);
  uint64_t base = 3ull << 48 | 1ull << 47 | 0x123450 | 1;
  (void)lz_rpl_encode_diff48(enc.id, base);
  assert_int_equal(lz_rpl_encode_diff48(enc.id, base + 32), 3ull << 48 | 64);
  assert_int_equal(lz_rpl_encode_diff48(enc.id, base), 3ull << 48 | 63); /* -32 */
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--write") == 0) return write_mode(argv[2]);
  const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(tmpdir, sizeof tmpdir, "%s/lz-replaylog-XXXXXX", base);
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  int status;
  if (argc == 2 && strcmp(argv[1], "--bench") == 0) {
    status = bench_mode();
  } else {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256),        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_zstd_cli),      cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_stream_errors), cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_byte_flips),    cmocka_unit_test(test_codec),
    };
    status = cmocka_run_group_tests(tests, NULL, NULL);
  }
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  return status;
}

/* gen_eventlog.c — writes synthetic event logs in GHC's format for lzprof's tests, and
 * prints what lzprof must find in them.
 *
 *   gen_eventlog OUT.eventlog [--events N] [--caps N] [--sites] [--seed S]
 *
 * A small simulated scheduler: each capability runs threads that create sparks (some
 * duds and overflows), stop for the usual reasons (yield, heap overflow then a GC,
 * blocked on a black hole and later woken, finished); idle capabilities make spark
 * threads that run their own sparks or steal, some of which fizzle. Leftover sparks are
 * GC'd at the end and SPARK_COUNTERS close each capability. Events go into per-capability
 * blocks (64 KiB) interleaved in the file, as the runtime writes them. With --sites, Lz's
 * spark-site events name a `par` site for every spark (Note [Spark sites] in
 * docs/notes/lzprof.md). On stdout: "expect ..." lines in the format of `lzprof sparks
 * --tsv` / `lzprof threads --tsv`, counted by the generator itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXC = 16, POOL = 64, BLOCK = 65536 };

static FILE *out;
static uint64_t rng = 88172645463325252ull;
static unsigned rnd(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng % n);
}

typedef struct {
  uint8_t buf[BLOCK];
  size_t n;
  uint64_t t, t_block;
} Cap;
static Cap caps[MAXC];
static int ncaps = 2, with_sites;
static uint64_t nevents;

static void flush(int c) {
  Cap *k = &caps[c];
  if (k->n <= 24) return;
  uint32_t size = (uint32_t)k->n;
  for (int i = 0; i < 4; i++)
    k->buf[10 + i] = (uint8_t)(size >> (24 - 8 * i));
  for (int i = 0; i < 8; i++)
    k->buf[14 + i] = (uint8_t)(k->t >> (56 - 8 * i));
  fwrite(k->buf, 1, k->n, out);
  k->n = 0;
}
static void put(Cap *k, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--)
    k->buf[k->n++] = (uint8_t)(v >> (8 * i));
}
/* starts an event of TYPE with LEN payload bytes on capability C at its clock */
static Cap *ev(int c, uint16_t type, size_t len) {
  Cap *k = &caps[c];
  if (k->n + 12 + len > BLOCK) flush(c);
  if (k->n == 0) { /* block marker: size and end time patched by flush */
    put(k, 18, 2);
    put(k, k->t, 8);
    put(k, 0, 4);
    put(k, 0, 8);
    put(k, (uint64_t)c, 2);
  }
  put(k, type, 2);
  put(k, k->t, 8);
  nevents++;
  return k;
}
static size_t be(uint8_t *p, size_t n, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; i--)
    p[n++] = (uint8_t)(v >> (8 * i));
  return n;
}
static void ev_tid(int c, uint16_t type, uint32_t tid) { put(ev(c, type, 4), tid, 4); }

static const struct {
  uint16_t num;
  int16_t size;
  const char *desc;
} types[] = {{0, 4, "Create thread"},
             {1, 4, "Run thread"},
             {2, 10, "Stop thread"},
             {3, 4, "Thread runnable"},
             {8, 6, "Wakeup thread"},
             {9, 0, "Starting GC"},
             {10, 0, "Finished GC"},
             {15, 4, "Create spark thread"},
             {18, 14, "Block marker"},
             {29, -1, "RTS name and version"},
             {34, 56, "Spark counters"},
             {35, 0, "Spark create"},
             {36, 0, "Spark dud"},
             {37, 0, "Spark overflow"},
             {38, 0, "Spark run"},
             {39, 2, "Spark steal"},
             {40, 0, "Spark fizzle"},
             {41, 0, "Spark GC"},
             {44, -1, "Thread label"},
             {45, 2, "Create capability"},
             {59, 0, "Empty event for bug #9003"},
             {1000, -1, "Lz: spark site"},
             {1001, 12, "Lz: spark"},
             {1500, 3, "Lz: something lzprof does not know"}};

static void header(void) {
  fputs("hdrbhetb", out);
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    uint8_t b[8] = {(uint8_t)(types[i].num >> 8), (uint8_t)types[i].num,
                    (uint8_t)(types[i].size >> 8), (uint8_t)types[i].size};
    uint32_t dl = (uint32_t)strlen(types[i].desc);
    fputs("etb", out);
    fputc(0, out);
    fwrite(b, 1, 4, out);
    for (int k = 3; k >= 0; k--)
      fputc((int)(dl >> (8 * k)) & 255, out);
    fputs(types[i].desc, out);
    fwrite("\0\0\0\0ete\0", 1, 8, out);
  }
  fputs("hetehdredatb", out);
}

/* ---- the simulation ---------------------------------------------------------------- */
typedef struct {
  uint64_t id;
  uint32_t site;
} Spark;
static Spark pool[MAXC][POOL];
static int pool_h[MAXC], pool_n[MAXC]; /* FIFO: take from the head (oldest) */
static uint64_t seq[MAXC];
static uint64_t cnt[MAXC][7]; /* crt dud ovf run steal fiz gc (per-spark events) */
static uint64_t sites[4][7];
static uint64_t stops[21], runs;
static uint32_t next_tid = 1;
static uint32_t runq[MAXC][4096];
static int runq_n[MAXC];
static uint32_t blocked[MAXC][64];
static int blocked_n[MAXC];

static void spark_info(int c, uint64_t id, uint32_t site, int kind) {
  cnt[c][kind]++;
  if (!with_sites) return;
  sites[site][kind]++;
  Cap *k = ev(c, 1001, 12);
  put(k, id, 8);
  /* as the runtime: events after the creation name site 0, "its creation's"; every
   * other one names it, so both forms are read (the choice is a function of the id,
   * not a draw, so the logs are the same as before apart from this field) */
  put(k, kind <= 2 || (id & 1) ? site : 0, 4);
}
static void spark_ev(int c, uint16_t type, int kind, uint64_t id, uint32_t site) {
  ev(c, type, 0);
  spark_info(c, id, site, kind);
}
static void tick(int c, unsigned max_ns) { caps[c].t += 100 + rnd(max_ns); }
static void new_thread(int c) {
  uint32_t tid = next_tid++;
  ev_tid(c, 0, tid);
  if (runq_n[c] < 4096) runq[c][runq_n[c]++] = tid;
}
static void stop(int c, uint32_t tid, uint16_t status, uint32_t info) {
  Cap *k = ev(c, 2, 10);
  put(k, tid, 4);
  put(k, status, 2);
  put(k, info, 4);
  stops[status]++;
}

/* one scheduling step of capability C */
static void step(int c) {
  tick(c, 3000);
  if (runq_n[c] == 0 && blocked_n[c] && rnd(2)) { /* a blackhole was updated */
    uint32_t tid = blocked[c][--blocked_n[c]];
    Cap *k = ev(c, 8, 6);
    put(k, tid, 4);
    put(k, (uint64_t)c, 2);
    runq[c][runq_n[c]++] = tid;
    return;
  }
  if (runq_n[c] == 0) { /* look for a spark: own pool first, then steal */
    int from = -1;
    int first = rnd(3) ? c : (int)rnd((unsigned)ncaps); /* sometimes steal first */
    for (int i = 0; i < ncaps && from < 0; i++)
      if (pool_n[(first + i) % ncaps]) from = (first + i) % ncaps;
    if (from < 0) return; /* idle */
    uint32_t tid = next_tid++;
    ev_tid(c, 0, tid);
    ev_tid(c, 15, tid);
    ev_tid(c, 1, tid);
    runs++;
    int nrun = 1 + (int)rnd(4);
    while (nrun-- > 0 && pool_n[from]) {
      Spark s = pool[from][pool_h[from]];
      pool_h[from] = (pool_h[from] + 1) % POOL;
      pool_n[from]--;
      tick(c, 200);
      if (rnd(5) == 0) {
        spark_ev(c, 40, 5, s.id, s.site); /* fizzled: found evaluated */
        continue;
      }
      if (from == c)
        spark_ev(c, 38, 3, s.id, s.site);
      else {
        put(ev(c, 39, 2), (uint64_t)from, 2);
        spark_info(c, s.id, s.site, 4);
      }
      tick(c, rnd(3) ? 4000 : 60000); /* mostly small sparks */
    }
    stop(c, tid, 5, 0);
    return;
  }
  uint32_t tid = runq[c][--runq_n[c]];
  ev_tid(c, 1, tid);
  runs++;
  for (int i = (int)rnd(3); i > 0; i--) { /* par */
    tick(c, 1000);
    uint64_t id = (uint64_t)c << 48 | ++seq[c];
    uint32_t site = 1 + rnd(3);
    if (rnd(30) == 0)
      spark_ev(c, 36, 1, id, site);
    else if (pool_n[c] == POOL)
      spark_ev(c, 37, 2, id, site);
    else {
      pool[c][(pool_h[c] + pool_n[c]++) % POOL] = (Spark){id, site};
      spark_ev(c, 35, 0, id, site);
    }
  }
  tick(c, 20000);
  unsigned r = rnd(20);
  if (r < 8) {
    stop(c, tid, 3, 0);
    ev_tid(c, 3, tid);
    runq[c][runq_n[c]++] = tid;
  } else if (r < 11) {
    stop(c, tid, 1, 0);
    ev(c, 9, 0);
    tick(c, 30000);
    ev(c, 10, 0);
    runq[c][runq_n[c]++] = tid;
  } else if (r < 14 && blocked_n[c] < 64) {
    stop(c, tid, 8, next_tid > 1 ? 1 + rnd(next_tid - 1) : 0);
    blocked[c][blocked_n[c]++] = tid;
  } else {
    stop(c, tid, 5, 0);
    new_thread(c);
  }
}

int main(int argc, char **argv) {
  uint64_t target = 20000;
  if (argc < 2) {
    fprintf(stderr, "usage: gen_eventlog OUT [--events N] [--caps N] [--sites] [--seed S]\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "--events") && i + 1 < argc)
      target = strtoull(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--caps") && i + 1 < argc)
      ncaps = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
      rng += strtoull(argv[++i], NULL, 10) * 0x9e3779b97f4a7c15ull;
    else if (!strcmp(argv[i], "--sites"))
      with_sites = 1;
    else {
      fprintf(stderr, "gen_eventlog: bad argument %s\n", argv[i]);
      return 2;
    }
  }
  if (ncaps < 1 || ncaps > MAXC) return 2;
  out = fopen(argv[1], "wb");
  if (!out) {
    perror(argv[1]);
    return 1;
  }
  header();
  /* the global block (no capability): RTS identifier, capabilities, par sites */
  for (int c = 0; c < ncaps; c++)
    caps[c].t = 1000;
  {
    uint8_t g[512];
    size_t n = 0;
    const char *rts = "Lz-0.1 gen_eventlog";
    size_t rl = strlen(rts);
    uint8_t body[256];
    size_t bn = 0;
#define B(v, k) bn = be(body, bn, (uint64_t)(v), (k))
    B(29, 2), B(500, 8), B(rl + 4, 2), B(1, 4);
    memcpy(body + bn, rts, rl), bn += rl;
    for (int c = 0; c < ncaps; c++) {
      B(45, 2), B(600, 8), B(c, 2);
    }
    B(1500, 2), B(700, 8), B(0xabcdef, 3); /* an event type lzprof skips by its size */
    const char *labels[4] = {"", "Main.pfib examples/pfib.lz:12:17",
                             "Main.pmap examples/pmap.lz:4:9", "Main.go examples/go.lz:30:5"};
    for (int s = 1; with_sites && s <= 3; s++) {
      size_t ll = strlen(labels[s]);
      B(1000, 2), B(800, 8), B(ll + 4, 2), B(s, 4);
      memcpy(body + bn, labels[s], ll), bn += ll;
      nevents++;
    }
    nevents += 2 + (uint64_t)ncaps;
    /* the block marker: type, time, size, end time, cap 0xffff */
    uint32_t size = (uint32_t)(24 + bn);
    uint8_t mk[24] = {0, 18};
    for (int i = 0; i < 8; i++)
      mk[2 + i] = 0;
    for (int i = 0; i < 4; i++)
      mk[10 + i] = (uint8_t)(size >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
      mk[14 + i] = (uint8_t)(1000ull >> (56 - 8 * i));
    mk[22] = mk[23] = 0xff;
    memcpy(g, mk, 24), n = 24;
    memcpy(g + n, body, bn), n += bn;
    fwrite(g, 1, n, out);
  }
  for (int c = 0; c < ncaps; c++) {
    new_thread(c);
    Cap *k = ev(c, 44, 2 + 4 + 6); /* variable size: the length comes first */
    put(k, 10, 2);
    put(k, next_tid - 1, 4);
    memcpy(k->buf + k->n, "worker", 6), k->n += 6;
  }
  while (nevents < target)
    step((int)rnd((unsigned)ncaps));
  /* shutdown: sparks left are GC'd by their owner; threads still queued are left */
  for (int c = 0; c < ncaps; c++) {
    tick(c, 1000);
    while (pool_n[c]) {
      Spark s = pool[c][pool_h[c]];
      pool_h[c] = (pool_h[c] + 1) % POOL;
      pool_n[c]--;
      spark_ev(c, 41, 6, s.id, s.site);
    }
    Cap *k = ev(c, 34, 56);
    uint64_t v[7] = {cnt[c][0], cnt[c][1], cnt[c][2], cnt[c][3] + cnt[c][4],
                     cnt[c][6], cnt[c][5], 0};
    for (int i = 0; i < 7; i++)
      put(k, v[i], 8);
    flush(c);
  }
  fwrite("\xff\xff", 1, 2, out);
  if (fclose(out) != 0) {
    perror(argv[1]);
    return 1;
  }
  for (int c = 0; c < ncaps; c++)
    printf("expect events\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", c,
           (unsigned long long)cnt[c][0], (unsigned long long)cnt[c][1],
           (unsigned long long)cnt[c][2], (unsigned long long)cnt[c][3],
           (unsigned long long)cnt[c][4], (unsigned long long)cnt[c][5],
           (unsigned long long)cnt[c][6], (unsigned long long)(cnt[c][3] + cnt[c][4]));
  const char *names[21] = {[1] = "heap overflow",
                           [3] = "thread yielding",
                           [5] = "thread finished",
                           [8] = "blocked on black hole"};
  for (int s = 0; s < 21; s++)
    if (stops[s]) printf("expect stops\t%s\t%llu\n", names[s], (unsigned long long)stops[s]);
  printf("expect runs\t%llu\n", (unsigned long long)runs);
  for (int s = 1; with_sites && s <= 3; s++)
    printf("expect site\t%d\t%llu\t%llu\t%llu\t%llu\t%llu\t%llu\n", s,
           (unsigned long long)sites[s][0], (unsigned long long)(sites[s][3] + sites[s][4]),
           (unsigned long long)sites[s][5], (unsigned long long)sites[s][2],
           (unsigned long long)sites[s][1], (unsigned long long)sites[s][6]);
  fprintf(stderr, "gen_eventlog: %llu events\n", (unsigned long long)nevents);
  return 0;
}

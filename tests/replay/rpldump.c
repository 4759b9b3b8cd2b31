/* rpldump.c — print a replay log's events, one a line, in the order and numbering that
 * replay's messages use (#N), with the capability, time and payload decoded for the
 * scheduling and replay events. A debugging aid for tests/replay/fidelity.sh:
 *   cc -O1 -D_GNU_SOURCE -I rts tests/replay/rpldump.c rts/replaylog_read.c rts/replaylog_events.c
 * \ rts/replaylog_sha256.c -lzstd -o rpldump && ./rpldump prog.lzr [CAP]
 */
#include <stdio.h>
#include <stdlib.h>

#include "replaylog.h"

static unsigned g16(const uint8_t *p) { return (unsigned)(p[0] << 8 | p[1]); }
static unsigned long g32(const uint8_t *p) { return (unsigned long)g16(p) << 16 | g16(p + 2); }
static unsigned long long g64(const uint8_t *p) {
  return (unsigned long long)g32(p) << 32 | g32(p + 4);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: rpldump LOG.lzr [CAP]\n");
    return 2;
  }
  int only = argc > 2 ? atoi(argv[2]) : -1;
  char err[2048];
  LzReplayReader *r = lz_replay_open(argv[1], NULL, err, sizeof err);
  if (!r) {
    fprintf(stderr, "rpldump: %s\n", err);
    return 3;
  }
  LzReplayEvent e;
  int k;
  while ((k = lz_replay_next_event(r, &e)) == LZ_REPLAY_EVENT) {
    if (only >= 0 && e.cap != only) continue;
    if ((e.type >= 9 && e.type <= 12) || (e.type >= 20 && e.type <= 22) ||
        (e.type >= 49 && e.type <= 54))
      continue; /* GC and heap */
    const char *d = lz_replay_type_desc(r, e.type);
    const uint8_t *p = e.payload;
    printf("#%llu cap %u t=%llu %s", (unsigned long long)e.index, e.cap, (unsigned long long)e.time,
           d ? d : "?");
    if (e.type == 1910 && e.len >= 14)
      printf(" tid %lu why %u alloc %llu", g32(p), g16(p + 4), g64(p + 6));
    else if (e.type == 1911 && e.len >= 11)
      printf(" spark %llu:%llu kind %u pool %u", g64(p) >> 48, g64(p) & 0xffffffffffffull, p[8],
             g16(p + 9));
    else if ((e.type == 1912 || e.type == 1913 || e.type == 1915 || e.type == 1916 ||
              e.type == 1917) &&
             e.len >= 8)
      printf(" thunk %llx", g64(p));
    else if (e.type == 1914 && e.len >= 12) { /* code: offset from lz_ind_info */
      printf(" code %llx depth %lu", g64(p), g32(p + 8));
      if (e.len >= 18) printf(" updates %lu above %u", g32(p + 12), g16(p + 16));
    } else if ((e.type == 2 || e.type == 3) && e.len >= 6)
      printf(" tid %lu status %u", g32(p), g16(p + 4));
    else if ((e.type == 4 || e.type == 8) && e.len >= 6)
      printf(" tid %lu cap %u", g32(p), g16(p + 4));
    else if (e.len >= 4 && (e.type == 0 || e.type == 1 || e.type == 15))
      printf(" tid %lu", g32(p));
    printf("\n");
  }
  if (k == LZ_REPLAY_ERROR) fprintf(stderr, "rpldump: %s\n", lz_replay_error(r));
  lz_replay_close(r);
  return 0;
}

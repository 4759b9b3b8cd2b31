/* spark_sites.c — per-`par`-site spark events: Note [Spark sites] in docs/notes/lzprof.md.
 *
 * A site is the info table of the sparked thunk. The table below maps info pointers to
 * site numbers without a lock: a capability that meets a new info pointer claims an empty
 * slot with a CAS, takes the next number, posts the site event into its own buffer and
 * only then publishes the number (release); a capability that finds the key already
 * claimed waits the few nanoseconds until the number is published, so every spark event
 * naming a site is posted after (in time) the site's own event. Linear probing; the table
 * never shrinks (sites are static info tables: a program has few). When it is full, new
 * sites are reported as 0 (unknown).
 */
#include "spark_sites.h"

#include "rts_priv.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "eventlog.h"

/* Emitted by lzc -replay (codegen/cg_srcloc.c); weak: other programs have no table. The
 * stepper reads it through lz_srcloc too. */
extern const char *const lz_srcloc_table[] __attribute__((weak));
extern const uint32_t lz_srcloc_count __attribute__((weak));

const char *lz_srcloc(uint32_t idx) {
  if (!lz_srcloc_table || !&lz_srcloc_count || idx == 0 || idx >= lz_srcloc_count) return NULL;
  return lz_srcloc_table[idx];
}

#define SITE_BITS  12
#define SITE_SLOTS (1u << SITE_BITS)

typedef struct {
  _Atomic(const LzInfo *) key;
  _Atomic(uint32_t) site; /* 0 until published */
} SiteSlot;

static SiteSlot table[SITE_SLOTS];
static _Atomic(uint32_t) n_sites;

static void post_site(struct LzEvBuf *eb, uint32_t site, const LzInfo *info) {
  uint8_t payload[4 + 400];
  const char *loc = lz_srcloc(info->srcloc);
  int n = snprintf((char *)payload + 4, sizeof payload - 4, "%s%s%s",
                   info->name ? info->name : "(unnamed thunk)", loc ? " " : "", loc ? loc : "");
  size_t len = n < 0 ? 0 : (size_t)n < sizeof payload - 4 ? (size_t)n : sizeof payload - 5;
  lz_ev_put32(payload, site);
  (void)lz_event_custom(eb, LZ_EVT_LZ_SPARK_SITE, payload, 4 + len);
}

static uint32_t site_of(struct LzEvBuf *eb, const LzInfo *info) {
  uint32_t h =
      (uint32_t)(((uintptr_t)info >> 3) * UINT64_C(0x9E3779B97F4A7C15) >> (64 - SITE_BITS));
  for (uint32_t probe = 0; probe < SITE_SLOTS; probe++, h = (h + 1) & (SITE_SLOTS - 1)) {
    SiteSlot *s = &table[h];
    const LzInfo *k = atomic_load_explicit(&s->key, memory_order_acquire);
    if (!k) {
      if (atomic_compare_exchange_strong_explicit(&s->key, &k, info, memory_order_acq_rel,
                                                  memory_order_acquire)) {
        uint32_t site = atomic_fetch_add_explicit(&n_sites, 1, memory_order_relaxed) + 1;
        post_site(eb, site, info);
        atomic_store_explicit(&s->site, site, memory_order_release);
        return site;
      }
      /* lost the race: k is the winner's key */
    }
    if (k == info) {
      uint32_t site;
      while (!(site = atomic_load_explicit(&s->site, memory_order_acquire)))
        sched_yield(); /* the winner is posting the site event */
      return site;
    }
  }
  return 0; /* table full */
}

void lz_spark_site_post(struct LzEvBuf *eb, uint64_t id, uint32_t site) {
  lz_ev_put32(lz_ev_put64(lz_ev_begin(eb, LZ_EVT_LZ_SPARK, 12), id), site);
}

uint32_t lz_spark_site(struct LzEvBuf *eb, LzWord closure) {
  if (LZ_TAG(closure)) return 0;
  const LzInfo *info = (const LzInfo *)__atomic_load_n((LzWord *)closure, __ATOMIC_ACQUIRE);
  /* Not a BLACKHOLE's spare word: the claimer writes the thunk's info there only after
   * its CAS, so it may not hold an info pointer yet. */
  return info->type == LZ_THUNK ? site_of(eb, info) : 0;
}

/* spark_sites.h — per-`par`-site spark events (+RTS -lf, threaded ways).
 *
 * With one event per spark logged, every spark event is followed on the same capability
 * by an "Lz: spark" event (spark id u64, site u32) and every par site — the info table of
 * a sparked thunk — is announced once by an "Lz: spark site" event (site u32, then UTF-8
 * "name file:line:col") before its first spark names it. Sites are numbered 1, 2, ... per
 * run, lazily, through a lock-free table. Note [Spark sites] in docs/notes/lzprof.md.
 */
#ifndef LZ_SPARK_SITES_H
#define LZ_SPARK_SITES_H

#include <stdint.h>

#include "rts.h"

struct LzEvBuf;

/* The site of a closure about to be sparked: its info table's number (posting the site
 * event the first time) if it is a THUNK, else 0 (a dud: its thunk's info is gone). eb: the
 * capability's buffer, not NULL (the caller tests it: nothing is done without -lf). */
uint32_t lz_spark_site(struct LzEvBuf *eb, LzWord closure);
/* After a spark event: "Lz: spark" naming spark `id` and `site`. par# passes the site;
 * later events (run, steal, fizzle, GC) pass 0, "the site of its creation": by then the
 * thunk may be updated and its info gone. */
void lz_spark_site_post(struct LzEvBuf *eb, uint64_t id, uint32_t site);
/* "file:line:col" of an info table's srcloc index (lzc -replay programs), or NULL. */
const char *lz_srcloc(uint32_t idx);

#endif

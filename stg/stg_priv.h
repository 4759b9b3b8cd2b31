/* stg_priv.h — what the files of stg/ share without making it public: a small hash map
 * keyed by integers (uniques, ids, interned symbol pointers), used by the conversion
 * and the analyses, and the reporting helpers of the conversion. Not for use outside
 * stg/ (the public face is stg.h). */
#ifndef LZ_STG_PRIV_H
#define LZ_STG_PRIV_H

#include "stg.h"

/* An open-addressing map from non-zero 64-bit keys to pointers, in the arena. */
typedef struct StgMap {
  uint64_t *keys;
  void **vals;
  int cap, len;
} StgMap;

void *stg_map_get(const StgMap *m, uint64_t key);
void stg_map_put(StgMap *m, uint64_t key, void *val);
/* Set semantics: returns true if key was newly added. */
bool stg_set_add(StgMap *m, uint64_t key);

#endif

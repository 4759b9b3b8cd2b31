/* cg_split.h — compiling a program's standard library code apart from Main's, on a second
 * thread, with its object cached (cg_split.c, cg_cache.c). Note [Compile time] in
 * docs/notes/backend.md.
 *
 *     CgLibJob *j = cg_library_start(m, cg_cache_dir(), salt);   // NULL: nothing split off
 *     ... cg_optimize(m), cg_emit_object(m, main_o) ...          // m keeps Main's code
 *     const char *lib_o = cg_library_finish(j, &hit, &temp, &err);
 *     cg_link_objects((const char *[]){main_o, lib_o}, 2, output, rts, &err);
 */
#ifndef LZ_CG_SPLIT_H
#define LZ_CG_SPLIT_H

#include <stdbool.h>

#include "codegen.h"

typedef struct CgLibJob CgLibJob;

/* Moves the code of everything not in module Main (the reachable standard library, after
 * the whole-program Core optimiser) out of m into a module of its own, which another thread
 * optimises and emits, or finds in the cache directory `cache_dir` (NULL: no cache) under the
 * hash of its bitcode and `salt` (what else the object depends on: compiler, flags). m keeps
 * Main's code. Returns NULL, m unchanged, when there is nothing to split off. */
CgLibJob *cg_library_start(CgModule *m, const char *cache_dir, const char *salt);

/* Waits for the job; the object's path (*hit: it came from the cache; *temp: a temporary file
 * the caller removes), or NULL with *err set. */
const char *cg_library_finish(CgLibJob *j, bool *hit, bool *temp, char **err);

/* The cache directory: $LZC_CACHE_DIR, else $XDG_CACHE_HOME/lz, else $HOME/.cache/lz; NULL
 * when caching is off ($LZC_CACHE=0) or no directory can be named. */
const char *cg_cache_dir(void);

/* cg_link with several objects (at most 4). */
bool cg_link_objects(const char *const *objects, int n, const char *output, const char *runtime,
                     char **err);

#endif

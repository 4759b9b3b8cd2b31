/* cg_split.h — compiling a program's standard library code apart from Main's, on a second
 * thread, with its object cached (cg_split.c, cg_cache.c). Note [Compile time] in
 * docs/notes/backend.md.
 *
 *     CgLibJob *j = cg_library_start(m, &(CgLibOptions){cg_cache_dir(), base_dir, false, salt});
 *     ... cg_optimize(m), cg_emit_object(m, main_o) ...   // m keeps Main's code (j NULL: all)
 *     CgLibObject lib[2];
 *     int n = cg_library_finish(j, lib, &err);            // the base, the rest
 *     cg_link_objects((const char *[]){main_o, lib[0].path, lib[1].path}, 1 + n, ...);
 */
#ifndef LZ_CG_SPLIT_H
#define LZ_CG_SPLIT_H

#include <llvm-c/Core.h>
#include <stdbool.h>
#include <stdint.h>

#include "codegen.h"

typedef struct CgLibJob CgLibJob;

typedef struct CgLibOptions {
  const char *cache_dir; /* the object cache (NULL: none; cg_cache_dir) */
  const char *base_dir;  /* the precompiled base (NULL: none), looked in first */
  bool make_base;        /* build the base (if not there) and store it in base_dir */
  const char *salt;      /* what else an object depends on: the compiler, its flags */
} CgLibOptions;

typedef enum { CG_OBJ_BUILT, CG_OBJ_CACHED, CG_OBJ_PRECOMPILED } CgObjHow;

typedef struct CgLibObject {
  char *path;
  bool base; /* the base part (else the rest of the library) */
  CgObjHow how;
  bool temp; /* a temporary file (or link) the caller removes */
} CgLibObject;

/* Moves the code of everything not in module Main (the reachable standard library, after
 * the whole-program Core optimiser) out of m: the definitions the precompiled base in
 * lo->base_dir has (same identity, cg_identities) are renamed to its names and dropped (its
 * base.o is linked instead); the rest goes to a module of its own, which another thread
 * optimises and emits, or finds in lo->cache_dir by the hash of its bitcode and lo->salt.
 * With lo->make_base, all of the library is the base, built into <base_dir>/base.o with
 * <base_dir>/manifest. m keeps Main's code. Returns NULL, m unchanged, when there is nothing
 * to split off, or with *err set on failure. Note [Compile time] and Note [Precompiled base]
 * in docs/notes/backend.md. */
CgLibJob *cg_library_start(CgModule *m, const CgLibOptions *lo, char **err);

/* Waits for the job; the number of objects (0-2) put in objs[] (the caller frees their paths
 * and removes the temporary ones), or -1 with *err set. */
int cg_library_finish(CgLibJob *j, CgLibObject *objs, char **err);

/* A library definition's identity (cg_ident.c): the same in two programs exactly when its
 * code and the code of all it refers to, uniques aside, are the same; !ok: it has none. */
typedef struct CgIdent {
  uint64_t a, b;
  bool ok;
} CgIdent;

/* The identities of the definitions vals[0..n) (those of the library part: references to
 * others count by name). */
void cg_identities(LLVMValueRef *vals, int n, CgIdent *out);

/* "Lz.Base.lex.case_wild_18414_alts" -> "Lz.Base.lex.case_wild_alts": uniques (digits after
 * '_' or '$') and LLVM's ".N" suffixes dropped (malloc). */
char *cg_strip_uniques(const char *name, size_t n);

/* The cache directory: $LZC_CACHE_DIR, else $XDG_CACHE_HOME/lz, else $HOME/.cache/lz; NULL
 * when caching is off ($LZC_CACHE=0) or no directory can be named. */
const char *cg_cache_dir(void);

/* cg_link with several objects (at most 4). */
bool cg_link_objects(const char *const *objects, int n, const char *output, const char *runtime,
                     char **err);

#endif

/* cg_parts.h — what cg_split.c, cg_cache.c and cg_target.c share (private to codegen/). These
 * functions allocate with malloc, never from the arena (support.c), which is not thread-safe:
 * the library part is compiled on a thread of its own. Note [Compile time] in
 * docs/notes/backend.md. */
#ifndef LZ_CG_PARTS_H
#define LZ_CG_PARTS_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <stdbool.h>

/* The host target machine lzc uses for `opt_level` (cg_target.c); NULL and *err on failure. */
LLVMTargetMachineRef cg_new_target_machine(int opt_level, char **err);

/* LLVM's pipeline for `opt_level` on `mod` (cg_target.c; what cg_optimize runs). */
bool cg_run_passes(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                   char **err);

/* The cache key of an object ("/<hex>.o"): a hash of `salt` (compiler, flags), `opt_level`
 * and `data` (the module's bitcode, or a fingerprint standing for it). */
void cg_cache_key(const char *salt, int opt_level, const void *data, size_t n, char key[48]);

/* `<sys_dir>/<key>` (read-only, the precompiled base: *sys) or a private link to `<dir>/<key>`
 * (*temp: the caller removes it) when there; NULL otherwise. Either directory may be NULL. */
char *cg_cache_lookup(const char *sys_dir, const char *dir, const char *key, bool *sys, bool *temp);

/* The object of `mod` optimised at `opt_level`: `<dir>/<key>` if there (*hit), else optimised,
 * emitted and stored there; a temporary file (*temp) if it cannot be stored; NULL and *err on
 * failure (cg_cache.c). `dir` may be NULL (no cache: always a temporary file); `key` NULL:
 * cg_cache_key of the module's bitcode. */
char *cg_cache_build(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                     const char *dir, const char *key, const char *salt, bool *hit, bool *temp,
                     char **err);

#endif

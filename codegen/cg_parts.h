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

/* The object of `mod` optimised at `opt_level`: `<dir>/<key>.o` if there (*hit), else
 * optimised, emitted and stored there; a temporary file (*temp) if it cannot be stored; NULL
 * and *err on failure (cg_cache.c). `dir` may be NULL (no cache: always a temporary file). */
char *cg_cache_build(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                     const char *dir, const char *salt, bool *hit, bool *temp, char **err);

#endif

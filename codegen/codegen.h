/* codegen.h — the code generator: STG to LLVM IR (through the LLVM-C API of LLVM 14), LLVM's
 * optimisation pipelines, object emission with LLVM's TargetMachine, and linking through the
 * system C compiler against the runtime library. The public face of codegen/.
 *
 * The execution model and the ABI it targets are in Note [Back end and runtime ABI]
 * (docs/notes/backend.md) and rts/rts.h: every closure entry and case continuation is a C
 * function of one uniform type, control moves only by tail calls, the Lz stack is explicit.
 * The code generator compiles the whole program (the user's modules and the stdlib) into one
 * LLVM module; only `lz_main_closure` is exported, everything else is internal, so LLVM may
 * inline and drop freely. Code reachable from `main` only is generated.
 *
 * Typical use (the driver, driver/lzc.c):
 *     CgModule *m = cg_generate(stg, &opts);          // NULL: errors were reported
 *     cg_optimize(m, opts.opt_level);
 *     cg_emit_object(m, "prog.o", &err);
 *     cg_link("prog.o", "prog", cg_find_runtime(exe_dir), &err);
 *     cg_dispose(m);
 * Public names: cg_ / Cg.
 */
#ifndef LZ_CODEGEN_H
#define LZ_CODEGEN_H

#include <stdio.h>

#include "../stg/stg.h"

typedef struct CgModule CgModule;

typedef struct CgOptions {
  int opt_level;           /* 0, 1 or 2: LLVM pipeline and code generation level */
  const char *module_name; /* LLVM module identifier (e.g. the source file); may be NULL */
  bool all_bindings;       /* generate every top-level binding, not only those reachable
                              from main (tests) */
  bool threaded;           /* the threaded way: thunks are claimed with an atomic
                              compare-and-swap (Note [Eager blackholing], docs/notes/
                              threaded-rts.md) */
  bool replay;             /* the -replay way (implies threaded): thunks carry an id in
                              their spare word from allocation, and claims go through
                              the replay hooks (Note [Thunk ids], docs/notes/replay.md) */
  bool prof;               /* the -prof way: cost-centre stacks (SCCs push, thunks carry
                              their stack in an extra last word; Note [Profiling],
                              docs/notes/profiling.md; codegen/cg_prof.c) */
} CgOptions;

/* Translate a (linted) STG program. Returns NULL after reporting errors with lz_error (for
 * example a program without `main`). The module owns its own LLVM context. */
CgModule *cg_generate(const StgProgram *p, const CgOptions *o);

/* LLVMVerifyModule: true when the module is well formed; otherwise *msg (if non-NULL) gets
 * LLVM's report (arena-allocated). */
bool cg_verify(CgModule *m, char **msg);

/* Run LLVM's optimisation pipeline for level 0, 1 or 2 (new pass manager, "default<On>").
 * Returns false (and sets *err) if LLVM refused. */
bool cg_optimize(CgModule *m, int opt_level, char **err);

/* The module as LLVM assembly text (`lzc --dump-llvm`). */
char *cg_module_to_string(CgModule *m);
void cg_print_module(FILE *out, CgModule *m);

/* Emit a relocatable object for the host (PIC, so it links into a PIE). Returns false and
 * sets *err on failure. Uses the optimisation level given to cg_generate for the backend. */
bool cg_emit_object(CgModule *m, const char *path, char **err);

/* The LLVM module (an LLVMModuleRef), for tests that inspect it. */
void *cg_llvm_module(CgModule *m);

/* Free the LLVM context and module (the CgModule itself is in the arena). */
void cg_dispose(CgModule *m);

/* ---- linking ---------------------------------------------------------------------------- */

/* Where the runtime library is: $LZ_RTS_LIB if set; else, next to the compiler executable
 * (`exe_dir`, may be NULL): exe_dir/liblzrts.a (build tree), exe_dir/../lib/lz/liblzrts.a
 * (installed); else `fallback` (the build tree's path compiled into lzc), if it exists.
 * Returns NULL when none exists. */
const char *cg_find_runtime(const char *exe_dir, const char *fallback);
/* The same for one runtime way's archive: "liblzrts.a" (vanilla), "liblzrts_l.a"
 * (-eventlog), "liblzrts_thr.a" (-threaded); looked for next to `fallback` last. */
const char *cg_find_runtime_way(const char *exe_dir, const char *archive, const char *fallback);

/* Link `object` into the executable `output` with the system C compiler ($CC, else cc):
 *     cc object -o output runtime -lgc -lgmp -lm -lpthread
 * Returns false and sets *err (with the linker's exit status) on failure; the linker's own
 * messages go to stderr. */
bool cg_link(const char *object, const char *output, const char *runtime, char **err);

#endif

/* frontend.h — the public face of the Lz front end: from a .lz file to typed Core.
 *
 * Pipeline (see docs/notes/frontend-pipeline.md):
 *   lexer (re2c) -> layout -> parser -> AST -> renamer (modules, scopes, fixities)
 *   -> deriving -> desugarer (pattern-match compilation) -> kernel -> type checker
 *   (Hindley-Milner + classes, elaboration with dictionaries) -> Core.
 * Diagnostics are reported through support.h as they are found. Public names: fe_.
 */
#ifndef LZ_FRONTEND_H
#define LZ_FRONTEND_H

#include "../core-ir/core.h"

typedef struct FeOptions {
  const char **include_dirs; /* -i DIR, searched after the main file's directory */
  int n_include_dirs;
  const char *stdlib_dir; /* where Prelude.lz and friends live */
  bool prof_auto;         /* -fprof-auto: an SCC on every binding */
  bool prof_auto_top;     /* -fprof-auto-top: on top-level bindings only */
  bool dump_parse;        /* print each parsed user module (debugging) */
  bool dump_kernel;       /* print the kernel program (debugging) */
  bool lint;              /* run the Core linter after desugaring */
} FeOptions;

/* Compile the program whose Main module is in `main_path`. Returns Core, or NULL when
 * errors were reported (lz_error_count() > 0). Never aborts on bad input. */
CoreProgram *fe_compile(const char *main_path, const FeOptions *opts);

/* Compile from memory: the main module's text is given, other modules are found on
 * disk as usual (used by the fuzzer and unit tests). */
CoreProgram *fe_compile_text(const char *path, const char *text, size_t len, const FeOptions *opts);

#endif

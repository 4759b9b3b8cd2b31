/* frontend.c — the front end's entry points: runs the passes of passes.h in order and
 * stops after the first pass that reported errors, so later passes only ever see
 * well-formed input. See Note [Front-end pipeline] in docs/notes/frontend-pipeline.md. */
#include "frontend.h"

#include <stdio.h>

#include "passes.h"

static CoreProgram *run_pipeline(const char *path, const char *text, size_t len,
                                 const FeOptions *opts) {
  FeProgram prog = {0};
  core_reset(); /* built-in Core types of a previous compilation lived in its arena */
  if (!fe_rename_program(path, text, len, opts, &prog) || lz_error_count() > 0) return NULL;
  if (opts->dump_parse)
    for (int i = 0; i < prog.modules.len; i++)
      if (prog.modules.data[i] == prog.main) fe_print_module(stdout, prog.main);
  KProgram *k = fe_desugar_program(&prog, opts);
  if (!k || lz_error_count() > 0) return NULL;
  if (opts->dump_kernel) k_print_program(stdout, k);
  CoreProgram *core = fe_typecheck_program(k, opts);
  if (!core || lz_error_count() > 0) return NULL;
  return core;
}

CoreProgram *fe_compile(const char *main_path, const FeOptions *opts) {
  return run_pipeline(main_path, NULL, 0, opts);
}

CoreProgram *fe_compile_text(const char *path, const char *text, size_t len,
                             const FeOptions *opts) {
  return run_pipeline(path, text, len, opts);
}

/* fuzz_frontend.c — a libFuzzer target for the front end: any bytes must give either
 * Core that passes lint or diagnostics, never a crash, hang, sanitizer report or leak.
 *
 * The idea: one process compiles millions of inputs, and lz_reset (which frees the
 * whole arena, the symbol table, sources and the error count) plus core_reset (the
 * built-in type constructors and the unique counter of core-ir) make each compilation
 * start clean; the front end resets its own caches (fe_builtin_reset, fe_wired[]) at the
 * start of each compilation. Because the Core linter is the oracle for the passes
 * after parsing, Core that fails lint aborts the run like a crash does.
 *
 * Compiling a program means loading and type-checking the whole standard library
 * first, which costs far more than lexing and parsing the input. To keep the fuzzer
 * productive on the syntax passes, only inputs whose length is a multiple of 8 go
 * through the whole front end; all others only through lexer, layout and parser
 * (fe_parse_module).
 * The choice depends only on the input, so every
 * crash reproduces, and mutations that add or drop a byte move an input between the
 * two modes. Diagnostics and lint reports go to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "frontend.h"
#include "passes.h"

#ifndef LZ_STDLIB_DIR
#define LZ_STDLIB_DIR "stdlib"
#endif

static FILE *devnull;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!devnull) {
    devnull = fopen("/dev/null", "w");
    if (!devnull) abort();
  }
  lz_set_diag_stream(devnull);
  core_set_lint_stream(devnull);
  lz_reset();
  core_reset();

  if (size % 8 != 0) {
    LzSource *src = lz_source_add("fuzz.lz", (const char *)data, size);
    (void)fe_parse_module(src);
  } else {
    const char *stdlib = getenv("LZ_STDLIB");
    FeOptions opts = {0};
    opts.stdlib_dir = stdlib && *stdlib ? stdlib : LZ_STDLIB_DIR;
    opts.lint = true;
    CoreProgram *p = fe_compile_text("fuzz.lz", (const char *)data, size, &opts);
    if (p && lz_error_count() == 0) {
      if (core_lint_program(p, "front end (fuzz)") > 0) {
        /* report on stderr too, then crash so libFuzzer saves the input */
        core_set_lint_stream(NULL);
        core_lint_program(p, "front end (fuzz)");
        abort();
      }
      core_print_program(devnull, p); /* exercise the printer */
    }
  }

  lz_reset();
  core_reset();
  return 0;
}

/* start.c — starting and ending a program.
 *
 * lz_rts_main is what main() (rts/main.c) calls: it takes the program name, parses
 * +RTS options (errors and -? are printed GHC-style, exit 1), starts Boehm and the IO
 * layer, makes capability 0 with the main thread's stack (stop frame at the bottom),
 * and runs `main` by applying its closure to the world token with the generic apply,
 * which evaluates it first if it is a CAF. When the thread reaches its stop frame the
 * program exits 0; every exit (normal, exit#, errors) goes through lz_exit, which
 * flushes the handles and prints the -s summary.
 */
#include <stdlib.h>
#include <string.h>

#include "rts_priv.h"

const char *lz_prog_name;
int lz_prog_argc;
char **lz_prog_argv;
LzCap *lz_main_cap;

static bool flags_set;

LzCap *lz_rts_init(void) {
  if (!flags_set) {
    lz_flags_default(&lz_flags);
    flags_set = true;
  }
  lz_gc_init();
  lz_io_init();
  if (!lz_main_cap) {
    lz_main_cap = GC_MALLOC_UNCOLLECTABLE(sizeof(LzCap));
    struct LzCapPriv *priv = GC_MALLOC_UNCOLLECTABLE(sizeof(struct LzCapPriv));
    if (!lz_main_cap || !priv)
      lz_heap_exhausted();
    memset(lz_main_cap, 0, sizeof(LzCap));
    memset(priv, 0, sizeof *priv);
    lz_main_cap->rest = priv;
  }
  lz_cap_attach(lz_main_cap, lz_thread_new(lz_main_cap, LZ_STACK_INIT_WORDS));
  return lz_main_cap;
}

_Noreturn void lz_exit(int status) {
  lz_stats_mut_end();
  lz_io_flush_all();
  if (lz_flags.stats) {
    FILE *f = stderr;
    if (lz_flags.stats_file) {
      f = fopen(lz_flags.stats_file, "w");
      if (!f)
        f = stderr;
    }
    lz_stats_print(f, lz_main_cap ? lz_main_cap->alloc_bytes : 0);
    fflush(f);
    if (f != stderr)
      fclose(f);
  }
  exit(status);
}

int lz_rts_main(int argc, char **argv, LzWord *main_closure) {
  lz_stats_start();
  const char *slash = argc > 0 && argv[0] ? strrchr(argv[0], '/') : NULL;
  lz_prog_name = slash ? slash + 1 : argc > 0 && argv[0] ? argv[0] : "lz";
  char **args = malloc(((size_t)(argc > 0 ? argc : 1) + 1) * sizeof(char *));
  if (!args)
    return 251;
  char err[512];
  int r = lz_parse_rts_flags(argc, argv, &lz_flags, &lz_prog_argc, args, err, sizeof err);
  flags_set = true;
  if (r != 0) {
    if (r == 1)
      fprintf(stderr, "%s: %s\n", lz_prog_name, err);
    lz_print_usage(stderr);
    return 1;
  }
  lz_prog_argv = args;
  LzCap *cap = lz_rts_init();
  lz_stats_mut_start();
  lz_run(cap, lz_apply_1, (LzWord)main_closure, 0, 0, 0); /* main realWorld# */
  lz_exit(0);
}

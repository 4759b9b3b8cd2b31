/* lzc.c — the compiler driver: reads GHC-style flags, runs the front end on the main
 * module, lints the Core it produces, prints what the --dump flags ask for, and (once
 * the back end exists) hands Core on to code generation.
 *
 * The idea: lzc is a thin shell around the stages' public headers, and its exit status
 * tells apart whose fault a failure is: 0 success, 1 errors in the user's program
 * (diagnostics were printed), 2 a feature that is not implemented yet, 3 an internal
 * error (for example Core that fails lint). Flags follow GHC's spelling and wording
 * (DESIGN.md "Command line"), because users already know them. The compilation runs on
 * a thread with a large stack, so deeply nested (but valid) programs are limited by
 * memory rather than by the default 8 MB C stack.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../codegen/cg_split.h"
#include "../codegen/codegen.h"
#include "../frontend/frontend.h"
#include "../stg/stg.h"

#ifndef LZ_STDLIB_DIR
#define LZ_STDLIB_DIR "stdlib"
#endif
#define LZ_VERSION "0.1.0"

enum { EXIT_USER_ERROR = 1, EXIT_NOT_IMPLEMENTED = 2, EXIT_INTERNAL = 3 };

typedef struct Options {
  int opt_level;
  bool threaded, replay, prof, eventlog, debug_info;
  bool dump_core, dump_stg, dump_llvm, no_lint;
  bool lint_passes, opt_stats; /* --lint-passes, --opt-stats: Core optimiser (core-ir/opt.c) */
  const char *make_base;       /* --make-base DIR: build the precompiled base there */
  const char *base_dir;        /* the precompiled base (NULL: none) */
  const char *output;
  const char *input;
  FeOptions fe;
} Options;

static const char usage_hint[] = "Usage: For basic information, try the `--help' option.\n";

static void print_help(void) {
  printf("Usage: lzc [options] PROG.lz\n"
         "\n"
         "Compile the Lz program whose Main module is PROG.lz.\n"
         "\n"
         "Options:\n"
         "  -O0 | -O1 | -O2      optimisation level (-O means -O1)\n"
         "  -threaded            link with the threaded runtime (parallelism: +RTS -N)\n"
         "  -replay              record/replay runtime (threaded + event log + thunk ids)\n"
         "  -prof                profiling runtime (cost centres; +RTS -p)\n"
         "  -fprof-auto          a cost centre on every binding\n"
         "  -fprof-auto-top      a cost centre on every top-level binding\n"
         "  -eventlog            runtime with the event log (+RTS -l)\n"
         "  -g                   debug information\n"
         "  -i DIR, -iDIR        also search DIR for imported modules\n"
         "  -o FILE              name of the executable\n"
         "  --dump-parse         print the parsed main module\n"
         "  --dump-kernel        print the desugared kernel program\n"
         "  --dump-core          print the Core program\n"
         "  --dump-stg           print the STG program\n"
         "  --dump-llvm          print the LLVM IR\n"
         "  --no-lint            do not run the Core linter\n"
         "  --lint-passes        lint Core after every optimiser pass\n"
         "  --opt-stats          print what the Core optimiser did (stderr)\n"
         "  --make-base DIR      make DIR a precompiled base: the standard library code this\n"
         "                       program uses (the build makes lzc-base from driver/base.lz)\n"
         "  --print-libdir       print the standard library directory and exit\n"
         "  --version            print the version and exit\n"
         "  --help               print this help and exit\n"
         "\n"
         "The standard library is found in $LZ_STDLIB, else ../share/lz/stdlib next to\n"
         "the lzc executable, else %s.\n"
         "The compiled standard library code is cached in $LZC_CACHE_DIR, else\n"
         "$XDG_CACHE_HOME/lz, else ~/.cache/lz (LZC_CACHE=0: no cache; LZC_CACHE_MB: size,\n"
         "default 256). A precompiled base of it is looked for in $LZC_BASE_DIR, else\n"
         "lzc-base next to lzc, else ../share/lz/base (LZC_BASE=0: none).\n"
         "Exit status: 0 success, 1 errors in the program, 2 not implemented yet,\n"
         "3 internal compiler error.\n",
         LZ_STDLIB_DIR);
}

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* $LZ_STDLIB, else ../share/lz/stdlib next to the executable (an installed lzc), else
 * the source tree's stdlib/ compiled in. */
static const char *find_stdlib(void) {
  const char *env = getenv("LZ_STDLIB");
  if (env && *env) return env;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0;
      char *cand = lz_fmt("%s/../share/lz/stdlib", exe);
      if (is_dir(cand)) return cand;
    }
  }
  return LZ_STDLIB_DIR;
}

static int bad_usage(const char *msg, const char *arg) {
  fprintf(stderr, "lzc: %s%s\n%s", msg, arg ? arg : "", usage_hint);
  return EXIT_USER_ERROR;
}

/* Returns -1 to go on compiling, or an exit status. */
static int parse_args(int argc, char **argv, Options *o) {
  const char **dirs = LZ_NEW_ARRAY(const char *, argc);
  o->opt_level = 0;
  o->fe.include_dirs = dirs;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-?") == 0) {
      print_help();
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("The Lz Compiler, version %s\n", LZ_VERSION);
      return 0;
    } else if (strcmp(a, "--numeric-version") == 0) {
      printf("%s\n", LZ_VERSION);
      return 0;
    } else if (strcmp(a, "--print-libdir") == 0) {
      printf("%s\n", find_stdlib());
      return 0;
    } else if (strcmp(a, "-O0") == 0) {
      o->opt_level = 0;
    } else if (strcmp(a, "-O") == 0 || strcmp(a, "-O1") == 0) {
      o->opt_level = 1;
    } else if (strcmp(a, "-O2") == 0) {
      o->opt_level = 2;
    } else if (strcmp(a, "-threaded") == 0) {
      o->threaded = true;
    } else if (strcmp(a, "-replay") == 0) {
      o->replay = true;
    } else if (strcmp(a, "-prof") == 0) {
      o->prof = true;
    } else if (strcmp(a, "-fprof-auto") == 0) {
      o->fe.prof_auto = true;
    } else if (strcmp(a, "-fprof-auto-top") == 0) {
      o->fe.prof_auto_top = true;
    } else if (strcmp(a, "-eventlog") == 0) {
      o->eventlog = true;
    } else if (strcmp(a, "-g") == 0) {
      o->debug_info = true;
    } else if (strcmp(a, "--dump-parse") == 0) {
      o->fe.dump_parse = true;
    } else if (strcmp(a, "--dump-kernel") == 0) {
      o->fe.dump_kernel = true;
    } else if (strcmp(a, "--dump-core") == 0) {
      o->dump_core = true;
    } else if (strcmp(a, "--dump-stg") == 0) {
      o->dump_stg = true;
    } else if (strcmp(a, "--dump-llvm") == 0) {
      o->dump_llvm = true;
    } else if (strcmp(a, "--no-lint") == 0) {
      o->no_lint = true;
    } else if (strcmp(a, "--lint-passes") == 0) {
      o->lint_passes = true;
    } else if (strcmp(a, "--opt-stats") == 0) {
      o->opt_stats = true;
    } else if (strcmp(a, "--make-base") == 0) {
      if (i + 1 >= argc) return bad_usage("missing argument for flag: ", a);
      o->make_base = argv[++i];
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "-i") == 0) {
      if (i + 1 >= argc) return bad_usage("missing argument for flag: ", a);
      if (a[1] == 'o')
        o->output = argv[++i];
      else
        dirs[o->fe.n_include_dirs++] = argv[++i];
    } else if (strncmp(a, "-i", 2) == 0) {
      dirs[o->fe.n_include_dirs++] = a + 2;
    } else if (a[0] == '-' && a[1] != 0) {
      return bad_usage("unrecognised flag: ", a);
    } else if (o->input) {
      fprintf(stderr, "lzc: only one input file is supported (got %s and %s)\n%s", o->input, a,
              usage_hint);
      return EXIT_USER_ERROR;
    } else {
      o->input = a;
    }
  }
  if (!o->input) return bad_usage("no input files", NULL);
  if (!o->prof)
    o->fe.prof_auto = o->fe.prof_auto_top = false; /* as GHC: no cost centres without -prof */
  return -1;
}

/* ---- code generation (codegen/): Core -> STG -> LLVM -> object -> executable ---------------- */

#ifndef LZ_RTS_LIB
#define LZ_RTS_LIB "liblzrts.a"
#endif

/* The directory of the running lzc (to find the runtime next to it), or NULL. */
static const char *exe_dir(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return NULL;
  exe[n] = 0;
  char *slash = strrchr(exe, '/');
  if (!slash) return NULL;
  *slash = 0;
  return lz_strdup(exe);
}

/* prog.lz -> prog (GHC's default executable name) */
static const char *default_output(const char *input) {
  size_t n = strlen(input);
  if (n > 3 && strcmp(input + n - 3, ".lz") == 0) return lz_strndup(input, n - 3);
  return "a.out";
}

/* $LZC_TIMINGS set: elapsed seconds of each back-end phase on stderr (for tuning; wall
 * time, since the library part is compiled on a second thread: "library" is the wait for it
 * after Main's code is done). */
static void phase_time(const char *phase) {
  static double last;
  static int on = -1;
  if (on < 0) on = getenv("LZC_TIMINGS") != NULL;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  double now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
  if (on && phase) fprintf(stderr, "lzc: %-16s %6.3f s\n", phase, now - last);
  last = now;
}

/* What the library part's object depends on besides its text (cg_cache.c): the compiler
 * binary (any rebuild of lzc invalidates the cache: pipelines and code generation levels live
 * in it), the flags that pick pipelines, and the experiment variables of cg_target.c. */
static const char *cache_salt(const Options *o) {
  struct stat st = {0};
  stat("/proc/self/exe", &st);
  const char *passes = getenv("LZC_LLVM_PASSES"), *level = getenv("LZC_CODEGEN_LEVEL");
  return lz_fmt("lzc %s exe %lld %lld.%09ld threaded %d eventlog %d passes %s level %s", LZ_VERSION,
                (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
                o->threaded, o->eventlog, passes ? passes : "-", level ? level : "-");
}

/* The precompiled base (Note [Precompiled base] in docs/notes/backend.md): --make-base's
 * directory, else $LZC_BASE_DIR, else lzc-base next to the executable (the build tree), else
 * ../share/lz/base; none with LZC_BASE=0 or when there is none. */
static void find_base(Options *o) {
  const char *off = getenv("LZC_BASE");
  const char *dir = o->make_base;
  if (!dir && off && strcmp(off, "0") == 0) return;
  if (!dir) dir = getenv("LZC_BASE_DIR");
  const char *exe = exe_dir();
  if (!(dir && *dir) && exe) {
    dir = lz_fmt("%s/lzc-base", exe);
    if (!is_dir(dir)) dir = lz_fmt("%s/../share/lz/base", exe);
  }
  if (o->make_base && !is_dir(dir) && mkdir(dir, 0777) != 0) return;
  if (dir && is_dir(dir)) o->base_dir = dir;
}

/* Whether the library is split off (Note [Compile time]): not with -prof or -replay, whose
 * modules have program-wide tables (cost centres, source locations), nor with LZC_SPLIT=0. */
static bool splits(const Options *o) {
  const char *split = getenv("LZC_SPLIT");
  return !(o->prof || o->replay || (split && strcmp(split, "0") == 0));
}

/* STG, then LLVM IR (printed for --dump-llvm, which stops there like the other dumps), then
 * an object in a temporary file, linked with the runtime into the executable. */
static int generate_code(Options *o, CoreProgram *core) {
  StgProgram *stg = stg_from_core(core);
  if (!stg) return lz_error_count() > 0 ? EXIT_USER_ERROR : EXIT_INTERNAL;
  if (!o->no_lint && stg_lint_program(stg, "core to stg") > 0) {
    fprintf(stderr, "lzc: internal error: STG lint failed (please report)\n");
    return EXIT_INTERNAL;
  }
  phase_time("stg");
  /* -prof: the profiling runtime (liblzrts_p.a, or liblzrts_thr_p.a with -threaded or
   * -eventlog, liblzrts_rpl_p.a with -replay); Note [Profiling] in docs/notes/profiling.md */
  bool threaded = o->threaded || o->replay || (o->prof && o->eventlog);
  CgOptions co = {.opt_level = o->opt_level,
                  .module_name = o->input,
                  .threaded = threaded,
                  .replay = o->replay,
                  .prof = o->prof};
  CgModule *m = cg_generate(stg, &co);
  phase_time("codegen");
  if (!m) {
    fprintf(stderr, "lzc: internal error: code generation failed (please report)\n");
    return EXIT_INTERNAL;
  }
  char *msg = NULL;
  if (!o->no_lint && !cg_verify(m, &msg)) {
    fprintf(stderr,
            "lzc: internal error: the generated LLVM module is invalid (please report):\n%s", msg);
    cg_dispose(m);
    return EXIT_INTERNAL;
  }
  phase_time("verify");
  if (o->dump_llvm) {
    if (!cg_optimize(m, o->opt_level, &msg)) {
      fprintf(stderr, "lzc: internal error: LLVM optimisation failed: %s\n", msg);
      cg_dispose(m);
      return EXIT_INTERNAL;
    }
    cg_print_module(stdout, m);
    fflush(stdout);
    cg_dispose(m);
    return 0;
  }
  const char *output = o->output ? o->output : default_output(o->input);
  const char *archive = o->replay     ? (o->prof ? "liblzrts_rpl_p.a" : "liblzrts_rpl.a")
                        : o->prof     ? (threaded ? "liblzrts_thr_p.a" : "liblzrts_p.a")
                        : threaded    ? "liblzrts_thr.a"
                        : o->eventlog ? "liblzrts_l.a"
                                      : "liblzrts.a";
  const char *rts = cg_find_runtime_way(exe_dir(), archive, LZ_RTS_LIB);
  if (!rts) {
    fprintf(stderr, "lzc: error: cannot find the runtime library %s (set LZ_RTS_LIB)\n", archive);
    cg_dispose(m);
    return EXIT_USER_ERROR;
  }
  const char *tmpdir = getenv("TMPDIR");
  char *obj = lz_fmt("%s/lzc-XXXXXX.o", tmpdir && *tmpdir ? tmpdir : "/tmp");
  int fd = mkstemps(obj, 2);
  if (fd < 0) {
    fprintf(stderr, "lzc: error: cannot create a temporary object file %s\n", obj);
    cg_dispose(m);
    return EXIT_USER_ERROR;
  }
  close(fd);
  /* Note [Compile time] (docs/notes/backend.md): the reachable library's code is split off
   * and compiled on a second thread, or taken from the precompiled base or the cache, while
   * this one does Main's. */
  CgLibOptions lo = {cg_cache_dir(), o->base_dir, o->make_base != NULL, cache_salt(o)};
  char *lerr = NULL;
  CgLibJob *lib = splits(o) ? cg_library_start(m, &lo, &lerr) : NULL;
  if (lerr) {
    fprintf(stderr, "lzc: error: %s\n", lerr);
    cg_dispose(m);
    unlink(obj);
    return EXIT_USER_ERROR;
  }
  if (lib) phase_time("split");
  bool ok = cg_optimize(m, o->opt_level, &msg);
  phase_time("optimise");
  if (!ok) fprintf(stderr, "lzc: internal error: LLVM optimisation failed: %s\n", msg);
  if (ok && !(ok = cg_emit_object(m, obj, &msg)))
    fprintf(stderr, "lzc: internal error: LLVM could not emit the object: %s\n", msg);
  cg_dispose(m);
  phase_time("emit");
  const char *objs[3] = {obj, NULL, NULL};
  CgLibObject lobj[2];
  int nlib = 0;
  if (lib) { /* (waited for even after a failure: it may be writing to the cache) */
    char *lmsg = NULL;
    nlib = cg_library_finish(lib, lobj, &lmsg);
    bool all_found = nlib > 0;
    for (int i = 0; i < nlib; i++) {
      objs[1 + i] = lobj[i].path;
      all_found = all_found && lobj[i].how != CG_OBJ_BUILT;
    }
    phase_time(all_found ? "library (cached)" : "library");
    if (nlib < 0 && ok) {
      fprintf(stderr, "lzc: internal error: the library part could not be compiled: %s\n", lmsg);
      ok = false;
    }
    static const char *const how[] = {"built", "cached", "precompiled"};
    if (getenv("LZC_TIMINGS"))
      for (int i = 0; i < nlib; i++)
        fprintf(stderr, "lzc: %s object %s (%s)\n", lobj[i].base ? "base" : "library", lobj[i].path,
                how[lobj[i].how]);
  }
  bool linked = ok && cg_link_objects(objs, 1 + (nlib > 0 ? nlib : 0), output, rts, &msg);
  if (ok && !linked) fprintf(stderr, "lzc: error: %s\n", msg);
  unlink(obj);
  for (int i = 0; i < nlib; i++)
    if (lobj[i].temp) unlink(lobj[i].path);
  phase_time("link");
  if (ok && o->make_base) chmod(lz_fmt("%s/base.o", o->base_dir), 0644); /* (shared) */
  if (ok && !linked) return EXIT_USER_ERROR;
  return ok ? 0 : EXIT_INTERNAL;
}

static int compile(Options *o) {
  if (access(o->input, R_OK) != 0) {
    fprintf(stderr, "lzc: error: can't find file: %s\n", o->input);
    return EXIT_USER_ERROR;
  }
  o->fe.stdlib_dir = find_stdlib();
  o->fe.lint = !o->no_lint;
  phase_time(NULL);
  CoreProgram *core = fe_compile(o->input, &o->fe);
  phase_time("front end");
  if (splits(o) && !o->dump_core && !o->dump_stg && !o->dump_llvm) find_base(o);
  if (o->make_base && !o->base_dir) {
    fprintf(stderr,
            "lzc: error: --make-base %s: cannot make the directory, or -prof, -replay, "
            "a dump or LZC_SPLIT=0\n",
            o->make_base);
    return EXIT_USER_ERROR;
  }
  if (lz_error_count() > 0) return EXIT_USER_ERROR;
  if (!core) {
    fprintf(stderr, "lzc: internal error: the front end failed without reporting an error "
                    "(please report)\n");
    return EXIT_INTERNAL;
  }
  if (!o->no_lint && core_lint_program(core, "front end") > 0) {
    fprintf(stderr, "lzc: internal error: Core lint failed (please report)\n");
    return EXIT_INTERNAL;
  }
  /* ---- Core optimiser (core-ir/opt.c): -O1/-O2 ---------------------------------------- */
  if (o->opt_level > 0) {
    core = core_optimise(core, o->opt_level, o->lint_passes && !o->no_lint);
    phase_time("core optimiser");
    if (o->opt_stats) core_opt_print_stats(stderr);
    if (!o->no_lint && core_lint_program(core, "optimiser") > 0) {
      fprintf(stderr, "lzc: internal error: Core lint failed after optimisation (please report)\n");
      return EXIT_INTERNAL;
    }
  }
  if (o->dump_core) {
    core_print_program(stdout, core);
    fflush(stdout);
  }
  /* ---- STG (stg/): Core -> STG, linted like Core ---------------------------------------- */
  if (o->dump_stg) {
    StgProgram *stg = stg_from_core(core);
    if (!stg) return lz_error_count() > 0 ? EXIT_USER_ERROR : EXIT_INTERNAL;
    if (!o->no_lint && stg_lint_program(stg, "core to stg") > 0) {
      fprintf(stderr, "lzc: internal error: STG lint failed (please report)\n");
      return EXIT_INTERNAL;
    }
    stg_print_program(stdout, stg);
    fflush(stdout);
  }
  /* ---- end of STG ---------------------------------------------------------------------- */
  if (o->dump_llvm || (!o->dump_core && !o->dump_stg && !o->fe.dump_parse && !o->fe.dump_kernel))
    return generate_code(o, core);
  return 0;
}

/* ---- running on a big stack ---------------------------------------------------------------- */

enum { COMPILER_STACK = 512 << 20 }; /* reserved address space; touched only when used */

typedef struct Job {
  Options *o;
  int status;
} Job;

static void *compile_thread(void *arg) {
  Job *j = arg;
  j->status = compile(j->o);
  return NULL;
}

static int compile_on_big_stack(Options *o) {
  Job j = {o, EXIT_INTERNAL};
  pthread_attr_t attr;
  pthread_t t;
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, COMPILER_STACK) == 0 &&
      pthread_create(&t, &attr, compile_thread, &j) == 0) {
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
    return j.status;
  }
  return compile(o); /* could not make the thread: use the normal stack */
}

int main(int argc, char **argv) {
  Options o = {0};
  int status = parse_args(argc, argv, &o);
  if (status < 0) status = compile_on_big_stack(&o);
  fflush(stdout);
  return status;
}

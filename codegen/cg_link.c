/* cg_link.c — linking an object with the runtime library through the system C compiler, and
 * finding that library.
 *
 * The idea: the C compiler driver knows the platform's start files, default libraries and
 * PIE defaults, so lzc hands it the object and the runtime archive with the libraries the
 * runtime needs (Boehm GC, GMP, libm, pthreads), as one would by hand. It is run directly
 * (posix_spawnp, no shell), so file names need no quoting. The runtime is found next to the
 * compiler: in the build tree (liblzrts.a beside lzc) or an installed tree (lib/lz/).
 */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cg_priv.h"
#include "cg_split.h"

extern char **environ;

static bool is_file(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

const char *cg_find_runtime(const char *exe_dir, const char *fallback) {
  return cg_find_runtime_way(exe_dir, "liblzrts.a", fallback);
}

/* `archive` is the way's file name (liblzrts.a, liblzrts_thr.a, ...); `fallback` the vanilla
 * archive's path in the build tree, whose directory holds the other ways too. */
const char *cg_find_runtime_way(const char *exe_dir, const char *archive, const char *fallback) {
  const char *env = getenv("LZ_RTS_LIB");
  if (env && *env && strcmp(archive, "liblzrts.a") == 0) return env;
  const char *dir = getenv("LZ_RTS_DIR"); /* e.g. a sanitizer build of the runtime */
  if (dir && *dir) {
    char *p = lz_fmt("%s/%s", dir, archive);
    if (is_file(p)) return p;
  }
  if (exe_dir) {
    const char *cands[] = {"%s/%s", "%s/rts/%s", "%s/../lib/lz/%s", "%s/../lib/%s"};
    for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
      char *p = lz_fmt(cands[i], exe_dir, archive);
      if (is_file(p)) return p;
    }
  }
  if (fallback) {
    const char *slash = strrchr(fallback, '/');
    char *p =
        slash ? lz_fmt("%.*s/%s", (int)(slash - fallback), fallback, archive) : (char *)archive;
    if (is_file(p)) return p;
  }
  return NULL;
}

/* The build's Boehm GC, liblzgc.a (64 KB blocks and 8-byte granules: Notes [Boehm's block
 * size] and [Granules] in docs/notes/threaded-rts.md), lies beside the runtime archive. The
 * system's libgc has 16-byte granules, which the runtime does not match: no fallback. */
static const char *gc_archive(const char *runtime) {
  const char *slash = strrchr(runtime, '/');
  const char *p = slash ? lz_fmt("%.*s/liblzgc.a", (int)(slash - runtime), runtime) : "liblzgc.a";
  return is_file(p) ? p : NULL;
}

bool cg_link(const char *object, const char *output, const char *runtime, char **err) {
  return cg_link_objects(&object, 1, output, runtime, err);
}

/* The objects (the program's, then the cached library part's: cg_split.h) come first, so
 * the runtime archive resolves what they use. */
bool cg_link_objects(const char *const *objects, int n, const char *output, const char *runtime,
                     char **err) {
  const char *cc = getenv("CC");
  if (!cc || !*cc) cc = "cc";
  /* LZC_LINK_FLAGS: extra words for the link (e.g. -fsanitize=thread with CC=clang) */
  if (n < 1 || n > 4) {
    if (err) *err = lz_fmt("cannot link %d objects", n);
    return false;
  }
  const char *gc = gc_archive(runtime);
  if (!gc) {
    if (err)
      *err = lz_fmt("the runtime %s has no liblzgc.a (the Boehm GC built with it) beside it; "
                    "copy both from one build",
                    runtime);
    return false;
  }
  const char *argv[20] = {cc};
  int argc = 1;
  for (int i = 0; i < n; i++)
    argv[argc++] = objects[i];
  const char *rest[] = {"-o", output, runtime, gc, "-lgmp", "-lzstd", "-lm", "-lpthread"};
  for (size_t i = 0; i < sizeof rest / sizeof *rest; i++)
    argv[argc++] = rest[i];
  char *extra = getenv("LZC_LINK_FLAGS") ? lz_strdup(getenv("LZC_LINK_FLAGS")) : NULL;
  for (char *w = extra ? strtok(extra, " ") : NULL; w && argc < 19; w = strtok(NULL, " "))
    argv[argc++] = w;
  argv[argc] = NULL;
  pid_t pid;
  int rc = posix_spawnp(&pid, cc, NULL, NULL, (char *const *)argv, environ);
  if (rc != 0) {
    if (err) *err = lz_fmt("cannot run the C compiler ‘%s’ to link: %s", cc, strerror(rc));
    return false;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno == EINTR) continue;
    if (err) *err = lz_fmt("waiting for the linker failed: %s", strerror(errno));
    return false;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return true;
  if (err)
    *err = WIFEXITED(status)
               ? lz_fmt("linking with ‘%s’ failed (exit status %d)", cc, WEXITSTATUS(status))
               : lz_fmt("linking with ‘%s’ was killed", cc);
  return false;
}

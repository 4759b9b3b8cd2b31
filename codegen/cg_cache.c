/* cg_cache.c — the object cache of library parts (cg_split.c).
 *
 * The idea: an object is a pure function of the module, the optimisation level, the target
 * and the compiler (LLVM's and ours), so it can be reused whenever those are equal. The key is
 * a 128-bit hash of the salt (the caller's description of compiler and flags) and the
 * module's bitcode (which holds everything, names included, and is four times faster to make
 * than the text); the object is `<dir>/<key>.o`, written to a temporary name and renamed into
 * place, so concurrent compilations never see half an object. Entries are 20 KB to 0.5 MB,
 * one per distinct reachable library and compiler build; a hit refreshes the entry's time,
 * and after a store the directory is cut to 3/4 of its limit ($LZC_CACHE_MB, default 256,
 * fractions allowed), oldest first. Runs on the library thread: malloc only, no arena.
 * Note [Compile time] in docs/notes/backend.md.
 */
#include <dirent.h>
#include <errno.h>
#include <llvm-c/BitWriter.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "cg_parts.h"
#include "cg_priv.h"
#include "cg_split.h"

/* Two independent FNV-1a lanes (different bases and primes) and a final mix: 128 bits, plenty
 * for accidental collisions (the cache is not a security boundary). */
typedef struct Hash {
  uint64_t a, b;
} Hash;

static void hash_bytes(Hash *h, const char *s, size_t n) {
  uint64_t a = h->a, b = h->b;
  for (size_t i = 0; i < n; i++) {
    a = (a ^ (unsigned char)s[i]) * 0x100000001b3ULL;
    b = (b ^ (unsigned char)s[i]) * 0x9e3779b97f4a7c15ULL;
    b ^= b >> 29;
  }
  h->a = a;
  h->b = b;
}

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

const char *cg_cache_dir(void) {
  const char *off = getenv("LZC_CACHE");
  if (off && (strcmp(off, "0") == 0 || strcmp(off, "off") == 0 || strcmp(off, "no") == 0))
    return NULL;
  const char *d = getenv("LZC_CACHE_DIR");
  if (d && *d) return d;
  d = getenv("XDG_CACHE_HOME");
  if (d && *d == '/') return lz_fmt("%s/lz", d);
  d = getenv("HOME");
  if (d && *d == '/') return lz_fmt("%s/.cache/lz", d);
  return NULL;
}

static char *fmt(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s", a, b);
  return s;
}

/* mkdir -p */
static bool make_dirs(const char *dir) {
  char *p = fmt(dir, "");
  if (!p) return false;
  for (char *s = p + 1;; s++) {
    if (*s != '/' && *s != 0) continue;
    char c = *s;
    *s = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) break;
    *s = c;
    if (!c) break;
  }
  free(p);
  struct stat st;
  return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *temp_object(const char *dir) {
  char *path = fmt(dir, "/lzc-XXXXXX.o");
  int fd = path ? mkstemps(path, 2) : -1;
  if (fd < 0) {
    free(path);
    return NULL;
  }
  close(fd);
  return path;
}

typedef struct Entry {
  char *path;
  time_t mtime;
  off_t size;
} Entry;

static int older_first(const void *a, const void *b) {
  time_t x = ((const Entry *)a)->mtime, y = ((const Entry *)b)->mtime;
  return x < y ? -1 : x > y;
}

/* Keeps the directory's objects under the limit, never removing `keep` (the entry just
 * stored; best effort: errors are ignored). */
static void prune(const char *dir, const char *keep) {
  const char *mb = getenv("LZC_CACHE_MB");
  double limit = (mb && atof(mb) > 0 ? atof(mb) : 256) * 1048576, total = 0;
  DIR *d = opendir(dir);
  if (!d) return;
  Entry *es = NULL;
  size_t n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len != 34 || strcmp(e->d_name + 32, ".o") != 0) continue; /* only <key>.o */
    char *p = fmt(dir, "/");
    char *path = p ? fmt(p, e->d_name) : NULL;
    free(p);
    struct stat st;
    if (!path || stat(path, &st) != 0) {
      free(path);
      continue;
    }
    if (n == cap) {
      Entry *ne = realloc(es, (cap = cap ? 2 * cap : 64) * sizeof *es);
      if (!ne) break;
      es = ne;
    }
    es[n++] = (Entry){path, st.st_mtime, st.st_size};
    total += (double)st.st_size;
  }
  closedir(d);
  if (total > limit) {
    qsort(es, n, sizeof *es, older_first);
    for (size_t i = 0; i < n && total > limit / 4 * 3; i++)
      if (strcmp(es[i].path, keep) != 0 && unlink(es[i].path) == 0) total -= (double)es[i].size;
  }
  for (size_t i = 0; i < n; i++)
    free(es[i].path);
  free(es);
}

static bool build(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                  char *path, char **err) {
  if (!cg_run_passes(ctx, mod, tm, opt_level, err)) return false;
  char *e = NULL;
  if (LLVMTargetMachineEmitToFile(tm, mod, path, LLVMObjectFile, &e)) {
    *err = strdup(e ? e : "object emission failed");
    LLVMDisposeMessage(e);
    return false;
  }
  return true;
}

/* A private name for the entry at `path` (a hard link next to it, which the caller removes
 * after linking), so that another lzc's pruning cannot remove the object between here and
 * the link (ctest runs compilers in parallel); NULL if the entry is gone or links fail. */
static char *private_link(const char *dir, const char *path) {
  char *tmp = temp_object(dir);
  if (!tmp) return NULL;
  unlink(tmp);
  if (link(path, tmp) != 0) {
    free(tmp);
    return NULL;
  }
  return tmp;
}

void cg_cache_key(const char *salt, int opt_level, const void *data, size_t n, char key[48]) {
  Hash h = {0xcbf29ce484222325ULL, 0x6a09e667f3bcc908ULL};
  char head[64];
  snprintf(head, sizeof head, "\n-O%d\n%zu\n", opt_level, n);
  hash_bytes(&h, salt, strlen(salt));
  hash_bytes(&h, head, strlen(head));
  hash_bytes(&h, data, n);
  snprintf(key, 48, "/%016llx%016llx.o", (unsigned long long)mix(h.a),
           (unsigned long long)mix(h.b ^ h.a));
}

static bool is_object(const char *path) {
  struct stat st;
  return path && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

char *cg_cache_lookup(const char *sys_dir, const char *dir, const char *key, bool *sys,
                      bool *temp) {
  *sys = *temp = false;
  if (sys_dir) { /* the precompiled base: never pruned, so no private link is needed */
    char *path = fmt(sys_dir, key);
    if (is_object(path)) return *sys = true, path;
    free(path);
  }
  if (!dir) return NULL;
  char *path = fmt(dir, key);
  char *mine = NULL;
  if (is_object(path)) {
    utimes(path, NULL); /* recently used: pruned last */
    mine = private_link(dir, path);
  }
  free(path);
  if (mine) *temp = true;
  return mine;
}

char *cg_cache_build(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm, int opt_level,
                     const char *dir, const char *key, const char *salt, bool *hit, bool *temp,
                     char **err) {
  *hit = *temp = false;
  char *path = NULL;
  char name[48];
  if (dir && !key) {
    LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(mod);
    cg_cache_key(salt, opt_level, LLVMGetBufferStart(bc), LLVMGetBufferSize(bc), name);
    LLVMDisposeMemoryBuffer(bc);
    key = name;
  }
  if (dir) {
    bool sys;
    char *mine = cg_cache_lookup(NULL, dir, key, &sys, temp);
    if (mine) return *hit = true, mine;
    path = fmt(dir, key);
  }
  /* a miss: build into a temporary file next to the entry, then rename it into place */
  char *tmp = path && make_dirs(dir) ? temp_object(dir) : NULL;
  if (!tmp) {
    const char *t = getenv("TMPDIR");
    tmp = temp_object(t && *t ? t : "/tmp");
    if (!tmp) {
      *err = fmt("cannot create a temporary object file: ", strerror(errno));
      free(path);
      return NULL;
    }
    free(path);
    path = NULL;
  }
  if (!build(ctx, mod, tm, opt_level, tmp, err)) {
    unlink(tmp);
    free(tmp);
    free(path);
    return NULL;
  }
  if (path && rename(tmp, path) == 0) {
    free(tmp);
    prune(dir, path);
    char *mine = private_link(dir, path);
    if (mine) {
      *temp = true;
      free(path);
      return mine;
    }
    return path; /* (no link: use the entry itself) */
  }
  free(path);
  *temp = true; /* (could not store it: use it once) */
  return tmp;
}

/* support.c — arena, symbol table, vectors, sources and GHC-style diagnostics.
 * See support.h. The arena is a list of large chunks; lz_reset frees them all. */
#include "support.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ------------------------------------------------------------------ */

typedef struct Chunk {
  struct Chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
} Chunk;

static Chunk *arena;

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fprintf(stderr, "lzc: out of memory\n");
    exit(2);
  }
  return p;
}

void *lz_alloc(size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!arena || arena->size - arena->used < size) {
    size_t chunk = size > (1u << 20) ? size : (1u << 20);
    Chunk *c = xmalloc(sizeof(Chunk) + chunk);
    c->next = arena;
    c->used = 0;
    c->size = chunk;
    arena = c;
  }
  void *p = arena->data + arena->used;
  arena->used += size;
  memset(p, 0, size);
  return p;
}

char *lz_strndup(const char *s, size_t n) {
  char *p = lz_alloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *lz_strdup(const char *s) { return lz_strndup(s, strlen(s)); }

char *lz_vfmt(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  char *p = lz_alloc((size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *lz_fmt(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = lz_vfmt(fmt, ap);
  va_end(ap);
  return p;
}

void lz_vec_grow(void **data, int *cap, size_t elem_size) {
  int ncap = *cap ? *cap * 2 : 4;
  void *nd = lz_alloc(elem_size * (size_t)ncap);
  if (*cap) memcpy(nd, *data, elem_size * (size_t)*cap);
  *data = nd;
  *cap = ncap;
}

/* ---- symbols: open addressing, strings in the arena ----------------------------- */

static const char **symtab;
static size_t symcap, symcount;

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
  return h;
}

Sym lz_symn(const char *s, size_t n) {
  if (symcount * 2 >= symcap) {
    size_t ncap = symcap ? symcap * 2 : 4096;
    const char **nt = calloc(ncap, sizeof *nt);
    if (!nt) xmalloc((size_t)-1);
    for (size_t i = 0; i < symcap; i++) {
      if (!symtab[i]) continue;
      size_t j = hash_bytes(symtab[i], strlen(symtab[i])) & (ncap - 1);
      while (nt[j])
        j = (j + 1) & (ncap - 1);
      nt[j] = symtab[i];
    }
    free(symtab);
    symtab = nt;
    symcap = ncap;
  }
  size_t j = hash_bytes(s, n) & (symcap - 1);
  while (symtab[j]) {
    if (strncmp(symtab[j], s, n) == 0 && symtab[j][n] == 0) return symtab[j];
    j = (j + 1) & (symcap - 1);
  }
  symtab[j] = lz_strndup(s, n);
  symcount++;
  return symtab[j];
}

Sym lz_sym(const char *s) { return lz_symn(s, strlen(s)); }

/* ---- sources -------------------------------------------------------------------- */

static LZ_VEC(LzSource *) sources;

LzSource *lz_source_add(const char *path, const char *text, size_t len) {
  if (sources.len == 0) LZ_PUSH(sources, NULL); /* id 0 = no file */
  LzSource *s = LZ_NEW(LzSource);
  s->id = sources.len;
  s->path = lz_strdup(path);
  s->text = lz_strndup(text, len);
  s->len = len;
  LZ_PUSH(sources, s);
  return s;
}

LzSource *lz_source_read(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = xmalloc(cap);
  size_t n;
  while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
    len += n;
    if (len == cap) {
      cap *= 2;
      char *nb = realloc(buf, cap);
      if (!nb) xmalloc((size_t)-1);
      buf = nb;
    }
  }
  int err = ferror(f);
  fclose(f);
  if (err) {
    free(buf);
    errno = EIO;
    return NULL;
  }
  LzSource *s = lz_source_add(path, buf, len);
  free(buf);
  return s;
}

LzSource *lz_source_get(int id) {
  if (id <= 0 || id >= sources.len) return NULL;
  return sources.data[id];
}

bool lz_span_known(LzSpan s) { return s.file > 0; }

LzSpan lz_span_join(LzSpan a, LzSpan b) {
  if (!lz_span_known(a)) return b;
  if (!lz_span_known(b) || a.file != b.file) return a;
  LzSpan r = a;
  if (b.line < r.line || (b.line == r.line && b.col < r.col)) r.line = b.line, r.col = b.col;
  if (b.eline > r.eline || (b.eline == r.eline && b.ecol > r.ecol))
    r.eline = b.eline, r.ecol = b.ecol;
  return r;
}

char *lz_span_ghc(LzSpan s) {
  LzSource *src = lz_source_get(s.file);
  const char *path = src ? src->path : "<no location>";
  if (!src) return lz_strdup(path);
  if (s.eline == s.line) {
    if (s.ecol <= s.col) return lz_fmt("%s:%d:%d", path, s.line, s.col);
    return lz_fmt("%s:%d:%d-%d", path, s.line, s.col, s.ecol);
  }
  return lz_fmt("%s:(%d,%d)-(%d,%d)", path, s.line, s.col, s.eline, s.ecol);
}

/* ---- diagnostics ---------------------------------------------------------------- */

static int error_count, error_limit = 20, suppressed;
static FILE *diag_stream;

void lz_set_error_limit(int n) { error_limit = n; }
void lz_set_diag_stream(void *file) { diag_stream = file; }
int lz_error_count(void) { return error_count; }

/* The text of line `line` of `src` (without newline), or NULL. */
static const char *source_line(LzSource *src, int line, int *len) {
  const char *p = src->text, *end = src->text + src->len;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n') l++;
  if (p >= end && line > 1) return NULL;
  const char *q = p;
  while (q < end && *q != '\n')
    q++;
  *len = (int)(q - p);
  if (*len > 0 && p[*len - 1] == '\r') (*len)--;
  return p;
}

static void print_snippet(FILE *out, LzSpan at) {
  LzSource *src = lz_source_get(at.file);
  int len;
  const char *text = src ? source_line(src, at.line, &len) : NULL;
  if (!text) return;
  char num[16];
  int w = snprintf(num, sizeof num, "%d", at.line);
  fprintf(out, "%*s |\n%s | ", w, "", num);
  for (int i = 0; i < len; i++)
    fputc(text[i] == '\t' ? ' ' : text[i], out);
  fprintf(out, "\n%*s | ", w, "");
  int ecol = at.eline == at.line ? at.ecol : len;
  if (ecol < at.col) ecol = at.col;
  if (ecol > len && len >= at.col) ecol = len;
  for (int i = 1; i < at.col; i++)
    fputc(' ', out);
  for (int i = at.col; i <= ecol; i++)
    fputc('^', out);
  fputc('\n', out);
}

void lz_diag(LzSeverity sev, LzSpan at, const char *msg) {
  FILE *out = diag_stream ? diag_stream : stderr;
  if (sev == LZ_ERROR) {
    error_count++;
    if (error_count > error_limit) {
      if (!suppressed++) fprintf(out, "lzc: too many errors, stopping here\n");
      return;
    }
  }
  LzSource *src = lz_source_get(at.file);
  if (src)
    fprintf(out, "%s:%d:%d: %s:\n", src->path, at.line, at.col,
            sev == LZ_ERROR ? "error" : "warning");
  else
    fprintf(out, "lzc: %s:\n", sev == LZ_ERROR ? "error" : "warning");
  /* first line gets a bullet; continuation lines are indented to match */
  const char *p = msg;
  bool first = true;
  while (*p) {
    const char *nl = strchr(p, '\n');
    int n = nl ? (int)(nl - p) : (int)strlen(p);
    fprintf(out, "    %s%.*s\n", first ? "\xe2\x80\xa2 " : "  ", n, p);
    first = false;
    p += n;
    if (*p == '\n') p++;
  }
  if (src) print_snippet(out, at);
  fflush(out);
}

void lz_error(LzSpan at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = lz_vfmt(fmt, ap);
  va_end(ap);
  lz_diag(LZ_ERROR, at, m);
}

void lz_warning(LzSpan at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = lz_vfmt(fmt, ap);
  va_end(ap);
  lz_diag(LZ_WARNING, at, m);
}

void lz_reset(void) {
  while (arena) {
    Chunk *n = arena->next;
    free(arena);
    arena = n;
  }
  free(symtab);
  symtab = NULL;
  symcap = symcount = 0;
  sources.data = NULL;
  sources.len = sources.cap = 0;
  error_count = suppressed = 0;
}

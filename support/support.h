/* support.h — the small shared toolbox every stage uses: an arena allocator, interned
 * symbols, growable vectors, source files and diagnostics.
 *
 * The compiler is a short-lived, single-threaded process, so all compiler data lives
 * in one arena that is freed as a whole (lz_reset), which is also what lets the fuzzer
 * run millions of inputs in one process without leaking. Symbols are interned, so two
 * names are equal exactly when their pointers are. Public names carry the prefix lz_. */
#ifndef LZ_SUPPORT_H
#define LZ_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena ---------------------------------------------------------------- */

void *lz_alloc(size_t size); /* zeroed, 16-byte aligned, lives until lz_reset */
char *lz_strndup(const char *s, size_t n);
char *lz_strdup(const char *s);
char *lz_fmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *lz_vfmt(const char *fmt, va_list ap);
void lz_reset(void); /* frees the arena, the symbol table, sources and diagnostics */

#define LZ_NEW(T)          ((T *)lz_alloc(sizeof(T)))
#define LZ_NEW_ARRAY(T, n) ((T *)lz_alloc(sizeof(T) * (size_t)(n)))

/* ---- symbols -------------------------------------------------------------- */

/* An interned, NUL-terminated string: compare with ==. */
typedef const char *Sym;
Sym lz_sym(const char *s);
Sym lz_symn(const char *s, size_t n);

/* ---- vectors -------------------------------------------------------------- */

/* A growable array in the arena: `LZ_VEC(Expr *) args;` then LZ_PUSH(args, e).
 * Growing copies (the old storage is abandoned in the arena, at most doubling use). */
#define LZ_VEC(T)                                                                                  \
  struct {                                                                                         \
    T *data;                                                                                       \
    int len, cap;                                                                                  \
  }
void lz_vec_grow(void **data, int *cap, size_t elem_size);
#define LZ_PUSH(v, x)                                                                              \
  do {                                                                                             \
    if ((v).len == (v).cap) lz_vec_grow((void **)&(v).data, &(v).cap, sizeof(*(v).data));          \
    (v).data[(v).len++] = (x);                                                                     \
  } while (0)

/* ---- sources and spans -------------------------------------------------------- */

typedef struct LzSource {
  int id;
  const char *path; /* as given by the user (used in messages) */
  const char *text; /* NUL-terminated copy; may contain other NULs (len is exact) */
  size_t len;
} LzSource;

/* A source region; lines and columns are 1-based, end is inclusive (GHC style).
 * file 0 means "no location" (compiler-generated). */
typedef struct LzSpan {
  int file;
  int line, col;
  int eline, ecol;
} LzSpan;

LzSource *lz_source_add(const char *path, const char *text, size_t len);
LzSource *lz_source_read(const char *path); /* NULL if unreadable (errno set) */
LzSource *lz_source_get(int id);
LzSpan lz_span_join(LzSpan a, LzSpan b);
bool lz_span_known(LzSpan s);
/* "file.lz:3:5-9" / "file.lz:(3,5)-(4,2)" as GHC writes spans in runtime messages */
char *lz_span_ghc(LzSpan s);

/* ---- diagnostics ---------------------------------------------------------------- */

typedef enum { LZ_ERROR, LZ_WARNING } LzSeverity;

/* Report a diagnostic. The message may have several lines; it is printed GHC-style:
 *   file.lz:LINE:COL: error:
 *       • first line
 *         more lines
 *     |
 *   3 | source line
 *     |       ^^^^
 * Diagnostics are printed immediately to the diagnostic stream (stderr by default). */
void lz_error(LzSpan at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lz_warning(LzSpan at, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lz_diag(LzSeverity sev, LzSpan at, const char *msg);
int lz_error_count(void);
/* Stop reporting after this many errors (a cascade is not useful). Default 20. */
void lz_set_error_limit(int n);
/* Where diagnostics go (NULL = stderr); tests capture them in memory. */
void lz_set_diag_stream(void *file /* FILE* */);

#endif

/* rts_priv.h — what the runtime's own files share and compiled code never sees.
 *
 * The thread object, the private tail of the capability, the parsed +RTS flags, the
 * statistics counters, and small helpers used across the runtime: reading evaluated Lz
 * values (following indirections), making Integers, turning an evaluated [Char] into
 * UTF-8 bytes, and the GHC-style message functions. Boehm is included here with its
 * thread support enabled (GC_THREADS), so every runtime file sees the same gc.h.
 */
#ifndef LZ_RTS_PRIV_H
#define LZ_RTS_PRIV_H

#define GC_THREADS 1
#include <gc/gc.h>
#include <gmp.h>
#include <stdio.h>

#include "rts.h"

/* ---- threads and capabilities -------------------------------------------------------- */

#define LZ_STACK_RED 32              /* words below sp_lim kept free for the runtime */
#define LZ_STACK_INIT_WORDS 4096     /* initial stack: 32 KiB */

typedef struct LzThread {
  LzWord *stack;        /* lowest word of the stack object (GC-allocated)            */
  size_t stack_words;   /* its size                                                  */
  LzWord *sp;           /* saved stack pointer while not running                      */
  LzWord result;        /* what the stop frame received                               */
  uint32_t id;
} LzThread;

struct LzCapPriv {
  LzWord *gc_sp;        /* sp during lz_alloc_slow (dead words below it are cleared at GC) */
  /* Event log (eventlog.h, Note [Event log] in docs/notes/eventlog.md): this capability's
   * buffer, NULL when not logging; ev_sparks the same only when one event per spark is
   * logged (+RTS -lf), so each call site tests one pointer. */
  struct LzEvBuf *ev;
  struct LzEvBuf *ev_sparks;
};

LzThread *lz_thread_new(LzCap *cap, size_t words);
void lz_cap_attach(LzCap *cap, LzThread *t); /* make t the running thread of cap */

/* ---- flags -------------------------------------------------------------------------- */

typedef struct LzFlags {
  bool stats;                /* -s */
  char *stats_file;          /* -s<file>: NULL for stderr */
  size_t max_stack_bytes;    /* -K */
  size_t max_heap_bytes;     /* -M (0: unlimited) */
  size_t initial_heap_bytes; /* -A / -H: Boehm's initial heap (collections happen about
                                every third of it while live data is small) */
} LzFlags;

extern LzFlags lz_flags;
extern const char *lz_prog_name;   /* basename of argv[0] */
extern int lz_prog_argc;           /* program arguments (RTS options removed) */
extern char **lz_prog_argv;

/* Parse argv: fills *flags (starting from the defaults) and the program arguments
 * (argv[1..] minus RTS options, into out_argv, which has room for argc entries, NULL
 * terminated). Returns 0 on success, 1 on an error (message in err, without the program
 * name), 2 when -? asked for help. Does not print or exit. */
int lz_parse_rts_flags(int argc, char **argv, LzFlags *flags, int *out_argc, char **out_argv,
                       char *err, size_t errlen);
void lz_flags_default(LzFlags *flags);
bool lz_parse_size(const char *s, size_t *out); /* "8m", "1g", "512k", "4096", "1.5m" */
void lz_print_usage(FILE *f);                    /* every line prefixed "<prog>: " */

/* ---- statistics (stats.c) ----------------------------------------------------------- */

void lz_stats_start(void);        /* process start: INIT begins */
void lz_stats_mut_start(void);    /* main begins */
void lz_stats_mut_end(void);      /* main finished (or exit called) */
void lz_stats_gc_event(int event);
void lz_stats_print(FILE *f, uint64_t alloc_bytes);
char *lz_format_commas(uint64_t n, char *buf); /* buf: >= 32 bytes */

/* ---- heap and values ---------------------------------------------------------------- */

extern LzCap *lz_main_cap;
void lz_gc_init(void);                 /* once */
LzWord lz_whnf(LzWord p);              /* follow INDs; tag untagged values; die on thunks */
LzWord lz_string_cell(LzWord p);       /* lz_whnf on a list cell (tag 1 [] or 2 (:)) */
uint32_t lz_char_value(LzWord c);      /* the Char# of an evaluated C# box */
/* UTF-8 encoding (GC'd, NUL-terminated; NUL chars as C0 80 if `modified`) of the first
 * n characters of an evaluated [Char] (all of it when n < 0); *len gets the byte count. */
char *lz_string_utf8(LzWord list, long n, bool modified, size_t *len);
size_t lz_utf8_encode(uint32_t c, unsigned char *out, bool modified); /* 1..4 bytes */
char *lz_gc_strdup(const char *s);     /* atomic GC copy (an Addr# result) */
size_t lz_show_double(double x, char *buf);
double lz_int_encode_double(int64_t m, int64_t e); /* GHC's __int_encodeDouble */ /* GHC's show; buf >= 64 bytes; returns length */

/* ---- IO (io.c) ---------------------------------------------------------------------- */

void lz_io_init(void);
void lz_io_flush_all(void); /* every writable handle; errors ignored (used when dying) */
void lz_io_write_stderr(const char *bytes, size_t n); /* through the stderr handle */

/* ---- messages (error.c) ------------------------------------------------------------- */

/* Print "<prog>: " + message + "\n" on stderr (stdout flushed first), no exit. */
void lz_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void lz_stack_overflow(size_t current_bytes);
_Noreturn void lz_internal_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

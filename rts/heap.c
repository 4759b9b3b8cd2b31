/* heap.c — the heap: Boehm GC set-up, the allocation slow path, heap exhaustion.
 *
 * Compiled code allocates inline from per-capability free lists (cap->fl[g], objects of
 * g 16-byte granules, linked through word 0); this file refills them in batches with
 * Boehm's GC_generic_malloc_many, so the GC is not called once per object, with objects
 * of a kind Boehm does not clear (Note [Uncleared objects], below). Boehm runs with
 * GC_all_interior_pointers off and displacements 1..7 registered: heap words hold base
 * or tagged pointers only, and pointers from stacks and registers are recognised
 * anywhere inside an object in any mode, so optimiser-derived pointers are still safe.
 * (The default mode adds a byte to each object and does not scan its last word, which
 * compiled code fills.) Before a collection triggered from the slow path, the dead part of the
 * running thread's stack (below sp) is cleared, so stale frames do not keep garbage
 * alive. The heap grows with the live data (Note [Heap sizing], below). Heap exhaustion
 * (Boehm's out-of-memory hook, or -M) ends the program as GHC does: "Heap exhausted;" and
 * exit status 251.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eventlog.h"
#include "rts_priv.h"

#include <gc/gc_inline.h>
#include <gc/gc_mark.h>

static bool gc_started;

extern char __data_start[], _end[]; /* the executable's data and bss: CAFs */

/* Note [Granules] (docs/notes/threaded-rts.md): our Boehm's granule is one word
 * (rts/bdwgc/patch.cmake), and compiled code sizes its objects by it. */
_Static_assert(GC_GRANULE_BYTES == LZ_GRANULE_BYTES, "Boehm's granule is not the runtime's");

/* ---- Note [Uncleared objects] (docs/notes/threaded-rts.md) -----------------------------
 * The free lists hold objects of our own kind, which Boehm does not clear when it sweeps
 * a block or builds a fresh one (its normal kind zeroes every object, half of the cost of
 * refilling a list): compiled code writes every word of what it allocates (cg_alloc; a
 * granule is a word, so there is no padding), and lz_alloc_words clears the rest. An
 * object still on a capability's list holds stale words, so it must not be traced: at
 * each collection, before the stacks are scanned, mark_free_lists sets the mark bit of
 * every object on every list (they stay allocated, their contents are never scanned, as
 * Boehm does with its own thread-local lists). A stale word that is scanned anyway (an
 * object popped but not yet filled when the world stopped) only retains garbage. */
static unsigned uninit_kind;
static GC_push_other_roots_proc next_push;

/* ---- Note [Bump allocation] (docs/notes/threaded-rts.md) -------------------------------
 * A free list costs a pass over every fresh block before the program writes it (Boehm's
 * GC_build_fl: a quarter of coins7's time). So a capability allocates from a fresh block
 * in address order instead: bump[g] is its next g-granule object and lim[g] the end of the
 * block's last, both hidden (rts.h: Boehm takes any address inside an object, found on a
 * stack or in a register, for a pointer to it, and compiled code keeps bump values there);
 * compiled code pops the free list (still filled from swept blocks) if it has objects,
 * else bumps (rts.h). Boehm counted the whole block as allocated; the objects not yet
 * handed out are marked at each collection, as the free lists are, so that the sweep
 * leaves them alone; hence bump and lim are set with Boehm's lock held (a collection that
 * started between the lock's release and our stores would free the block, or sweep it for
 * another capability). GC_lz_take_blocks and GC_lz_set_marks are our additions to Boehm
 * (rts/bdwgc/patch.cmake), which the runtime always links (Note [Granules]). */
GC_API void *GC_CALL GC_lz_take_blocks(size_t lb, int k, GC_word *bump, GC_word *lim, GC_word *more,
                                       size_t n_more, GC_word hide);
GC_API void GC_CALL GC_lz_set_marks(const void *p, const void *q);
GC_API GC_word GC_CALL GC_lz_marked_bytes(void);   /* Note [Heap sizing] */
GC_API void GC_CALL GC_lz_set_recycle_kind(int k); /* Note [Recycled blocks] */
GC_API void GC_CALL GC_lz_set_owner(unsigned owner);
extern void (*GC_lz_before_rescan)(void);

static char *unhide(LzWord w) { return (char *)(w - LZ_BUMP_HIDE); }

/* The bytes of a block that g-granule objects fill. */
static size_t stash_block_end(size_t g) {
  size_t lb = g * LZ_GRANULE_BYTES;
  return LZ_HEAP_BLOCK_BYTES / lb * lb;
}

/* Every object a capability holds but has not handed out: each one on its free lists
 * (one_object, with its size), and the runs of them in its bump block's tail and its
 * stashed blocks (run, [from, to); Note [Stashed blocks]). With the world stopped;
 * lz_sched_init may be filling a new lz_caps (NULL entries). */
static void each_unallocated(void (*one_object)(char *obj, size_t bytes),
                             void (*run)(char *from, char *to)) {
  unsigned n = lz_caps == &lz_main_cap ? 1 : lz_ncaps;
  for (unsigned c = 0; c < n; c++) {
    LzCap *cap = lz_caps[c];
    for (int g = 1; cap && g <= LZ_FL_MAX; g++) {
      for (char *p = cap->fl[g]; p; p = *(char **)p)
        one_object(p, (size_t)g * LZ_GRANULE_BYTES);
      if (cap->bump[g] < cap->lim[g]) /* only GC_lz_take_blocks sets them */
        run(unhide(cap->bump[g]), unhide(cap->lim[g]));
      for (int i = 0; cap->rest && i < LZ_STASH_BLOCKS; i++)
        if (cap->rest->stash[g][i]) {
          char *b = unhide(cap->rest->stash[g][i]);
          run(b, b + stash_block_end(g));
        }
    }
  }
}

static void mark_object(char *obj, size_t bytes) {
  (void)bytes;
  GC_set_mark_bit(obj);
}
static void mark_run(char *from, char *to) {
  /* GC_lz_set_marks writes the mark bytes of one block: a run across blocks would write
     past them into other blocks' headers (see alloc_slow's stash path) */
  if ((uintptr_t)from / LZ_HEAP_BLOCK_BYTES != (uintptr_t)(to - 1) / LZ_HEAP_BLOCK_BYTES) {
    /* the world is stopped: no flushing (another thread may hold a handle's lock) */
    dprintf(2, "%s: internal error: an allocation range %p..%p spans heap blocks\n",
            lz_prog_name ? lz_prog_name : "lz", (void *)from, (void *)to);
    _exit(3);
  }
  GC_lz_set_marks(from, to);
}

static void GC_CALLBACK mark_free_lists(void) {
  each_unallocated(mark_object, mark_run);
  if (next_push) next_push(); /* Boehm's own: the thread stacks */
}

/* Boehm's hook before it rescans the heap for marked objects (a mark stack overflowed),
 * with the world stopped: that rescan traces every marked object, so the stale words of
 * the ones mark_free_lists marked are cleared first (a free-list object keeps its link
 * word). Note [Heap sizing], "One collection's spike". */
static void clear_object(char *obj, size_t bytes) {
  memset(obj + sizeof(void *), 0, bytes - sizeof(void *));
}
static void clear_run(char *from, char *to) { memset(from, 0, (size_t)(to - from)); }
static void clear_unallocated(void) { each_unallocated(clear_object, clear_run); }

bool lz_heap_unallocated(const void *obj, size_t bytes) {
  size_t g = bytes / LZ_GRANULE_BYTES;
  if (g == 0 || g > LZ_FL_MAX || !lz_caps) return false;
  unsigned n = lz_caps == &lz_main_cap ? 1 : lz_ncaps;
  LzWord hidden = (LzWord)obj + LZ_BUMP_HIDE;
  for (unsigned c = 0; c < n; c++) {
    LzCap *cap = lz_caps[c];
    if (cap && hidden >= cap->bump[g] && hidden < cap->lim[g]) return true;
    for (int i = 0; cap && cap->rest && i < LZ_STASH_BLOCKS; i++) {
      LzWord b = cap->rest->stash[g][i];
      if (b && hidden >= b && hidden < b + stash_block_end(g)) return true;
    }
  }
  return false;
}

bool lz_plausible_closure(LzWord p) {
  if (p == 0 || (p & 7) != 0) return false;
  return GC_is_heap_ptr((void *)p) || ((char *)p >= __data_start && (char *)p < _end);
}

static void *oom_handler(size_t bytes) {
  (void)bytes;
  lz_heap_exhausted();
}

static void *gmp_alloc(size_t n) {
  void *p = GC_MALLOC_ATOMIC(n);
  if (!p) lz_heap_exhausted();
  return p;
}

static void *gmp_realloc(void *p, size_t old, size_t n) {
  (void)old;
  void *q = GC_REALLOC(p, n);
  if (!q) lz_heap_exhausted();
  return q;
}

static void gmp_free(void *p, size_t n) {
  (void)p, (void)n; /* limbs may be shared by Integer objects: let the GC decide */
}

/* ---- Note [Heap sizing] (docs/notes/threaded-rts.md) ----------------------------------
 * Boehm marks all live data at every collection and, once the initial heap is in use,
 * collects about every third of the heap allocated. Allocation-heavy programs whose live
 * data is larger than a few MB then spend most of their time marking it again and again
 * (queens 13 at -N2: 230 collections of ~8 MB, 57 % of the run). Like GHC's -F, we let the
 * heap grow to F times the live data: every collection reads the bytes it marked (our
 * GC_lz_marked_bytes: the sum the sweep's start makes anyway) and, if F times that is
 * well above the heap, asks for the difference (at most a doubling per step, and at most
 * 1 GiB more than the live data), which the next allocation slow path requests from
 * Boehm (expanding takes Boehm's lock, held here). The initial heap is -A times N, as
 * GHC's -A is per capability; F is not (Note [Heap sizing], "F for the whole heap"). */
enum { INITIAL_CAPS_MAX = 8 };
static double heap_factor;                    /* -F, set by lz_gc_init; below 1: no sizing */
#define HEAP_EXTRA_MAX (1024.0 * 1024 * 1024) /* free space beyond the live data: 1 GiB */
static _Atomic size_t heap_want; /* grow the heap to this at the next slow path; 0: no */
static size_t prev_live;         /* the last collection's live bytes (Boehm's lock) */

/* At the end of a collection, with Boehm's lock held and the mark bits valid. */
static void size_heap_for_live(void) {
  double f = heap_factor;
  if (f < 1) return;
  size_t heap = GC_get_heap_size();
  size_t live = GC_lz_marked_bytes(); /* summed by the sweep's start: free, so at every one */
  /* Note [Heap sizing], "One collection's spike": a stale word that leads into a list being
   * consumed can inflate one collection's count, and the heap never shrinks: grow only on
   * what two collections in a row found */
  size_t measured = live;
  if (live > prev_live) live = prev_live;
  prev_live = measured;
  double want = (double)live * f;
  if (want > (double)live + HEAP_EXTRA_MAX) want = (double)live + HEAP_EXTRA_MAX;
  if (want > 2.0 * (double)heap) want = 2.0 * (double)heap;
  if (lz_flags.max_heap_bytes && want > (double)lz_flags.max_heap_bytes)
    want = (double)lz_flags.max_heap_bytes;
  if (want > (double)heap * 1.125)
    atomic_store_explicit(&heap_want, (size_t)want, memory_order_relaxed);
}

static void grow_heap(void) {
  size_t want = atomic_exchange_explicit(&heap_want, 0, memory_order_relaxed);
  size_t heap = GC_get_heap_size();
  if (want > heap)
    (void)GC_expand_hp(want - heap); /* failure: Boehm goes on with the heap it has */
}

/* Clear the words below the running thread's sp when a collection starts inside
 * lz_alloc_slow (the only time the runtime knows the exact sp). */
static void on_gc_event(GC_EventType ev) {
  LzCap *cap = lz_current_cap; /* the capability whose allocation started the collection */
  if (ev == GC_EVENT_START && cap && cap->rest && cap->rest->gc_sp) {
    LzThread *t = cap->tso;
    LzWord *sp = cap->rest->gc_sp;
    if (t && sp > t->stack && sp <= t->stack + t->stack_words)
      memset(t->stack, 0, (size_t)(sp - t->stack) * sizeof(LzWord));
  }
  LzEvBuf *eb = cap ? lz_ev_class_buf(LZ_EVC_GC, cap->cap_no) : NULL;
  if (eb) {
    if (ev == GC_EVENT_START)
      lz_ev_gc_start(eb);
    else if (ev == GC_EVENT_END) {
      lz_ev_gc_end(eb);
      lz_ev_heap_allocated(eb, cap->alloc_bytes); /* this capability's total */
      lz_ev_heap_size(eb, GC_get_heap_size());
    }
  }
  if (ev == GC_EVENT_END) size_heap_for_live();
  lz_stats_gc_event((int)ev);
}

/* Note [GC threads] (docs/notes/threaded-rts.md): Boehm would mark with one thread per
 * core even at -N1; use min(-N, cores) unless -qn<n> or GC_MARKERS says otherwise. */
static unsigned gc_markers(void) {
#if LZ_THREADED
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned n = lz_flags.gc_threads ? lz_flags.gc_threads : lz_flags.ncaps;
  if (!lz_flags.gc_threads && cores > 0 && (n == 0 || n > (unsigned)cores)) n = (unsigned)cores;
  return n ? n : 1;
#else
  return 1; /* no other threads: Boehm starts no markers anyway */
#endif
}

/* The capabilities -N asks for (before lz_sched_init makes them): 1 in other ways. */
static unsigned flag_caps(void) {
#if LZ_THREADED
  if (lz_flags.ncaps) return lz_flags.ncaps;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  return cores > 0 ? (unsigned)cores : 1;
#else
  return 1;
#endif
}

void lz_gc_init(void) {
  if (gc_started) return;
  gc_started = true;
  GC_set_markers_count(gc_markers()); /* the GC_MARKERS variable still wins */
  GC_set_oom_fn(oom_handler);
  GC_set_handle_fork(1); /* collections keep working in a fork()ed child */
  GC_set_all_interior_pointers(0);
  /* Note [Static roots] (docs/notes/threaded-rts.md): the executable's data and bss are
   * the only static roots. Boehm would find them, and every shared library's writable
   * data, with dl_iterate_phdr before each collection; no library holds our pointers,
   * and the search and scan took 20-35 us of a coins7 collection's 150-240. */
  GC_set_no_dls(1);
  GC_INIT();
  GC_add_roots(__data_start, _end);
  if (GC_size(GC_MALLOC_ATOMIC(LZ_GRANULE_BYTES)) != LZ_GRANULE_BYTES) /* the system's -lgc */
    lz_die(1,
           "this program needs the Boehm GC built with Lz (liblzgc.a, %d-byte granules), "
           "but was linked with another libgc; rebuild it with lzc from a complete build",
           LZ_GRANULE_BYTES);
  for (int d = 1; d <= (int)LZ_TAG_MASK; d++)
    GC_register_displacement((size_t)d); /* tagged pointers in heap words */
  uninit_kind = GC_new_kind(GC_new_free_list(), GC_DS_LENGTH, 1, 0); /* scan all, no clearing */
  GC_lz_set_recycle_kind((int)uninit_kind);
  next_push = GC_get_push_other_roots(); /* before any thread or spark pool hooks on */
  GC_set_push_other_roots(mark_free_lists);
  GC_lz_before_rescan = clear_unallocated;
  GC_allow_register_threads(); /* the threaded way registers its capability threads */
  if (lz_flags.max_heap_bytes) GC_set_max_heap_size(lz_flags.max_heap_bytes);
  unsigned caps = flag_caps();
  heap_factor = lz_flags.heap_factor < 1 ? 0 : lz_flags.heap_factor;
  size_t heap = GC_get_heap_size(), want = lz_flags.initial_heap_bytes;
  if (!lz_flags.initial_heap_total) /* -A and the default are per capability, -H the total */
    want *= caps < INITIAL_CAPS_MAX ? caps : INITIAL_CAPS_MAX;
  if (!getenv("GC_INITIAL_HEAP_SIZE") && want > heap &&
      (!lz_flags.max_heap_bytes || want <= lz_flags.max_heap_bytes))
    GC_expand_hp(want - heap);
  GC_set_on_collection_event(on_gc_event);
  mp_set_memory_functions(gmp_alloc, gmp_realloc, gmp_free);
}

/* Note [Recycled blocks]: the blocks a collection empties go back to the thread that
 * filled them, whose core may still cache them. */
void lz_gc_thread_owner(unsigned cap_no) { GC_lz_set_owner(cap_no); }

static void *alloc_slow(LzCap *cap, LzWord *sp, LzWord granules) {
  if (granules > LZ_FL_MAX || granules == 0) {
    void *p = GC_MALLOC(granules ? granules * LZ_GRANULE_BYTES : LZ_GRANULE_BYTES);
    if (!p) lz_heap_exhausted();
    return p;
  }
  /* Note [Stashed blocks]: a block taken with the last one, no lock */
  LzWord *stash = cap->rest->stash[granules];
  for (int i = LZ_STASH_BLOCKS - 1; i >= 0; i--)
    if (stash[i]) {
      LzWord b = stash[i];
      /* A collection may stop this thread between any two of these stores, and marks the
         bump range it then finds (mark_free_lists). The range must never pair the new
         block's bump with the old block's lim: it would span other blocks, and marking it
         overwrote their headers (1 in 30-130 recordings of minimax at -N4 crashed).
         So lim is emptied first (the old range holds no object: bump == lim), and the
         block stays in the stash entry, which is marked too, until the range is whole. */
      cap->lim[granules] = 0;
      atomic_signal_fence(memory_order_seq_cst);
      cap->bump[granules] = b + granules * LZ_GRANULE_BYTES;
      atomic_signal_fence(memory_order_seq_cst);
      cap->lim[granules] = b + stash_block_end(granules);
      atomic_signal_fence(memory_order_seq_cst);
      stash[i] = 0;
      return unhide(b);
    }
  void *fresh;
  if ((fresh =
           GC_lz_take_blocks(granules * LZ_GRANULE_BYTES, (int)uninit_kind, &cap->bump[granules],
                             &cap->lim[granules], stash, LZ_STASH_BLOCKS, LZ_BUMP_HIDE))) {
    if (atomic_load_explicit(&heap_want, memory_order_relaxed)) grow_heap();
    return fresh;
  }
  cap->rest->gc_sp = sp;
  void *list = NULL;
  GC_generic_malloc_many(granules * LZ_GRANULE_BYTES, (int)uninit_kind, &list); /* g granules */
  cap->rest->gc_sp = NULL;
  if (!list) lz_heap_exhausted();
  if (atomic_load_explicit(&heap_want, memory_order_relaxed)) grow_heap();
  /* Word 0 (the free-list link) becomes the object's header, which other capabilities
     access atomically once compiled code has published the object. Compiled code is not
     instrumented, so ThreadSanitizer sees no order between this thread's accesses here
     and theirs; relaxed atomics (plain moves) keep it from reporting them as races. */
  cap->fl[granules] = __atomic_load_n((void **)list, __ATOMIC_RELAXED);
  __atomic_store_n((void **)list, NULL, __ATOMIC_RELAXED);
  return list;
}

/* A collector about to stop the world does not wait for a capability in here to park
 * (Note [Parking for collections]): it may be waiting for Boehm's lock. */
void *lz_alloc_slow(LzCap *cap, LzWord *sp, LzWord granules) {
  __atomic_store_n(&cap->rest->in_boehm, 1, __ATOMIC_RELAXED);
  void *p = alloc_slow(cap, sp, granules);
  __atomic_store_n(&cap->rest->in_boehm, 0, __ATOMIC_RELAXED);
  return p;
}

void *lz_alloc_words(LzCap *cap, size_t words) {
  LzWord g = LZ_WORDS_TO_GRANULES(words ? words : 1);
  cap->alloc_bytes += g * LZ_GRANULE_BYTES;
  if (g <= LZ_FL_MAX) {
    void *p = cap->fl[g];
    if (p) {
      cap->fl[g] = *(void **)p;
    } else if (cap->bump[g] < cap->lim[g]) { /* as compiled code (rts.h) */
      p = unhide(cap->bump[g]);
      cap->bump[g] += g * LZ_GRANULE_BYTES;
    } else {
      p = lz_alloc_slow(cap, NULL, g);
    }
    memset(p, 0, g * LZ_GRANULE_BYTES); /* Note [Uncleared objects]: C callers get zeros */
    return p;
  }
  return lz_alloc_slow(cap, NULL, g);
}

char *lz_gc_strdup(const char *s) {
  size_t n = strlen(s);
  char *p = GC_MALLOC_ATOMIC(n + 1);
  if (!p) lz_heap_exhausted();
  memcpy(p, s, n + 1);
  return p;
}

_Noreturn void lz_heap_exhausted(void) {
  lz_message("Heap exhausted;");
  size_t max = lz_flags.max_heap_bytes ? lz_flags.max_heap_bytes : GC_get_heap_size();
  lz_message("Current maximum heap size is %zu bytes (%zu MB).", max, max / (1024 * 1024));
  lz_message("Use `+RTS -M<size>' to increase it.");
  lz_exit(251);
}

/* test_rts_heap.c — the heap as compiled code uses it: free-list allocation and GC.
 *
 * Objects are popped from cap->fl exactly as generated code does, filled in every word
 * (the last word too: Boehm must scan it) with base or tagged pointers, and collections
 * are forced; everything reachable must survive intact, whether reached from a static
 * variable (data segment), from the Lz stack, or only through a tagged pointer. Also:
 * the allocation counter, objects bigger than the free lists, that garbage is actually
 * reclaimed (the heap does not grow without bound, also when the objects' size
 * changes), that emptied blocks go back to the thread that filled them, boxed arrays,
 * and a structure that makes Boehm's mark stack grow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include <cmocka.h>
#include <gc/gc_mark.h>

#include "test_rts_util.h"

static LzCap *cap;
static LzWord root; /* a static root, like a CAF in the data segment */
/* An initialised one (.data, where compiled code's CAFs are; `root` is in .bss). */
static LzWord data_root[2] = {(LzWord)&lz_update_frame_info, 0};

/* A chain of `n` objects of `words` words; each holds its index in word 0 (where an info
 * pointer would be) and the next object (tagged with `tag`) in its LAST word; the other
 * words hold junk integers. */
static LzWord make_chain(size_t n, size_t words, LzWord tag) {
  LzWord next = 0;
  for (size_t i = 0; i < n; i++) {
    LzWord *p = test_alloc(cap, NULL, words);
    p[0] = i * 8;
    for (size_t w = 1; w + 1 < words; w++)
      p[w] = i * 7 + w;
    p[words - 1] = next;
    next = (LzWord)p | tag;
  }
  return next;
}

static size_t check_chain(LzWord head, size_t n, size_t words) {
  size_t ok = 0;
  for (size_t i = n; i-- > 0 && head;) {
    LzWord *p = LZ_UNTAG(head);
    if (p[0] != i * 8) break;
    ok++;
    head = p[words - 1];
  }
  return ok;
}

static void test_last_word_scanned(void **state) {
  (void)state;
  for (size_t words = 2; words <= 9; words++) { /* every size fills its granules exactly */
    root = make_chain(100000, words, (LzWord)(words % 7) + 1);
    for (int k = 0; k < 3; k++) {
      GC_gcollect();
      make_chain(50000, words, 0); /* garbage that reuses freed memory */
    }
    assert_int_equal(check_chain(root, 100000, words), 100000);
  }
  root = 0;
}

/* Note [Static roots]: the executable's data and bss are registered by hand (Boehm's
 * search of every loaded object is off), so a root in either must still be found. */
static void test_data_root(void **state) {
  (void)state;
  assert_int_equal(GC_get_no_dls(), 1);
  data_root[1] = make_chain(50000, 3, 1);
  for (int k = 0; k < 3; k++) {
    GC_gcollect();
    make_chain(50000, 3, 0);
  }
  assert_int_equal(check_chain(data_root[1], 50000, 3), 50000);
  data_root[1] = 0;
}

static void test_stack_root(void **state) {
  (void)state;
  LzWord *sp = lz_thread_sp(cap);
  sp -= 2;
  sp[0] = (LzWord)&lz_update_frame_info;
  sp[1] = make_chain(20000, 3, 2); /* only the Lz stack holds it */
  for (int k = 0; k < 3; k++) {
    GC_gcollect();
    make_chain(20000, 4, 0);
  }
  assert_int_equal(check_chain(sp[1], 20000, 3), 20000);
}

static void test_counter_and_big(void **state) {
  (void)state;
  uint64_t before = cap->alloc_bytes;
  test_alloc(cap, NULL, 3); /* 3 granules of a word: no padding (Note [Granules]) */
  assert_int_equal(cap->alloc_bytes - before, 24);
  LzWord *big = lz_alloc_slow(cap, NULL, 100); /* beyond the free lists */
  assert_non_null(big);
  assert_true(GC_size(big) >= 800);
  big[99] = 1; /* the whole object is usable */
  LzWord *w = lz_alloc_words(cap, 5);
  assert_true(GC_size(w) == 40);
  assert_null(*(void **)w); /* link word cleared */
}

static void test_garbage_reclaimed(void **state) {
  (void)state;
  GC_gcollect();
  size_t heap0 = GC_get_heap_size();
  for (int k = 0; k < 50; k++)
    make_chain(100000, 4, 1); /* 3.2 MB of garbage each time */
  assert_true(GC_get_heap_size() < heap0 + ((size_t)64 << 20));
}

/* Note [Recycled blocks]: a collection keeps the blocks it empties for their object
 * size. A program that then allocates objects of other sizes must get those blocks back
 * rather than make Boehm grow the heap (6 sizes x 16 MB if it did). */
static void test_emptied_blocks_change_size(void **state) {
  (void)state;
  GC_gcollect();
  size_t heap0 = GC_get_heap_size();
  for (size_t words = 2; words <= 12; words += 2)
    for (int k = 0; k < 20; k++)
      make_chain(100000, words, 1); /* 1.6 to 9.6 MB of garbage each time */
  assert_true(GC_get_heap_size() < heap0 + ((size_t)32 << 20));
}

/* The block a capability's next object of g granules comes from, with nothing on its
 * free list, in its bump block or stash (each lz_alloc_slow call then takes a block). */
static LzWord next_block(size_t g) {
  cap->fl[g] = NULL;
  cap->bump[g] = cap->lim[g];
  return (LzWord)lz_alloc_slow(cap, NULL, g) & ~(LzWord)(LZ_HEAP_BLOCK_BYTES - 1);
}

static void drop_stash(size_t g) {
  cap->bump[g] = cap->lim[g];
  for (int i = 0; i < LZ_STASH_BLOCKS; i++)
    cap->rest->stash[g][i] = 0;
}

/* Does the block hold a marked object (after a collection: is it in use)? */
static bool block_marked(LzWord hidden_block, size_t g) {
  char *b = (char *)(hidden_block ^ LZ_BUMP_HIDE);
  for (size_t at = 0; at + g * LZ_GRANULE_BYTES <= LZ_HEAP_BLOCK_BYTES; at += g * LZ_GRANULE_BYTES)
    if (GC_is_marked(b + at)) return true;
  return false;
}

/* Note [Recycled blocks]: the blocks a collection empties go back first to the thread
 * (owner) that filled them. Owner 1 fills K blocks, owner 0 K more, all become garbage;
 * after a collection owner 1 must not get emptied blocks of owner 0 while its own last.
 * A block a stray word kept in use is swept before any emptied block is taken, so it may
 * come first. Addresses are kept hidden (^ LZ_BUMP_HIDE) from the collector. */
static void test_emptied_blocks_go_home(void **state) {
  (void)state;
  enum { G = 17, K = 16 }; /* a size no other test uses */
  LzWord mine[K], theirs[K];
  drop_stash(G);
  GC_gcollect(); /* none of the collections but the one below: their blocks would mix */
  size_t collections = GC_get_gc_no();
  lz_gc_thread_owner(1);
  for (int i = 0; i < K; i++)
    mine[i] = next_block(G) ^ LZ_BUMP_HIDE;
  drop_stash(G);
  lz_gc_thread_owner(0);
  for (int i = 0; i < K; i++)
    theirs[i] = next_block(G) ^ LZ_BUMP_HIDE;
  drop_stash(G);
  assert_int_equal(GC_get_gc_no(), collections);
  GC_gcollect();
  int in_use = 0;
  bool theirs_empty[K];
  for (int i = 0; i < K; i++) {
    theirs_empty[i] = !block_marked(theirs[i], G);
    in_use += !theirs_empty[i] + block_marked(mine[i], G);
  }
  lz_gc_thread_owner(1);
  int own = 0, wrong = 0;
  for (int n = 0; n < in_use + K / 2; n++) {
    LzWord b = next_block(G) ^ LZ_BUMP_HIDE;
    for (int i = 0; i < K; i++)
      own += b == mine[i], wrong += b == theirs[i] && theirs_empty[i];
  }
  lz_gc_thread_owner(0);
  /* one list for all hands out about K / 2 of theirs; with per-owner lists 0, though a
     stray copy of an address can keep a block in use (Note [Recycled blocks]) */
  assert_true(wrong <= 2);
  assert_true(own >= K / 4);
}

static void test_arrays(void **state) {
  (void)state;
  LzWord m = lz_prim_newArray(cap, 5, 7);
  assert_int_equal(lz_prim_sizeofMutableArray(cap, m), 5);
  assert_int_equal(lz_prim_readArray(cap, m, 4), 7);
  lz_prim_writeArray(cap, m, 2, 9);
  LzWord a = lz_prim_unsafeFreezeArray(cap, m);
  assert_int_equal(lz_prim_indexArray(cap, a, 2), 9);
  LzWord t = lz_prim_thawArray(cap, a, 1, 3); /* elements 1..3: 7 9 7 */
  assert_int_equal(lz_prim_sizeofMutableArray(cap, t), 3);
  lz_prim_writeArray(cap, t, 0, 1);
  assert_int_equal(lz_prim_indexArray(cap, a, 1), 7); /* a copy */
  assert_int_equal(lz_prim_readArray(cap, t, 1), 9);
  assert_int_equal(lz_prim_sizeofArray(cap, lz_prim_newArray(cap, 0, 0)), 0);
  /* a big array keeps its elements alive, last slot included */
  LzWord big = lz_prim_newArray(cap, 100000, 0);
  for (LzWord i = 0; i < 100000; i += 999)
    lz_prim_writeArray(cap, big, i, make_chain(10, 2, 1));
  lz_prim_writeArray(cap, big, 99999, make_chain(10, 2, 1));
  root = big;
  for (int k = 0; k < 3; k++) {
    GC_gcollect();
    make_chain(50000, 2, 0);
  }
  for (LzWord i = 0; i < 100000; i += 999)
    assert_int_equal(check_chain(lz_prim_indexArray(cap, big, i), 10, 2), 10);
  assert_int_equal(check_chain(lz_prim_indexArray(cap, big, 99999), 10, 2), 10);
  root = 0;
  assert_int_equal(lz_prim_spark(cap, 123), 0);
  assert_int_equal(lz_prim_unsafeCoerce(cap, 0x1231), 0x1231);
}

/* A list of n cells, each pointing to a leaf of its own: Boehm's depth-first marking
 * keeps one leaf per cell on its mark stack, so 300 000 cells overflow the initial
 * stack (64 K entries) and make it grow at the following collections. Boehm gives each
 * outgrown stack to the heap (GC_scratch_recycle_inner), which with 64 KB blocks and
 * 4 KB alignment made heap blocks of the headers beside it (rts/bdwgc/patch.cmake, "Lz:
 * blocks, not pages"). The list and the leaves must come through intact. */
static void test_mark_stack_grows(void **state) {
  (void)state;
  enum { CELLS = 300000 };
  LzWord list = 0;
  for (size_t i = 0; i < CELLS; i++) {
    LzWord *leaf = test_alloc(cap, NULL, 2);
    leaf[0] = i * 8, leaf[1] = (LzWord)leaf; /* a pointer: the leaf is pushed, not just marked */
    LzWord *cell = test_alloc(cap, NULL, 3);
    cell[0] = i * 8, cell[1] = (LzWord)leaf, cell[2] = list;
    list = (LzWord)cell;
  }
  root = list;
  for (int k = 0; k < 6; k++) { /* the stack grows at each of the first few */
    GC_gcollect();
    for (size_t words = 2; words <= 12; words += 5)
      make_chain(50000, words, 0); /* reuse the freed blocks, of several sizes */
  }
  size_t ok = 0;
  for (LzWord c = root; c; c = ((LzWord *)c)[2]) {
    const LzWord *cell = (const LzWord *)c, *leaf = (const LzWord *)cell[1];
    if (cell[0] != (CELLS - 1 - ok) * 8 || leaf[0] != cell[0] || leaf[1] != cell[1]) break;
    ok++;
  }
  assert_int_equal(ok, CELLS);
  root = 0;
}

int main(void) {
  cap = lz_rts_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_last_word_scanned),
      cmocka_unit_test(test_stack_root),
      cmocka_unit_test(test_counter_and_big),
      cmocka_unit_test(test_garbage_reclaimed),
      cmocka_unit_test(test_emptied_blocks_change_size),
      cmocka_unit_test(test_emptied_blocks_go_home),
      cmocka_unit_test(test_arrays),
      cmocka_unit_test(test_mark_stack_grows),
      cmocka_unit_test(test_data_root), /* last: its garbage would disturb the block tests */
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

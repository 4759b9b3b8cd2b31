# Run by ExternalProject in the unpacked Boehm GC 8.2.2 source (cmake -P patch.cmake): two
# small changes for 64 KB heap blocks (Note [Boehm's block size], docs/notes/threaded-rts.md),
# four additions (GC_lz_take_blocks and GC_lz_set_marks, at the end: Note [Bump
# allocation]; GC_lz_marked_bytes and GC_lz_before_rescan: Note [Heap sizing]) and one fix
# (the mmap hint is not a root: Note [Stale registers]), 8-byte granules (Note [Granules]),
# no clearing of unmarked blocks' marks (Note [Clearing marks]), emptied blocks kept for
# their size and owner (Note [Recycled blocks]), mappings in advised huge pages (Note [Huge
# pages]), one more fix for 64 KB blocks (recycled scratch areas aligned to blocks) and
# capabilities parked at safe points instead of signalled (Note [Parking for collections])
# and signalled threads scanned without the kernel's signal frame (Note [Signal frames]).
#  - gc_priv.h accepts -DHBLKSIZE only up to 16384: add 65536 (LOG 16), the size the
#    collector already uses on targets with 64 KB pages.
#  - os_dep.c maps its heap with mmap and stops if the result is not block-aligned; Linux
#    aligns only to 4 KB pages. Map a block more than asked and unmap the unaligned ends.
function(lz_patch file anchor replacement marker)
  file(READ ${file} text)
  string(FIND "${text}" "${marker}" done)
  if(NOT done EQUAL -1)
    return()
  endif()
  string(FIND "${text}" "${anchor}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "bdwgc: ${file} is not the 8.2.2 file rts/bdwgc/patch.cmake expects")
  endif()
  string(REPLACE "${anchor}" "${replacement}" text "${text}")
  file(WRITE ${file} "${text}")
endfunction()

set(a "# elif HBLKSIZE == 16384\n#   define CPP_LOG_HBLKSIZE 14\n")
lz_patch(include/private/gc_priv.h "${a}"
  "${a}# elif HBLKSIZE == 65536 /* Lz */\n#   define CPP_LOG_HBLKSIZE 16\n" "HBLKSIZE == 65536")

set(a "    result = mmap(last_addr, bytes, (PROT_READ | PROT_WRITE)
                                    | (GC_pages_executable ? PROT_EXEC : 0),
                  GC_MMAP_FLAGS | OPT_MAP_ANON, zero_fd, 0/* offset */);
#   undef IGNORE_PAGES_EXECUTABLE
")
set(b "    result = mmap(last_addr, bytes + HBLKSIZE - GC_page_size, (PROT_READ | PROT_WRITE)
                                    | (GC_pages_executable ? PROT_EXEC : 0),
                  GC_MMAP_FLAGS | OPT_MAP_ANON, zero_fd, 0/* offset */);
#   undef IGNORE_PAGES_EXECUTABLE
    /* Lz: mmap aligns to pages only; keep the HBLKSIZE-aligned part. */
    if (result != MAP_FAILED && HBLKSIZE > GC_page_size) {
      ptr_t lz_end = (ptr_t)result + bytes + HBLKSIZE - GC_page_size;
      ptr_t lz_start = (ptr_t)(((word)result + HBLKSIZE - 1)
                               & ~(word)(HBLKSIZE - 1));
      if (lz_start != (ptr_t)result)
        munmap(result, (size_t)(lz_start - (ptr_t)result));
      if (lz_start + bytes != lz_end)
        munmap(lz_start + bytes, (size_t)(lz_end - (lz_start + bytes)));
      result = lz_start;
    }
")
lz_patch(os_dep.c "${a}" "${b}" "Lz: mmap aligns to pages only")
set(lz_mmap_blocks "${b}") # the anchor of the huge-page patch below

# gc_tiny_fl.h: 8-byte granules on 64-bit targets instead of 16 (Note [Granules],
# docs/notes/threaded-rts.md). The header is the library's and every client's, so the
# runtime and the tests agree with Boehm on the granule without a define of their own.
set(a "#  define GC_GRANULE_BYTES 16\n#  define GC_GRANULE_WORDS 2\n")
lz_patch(include/gc_tiny_fl.h "${a}"
  "#  define GC_GRANULE_BYTES 8 /* Lz */\n#  define GC_GRANULE_WORDS 1\n" "GC_GRANULE_BYTES 8 /* Lz */")
# reclaim.c: with parallel marking (USE_MARK_BYTES) the sweep clears a dead object two words
# at a time, which for an odd number of words clears the next object's first word and puts
# every later object of the block on the free list 8 bytes off (a short C test of
# GC_MALLOC sizes 8..248 failed at the second collection). Clear word by word instead.
set(a "  /* Clear object, advance p to next object in the process.     */\n# ifdef USE_MARK_BYTES\n")
lz_patch(reclaim.c "${a}"
  "  /* Clear object, advance p to next object in the process.     */\n# if defined(USE_MARK_BYTES) && GRANULE_BYTES == 16 /* Lz: odd words */\n"
  "GRANULE_BYTES == 16 /* Lz: odd words */")

# mallocx.c: GC_lz_take_blocks, fresh blocks for bump allocation without building their free
# lists (Note [Bump allocation], docs/notes/threaded-rts.md).
set(a "/* Note that the \"atomic\" version of this would be unsafe, since the    */
/* links would not be seen by the collector.                            */
GC_API GC_ATTR_MALLOC void * GC_CALL GC_malloc_many(size_t lb)
")
set(b "/* Lz: fresh blocks of lb-byte objects of kind k, for the caller to     */
/* allocate from in address order; no free list is built. The first     */
/* block's first object is the result; *bump and *lim are set to the    */
/* second one's address and to the end of the last one, and each empty */
/* (zero) entry of more[0..n_more-1], in order, to the address of one   */
/* more block, all plus hide (the caller keeps them as non-pointers),   */
/* with the lock held: a collection that starts after it sees them (the */
/* caller marks them). One lock for several blocks: Note [Stashed       */
/* blocks]. NULL when objects of that size wait on a reclaim list or    */
/* the kind's free list (GC_generic_malloc_many uses those first), or   */
/* when no free block is at hand (GC_generic_malloc_many may collect).  */
GC_API void * GC_CALL GC_lz_take_blocks(size_t lb, int k, GC_word *bump,
                                         GC_word *lim, GC_word *more,
                                         size_t n_more, GC_word hide)
{
    struct hblk *h = NULL;
    struct obj_kind *ok = &GC_obj_kinds[k];
    size_t lg = BYTES_TO_GRANULES(lb);
    size_t i;
    DCL_LOCK_STATE;

    if (!SMALL_OBJ(lb) || lb % GRANULE_BYTES != 0 || lb == 0
        || !EXPECT(GC_is_initialized, TRUE) || GC_incremental)
      return NULL;
    LOCK();
    if ((NULL == ok -> ok_reclaim_list || NULL == ok -> ok_reclaim_list[lg])
        && NULL == ok -> ok_freelist[lg]) {
      h = GC_allochblk(lb, k, 0);
      if (h != NULL) {
        if (IS_UNCOLLECTABLE(k)) GC_set_hdr_marks(HDR(h));
        GC_bytes_allocd += HBLKSIZE - HBLKSIZE % lb;
        *bump = (GC_word)h + lb + hide;
        *lim = (GC_word)h + HBLKSIZE / lb * lb + hide;
        for (i = 0; i < n_more; i++) {
          struct hblk *m;

          if (more[i] != 0) continue;
          m = GC_allochblk(lb, k, 0);
          if (NULL == m) break;
          if (IS_UNCOLLECTABLE(k)) GC_set_hdr_marks(HDR(m));
          GC_bytes_allocd += HBLKSIZE - HBLKSIZE % lb;
          more[i] = (GC_word)m + hide;
        }
      }
    }
    UNLOCK();
    /* as GC_generic_malloc_many: clear the dead stack below, lest a stale copy of */
    /* h there, in a frame of a later collection, pin the block's first object     */
    return GC_clear_stack(h);
}

${a}")
lz_patch(mallocx.c "${a}" "${b}" "GC_lz_take_blocks")

# mark.c: GC_lz_set_marks, GC_set_mark_bit for a run of objects of one block (the tail of a
# capability's fresh block, marked at each collection: Note [Bump allocation]), one header
# look-up instead of one call and look-up per object.
set(a "GC_API void GC_CALL GC_clear_mark_bit(const void *p)
")
set(b "/* Lz: set the mark bits of the objects at p, p + size, ... below q; p   */
/* and q - 1 lie in the same small-object block.                        */
GC_API void GC_CALL GC_lz_set_marks(const void *p, const void *q)
{
    struct hblk *h = HBLKPTR(p);
    hdr * hhdr = HDR(h);
    size_t sz = hhdr -> hb_sz;
    ptr_t r;

    for (r = (ptr_t)p; (word)r < (word)q; r += sz) {
      word bit_no = MARK_BIT_NO(r - (ptr_t)h, sz);

      if (!mark_bit_from_hdr(hhdr, bit_no)) {
        set_mark_bit_from_hdr(hhdr, bit_no);
        ++hhdr -> hb_n_marks;
      }
    }
}

${a}")
lz_patch(mark.c "${a}" "${b}" "GC_lz_set_marks")

# reclaim.c: GC_lz_marked_bytes, the bytes the last collection marked, which the sweep's
# start has just summed from the blocks' mark counts; rts/heap.c sizes the heap with it
# (Note [Heap sizing]) instead of enumerating the marked objects, which cost up to 8 ms
# per collection with the world stopped.
set(a "GC_INNER void GC_start_reclaim(GC_bool report_if_found)
")
set(b "/* Lz: the bytes of the objects the last collection marked: what         */
/* GC_start_reclaim summed (GC_PRINT_STATS' in-use heap). With the lock. */
GC_API GC_word GC_CALL GC_lz_marked_bytes(void)
{
    return GC_composite_in_use + GC_atomic_in_use;
}

${a}")
lz_patch(reclaim.c "${a}" "${b}" "GC_lz_marked_bytes")

# os_dep.c: the address hint of the next heap mapping, a static, is the end of the last
# one, which is often the first block of an older heap section (Linux maps downwards), so
# the static-roots scan took whatever object began there as live: a list's cell there kept
# the rest of a lazily consumed list (foldl' (+) 0 [1..10^8]: 18 MB at a collection
# instead of 0.4). Exclude the word from the roots (Note [Stale registers], "Boehm's
# mmap hint").
set(a "    GC_ASSERT(GC_page_size != 0);
    if (bytes & (GC_page_size - 1)) ABORT(\"Bad GET_MEM arg\");
    result = mmap(last_addr,")
set(b "    { /* Lz: last_addr is a hint, not a root */
      static GC_bool lz_hint_excluded = FALSE;

      if (!lz_hint_excluded) {
        GC_exclude_static_roots_inner(&last_addr, &last_addr + 1);
        lz_hint_excluded = TRUE;
      }
    }
${a}")
lz_patch(os_dep.c "${a}" "${b}" "Lz: last_addr is a hint, not a root")

# mark.c: GC_lz_before_rescan, a hook called when the marker, its mark stack having
# overflowed, is about to rescan the heap and push the contents of every marked object.
# The runtime marks objects it has not handed out yet (a bump block's tail, stashed
# blocks, free lists: Note [Bump allocation]) so that the sweep leaves them alone; their
# words are stale, and tracing them on a rescan kept garbage alive (a whole collection's
# worth of a lazily consumed list). The hook clears them first (Note [Heap sizing],
# "One collection's spike").
set(a "                if (GC_mark_stack_too_small) {
                    alloc_mark_stack(2*GC_mark_stack_size);
                }
                GC_mark_state = MS_PARTIALLY_INVALID;
")
set(b "${a}                if (GC_lz_before_rescan) GC_lz_before_rescan(); /* Lz */
")
lz_patch(mark.c "${a}" "${b}" "GC_lz_before_rescan) GC_lz_before_rescan")
set(a "GC_API void GC_CALL GC_lz_set_marks(const void *p, const void *q)
")
set(b "/* Lz: called with the world stopped before the marker rescans the heap */
/* for marked objects (after a mark stack overflow); NULL: nothing.       */
GC_API void (*GC_lz_before_rescan)(void) = 0;

${a}")
lz_patch(mark.c "${a}" "${b}" "GC_API void (*GC_lz_before_rescan)(void)")

# mark.c: a collection clears the mark bytes of every block in use (one byte per 8-byte
# granule: 4 MB for a 32 MB heap), with the world stopped. A block with no marked object
# (Boehm keeps hb_n_marks above zero while any is marked) has nothing to clear: its bytes
# were cleared when its header was set up or when it was last cleared, and only marking
# sets them (Note [Clearing marks], docs/notes/threaded-rts.md).
set(a "        /* the bit is cleared once the object is on the free list.      */
    GC_clear_hdr_marks(hhdr);
")
set(b "        /* the bit is cleared once the object is on the free list.      */
    if (0 == hhdr -> hb_n_marks) return; /* Lz: nothing marked, nothing to clear */
    GC_clear_hdr_marks(hhdr);
")
lz_patch(mark.c "${a}" "${b}" "Lz: nothing marked, nothing to clear")

# gc_priv.h, allchblk.c, reclaim.c: a block of the runtime's kind that a collection finds
# empty is kept, header and all, on a list of its object size instead of being freed, and
# the next request for a block of that size and kind takes it back: freeing it coalesced
# it with its neighbours and taking it split it off again and set up its header, and both
# hold Boehm's lock (Note [Recycled blocks], docs/notes/threaded-rts.md). Unmarked, the
# block's marks are clear (Note [Clearing marks]). The lists are per owner (the runtime
# numbers each capability's thread, GC_lz_set_owner), and a thread takes back its own
# blocks first: their lines may still be in its core's caches. Each collection lists the
# emptied blocks afresh; a request that finds no free block frees the listed ones and
# tries again, so blocks kept for one size never make Boehm collect or grow the heap.
set(a "    unsigned short hb_last_reclaimed;
")
set(b "${a}    unsigned short hb_lz_owner; /* Lz: whose block (Note [Recycled blocks]) */
")
lz_patch(include/private/gc_priv.h "${a}" "${b}" "hb_lz_owner")
set(a "# define ANY_INDEX 23")
set(b "/* Lz: recycled blocks (allchblk.c): owners, the largest object size  */
/* in granules, the kind (-1: none) and the lists, by owner and size.   */
# define GC_LZ_OWNERS 16
# define GC_LZ_RECYCLE_MAXG 32
GC_EXTERN int GC_lz_recycle_kind;
GC_EXTERN struct hblk *GC_lz_empty_blocks[GC_LZ_OWNERS][GC_LZ_RECYCLE_MAXG + 1];
GC_EXTERN GC_bool GC_lz_have_empty_blocks;

${a}")
lz_patch(include/private/gc_priv.h "${a}" "${b}" "GC_LZ_OWNERS")
set(a "GC_INNER struct hblk *
GC_allochblk(size_t sz, int kind, unsigned flags/* IGNORE_OFF_PAGE or 0 */)
{
")
set(b "GC_INNER int GC_lz_recycle_kind = -1;
GC_INNER struct hblk *GC_lz_empty_blocks[GC_LZ_OWNERS][GC_LZ_RECYCLE_MAXG + 1];
GC_INNER GC_bool GC_lz_have_empty_blocks = FALSE;
static __thread unsigned short GC_lz_owner; /* 0 until set */

/* Lz: recycle the emptied blocks of kind k. The lists are not roots (a */
/* head's first object would be marked and its stale words traced).    */
GC_API void GC_CALL GC_lz_set_recycle_kind(int k)
{
    DCL_LOCK_STATE;

    LOCK();
    GC_exclude_static_roots_inner(GC_lz_empty_blocks,
                                  (char *)GC_lz_empty_blocks
                                  + sizeof(GC_lz_empty_blocks));
    GC_lz_recycle_kind = k;
    UNLOCK();
}

GC_API void GC_CALL GC_lz_set_owner(unsigned owner)
{
    GC_lz_owner = (unsigned short)(owner % GC_LZ_OWNERS);
}

STATIC void GC_lz_free_empty_blocks(void)
{
    size_t o, lg;

    for (o = 0; o < GC_LZ_OWNERS; o++)
      for (lg = 0; lg <= GC_LZ_RECYCLE_MAXG; lg++) {
        struct hblk *h = GC_lz_empty_blocks[o][lg];

        GC_lz_empty_blocks[o][lg] = 0;
        while (h != 0) {
          struct hblk *next = HDR(h) -> hb_next;

          GC_freehblk(h);
          h = next;
        }
      }
    GC_lz_have_empty_blocks = FALSE;
}

STATIC struct hblk *GC_lz_allochblk_fresh(size_t sz, int kind, unsigned flags);

GC_INNER struct hblk *
GC_allochblk(size_t sz, int kind, unsigned flags/* IGNORE_OFF_PAGE or 0 */)
{
    struct hblk *h;

    GC_ASSERT(I_HOLD_LOCK());
    if (kind != GC_lz_recycle_kind)
      return GC_lz_allochblk_fresh(sz, kind, flags);
    if (GC_lz_have_empty_blocks && 0 == flags
        && sz <= GRANULES_TO_BYTES(GC_LZ_RECYCLE_MAXG)) {
      size_t lg = BYTES_TO_GRANULES(sz), i;

      for (i = 0; i < GC_LZ_OWNERS; i++) { /* its own first */
        size_t o = (GC_lz_owner + i) % GC_LZ_OWNERS;

        h = GC_lz_empty_blocks[o][lg];
        if (h != 0) {
          hdr *hhdr = HDR(h);

          GC_ASSERT(hhdr -> hb_sz == sz && 0 == hhdr -> hb_n_marks);
          GC_lz_empty_blocks[o][lg] = hhdr -> hb_next;
          hhdr -> hb_next = 0;
          hhdr -> hb_last_reclaimed = (unsigned short)GC_gc_no;
          hhdr -> hb_lz_owner = GC_lz_owner;
          GC_fail_count = 0;
          return h;
        }
      }
    }
    h = GC_lz_allochblk_fresh(sz, kind, flags);
    if (0 == h && GC_lz_have_empty_blocks) {
      GC_lz_free_empty_blocks();
      h = GC_lz_allochblk_fresh(sz, kind, flags);
    }
    if (h != 0) HDR(h) -> hb_lz_owner = GC_lz_owner;
    return h;
}

STATIC struct hblk *
GC_lz_allochblk_fresh(size_t sz, int kind, unsigned flags)
{
")
lz_patch(allchblk.c "${a}" "${b}" "GC_lz_allochblk_fresh")

set(a "          /* else */ {
            GC_bytes_found += HBLKSIZE;
            GC_freehblk(hbp);
          }
")
set(b "          /* else */ {
            GC_bytes_found += HBLKSIZE;
            if ((int)hhdr -> hb_obj_kind == GC_lz_recycle_kind
                && sz <= GRANULES_TO_BYTES(GC_LZ_RECYCLE_MAXG)) {
              struct hblk **list = /* Lz: keep it for reuse */
                  &GC_lz_empty_blocks[hhdr -> hb_lz_owner][BYTES_TO_GRANULES(sz)];

              hhdr -> hb_next = *list;
              *list = hbp;
              GC_lz_have_empty_blocks = TRUE;
            } else {
              GC_freehblk(hbp);
            }
          }
")
lz_patch(reclaim.c "${a}" "${b}" "Lz: keep it for reuse")
set(a "  /* Go through all heap blocks (in hblklist) and reclaim unmarked objects */
")
set(b "    /* Lz: the listed blocks are still in use, unmarked: listed afresh below */
    BZERO(GC_lz_empty_blocks, sizeof(GC_lz_empty_blocks));
    GC_lz_have_empty_blocks = FALSE;

${a}")
lz_patch(reclaim.c "${a}" "${b}" "listed afresh below")

# Every mapping on a huge-page boundary, advised MADV_HUGEPAGE, and the heap's growth and
# the header store's chunks in whole huge pages (Note [Huge pages], docs/notes/threaded-rts.md):
# a first touch costs a trip through the hypervisor per page, and the headers (8 KB of mark
# bytes per 64 KB block) came in 1 MB chunks of 4 KB pages.
set(a "# define ANY_INDEX 23")
set(b "# define LZ_MAP_ALIGN ((size_t)2 << 20) /* Lz: a huge page */
${a}")
lz_patch(include/private/gc_priv.h "${a}" "${b}" "LZ_MAP_ALIGN")
set(a "${lz_mmap_blocks}")
set(b "    result = mmap(last_addr, bytes + LZ_MAP_ALIGN - GC_page_size, (PROT_READ | PROT_WRITE)
                                    | (GC_pages_executable ? PROT_EXEC : 0),
                  GC_MMAP_FLAGS | OPT_MAP_ANON, zero_fd, 0/* offset */);
#   undef IGNORE_PAGES_EXECUTABLE
    /* Lz: mmap aligns to pages only; keep the part aligned to a huge   */
    /* page (so also to HBLKSIZE), advised to use them.                 */
    if (result != MAP_FAILED) {
      ptr_t lz_end = (ptr_t)result + bytes + LZ_MAP_ALIGN - GC_page_size;
      ptr_t lz_start = (ptr_t)(((word)result + LZ_MAP_ALIGN - 1)
                               & ~(word)(LZ_MAP_ALIGN - 1));
      if (lz_start != (ptr_t)result)
        munmap(result, (size_t)(lz_start - (ptr_t)result));
      if (lz_start + bytes != lz_end)
        munmap(lz_start + bytes, (size_t)(lz_end - (lz_start + bytes)));
      result = lz_start;
#     ifdef MADV_HUGEPAGE
        (void)madvise(result, bytes, MADV_HUGEPAGE); /* fails: no THP, fine */
#     endif
    }
")
lz_patch(os_dep.c "${a}" "${b}" "Lz: mmap aligns to pages only; keep the part aligned to a huge")
set(a "    bytes = ROUNDUP_PAGESIZE((size_t)n * HBLKSIZE);
")
set(b "    bytes = ((size_t)n * HBLKSIZE + LZ_MAP_ALIGN - 1)
            & ~(LZ_MAP_ALIGN - 1); /* Lz: whole huge pages */
")
lz_patch(alloc.c "${a}" "${b}" "Lz: whole huge pages")
set(a "        bytes_to_get = ROUNDUP_PAGESIZE_IF_MMAP(MINHINCR * HBLKSIZE);
")
set(b "        bytes_to_get = LZ_MAP_ALIGN; /* Lz: a huge page at a time */
")
lz_patch(headers.c "${a}" "${b}" "Lz: a huge page at a time")

# alloc.c: GC_scratch_recycle_inner gives the heap the whole pages of a scratch area it no
# longer needs (an outgrown mark stack or heap-section table), but GC_add_to_heap needs
# whole HBLKSIZE blocks: with 64 KB blocks a 4 KB-aligned area became a section whose
# blocks ran over the headers beside it (a mark stack in a 2 MB scratch chunk: queens 14
# at -N2 crashed in every run). Align to blocks instead.
set(a "  page_offset = (word)ptr & (GC_page_size - 1);
  if (page_offset != 0)
    displ = GC_page_size - page_offset;
  recycled_bytes = bytes > displ ? (bytes - displ) & ~(GC_page_size - 1) : 0;
")
set(b "  page_offset = (word)ptr & (HBLKSIZE - 1); /* Lz: blocks, not pages */
  if (page_offset != 0)
    displ = HBLKSIZE - page_offset;
  recycled_bytes = bytes > displ ? (bytes - displ) & ~(word)(HBLKSIZE - 1) : 0;
")
lz_patch(alloc.c "${a}" "${b}" "Lz: blocks, not pages")

# pthread_support.c: the helper markers' CPU time, which +RTS -s adds to the collecting
# thread's own as GC time (rts/stats.c; GHC sums its GC threads' CPU the same way). Each
# helper reads its thread clock around every mark phase it helps with.
set(a "    GC_help_marker(my_mark_no);
  }
}
")
set(b "    {
      struct timespec lz_t0, lz_t1; /* Lz: GC_lz_marker_cpu_ns */

      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &lz_t0);
      GC_help_marker(my_mark_no);
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &lz_t1);
      __atomic_fetch_add(&GC_lz_marker_ns,
                         (GC_word)((lz_t1.tv_sec - lz_t0.tv_sec) * 1000000000L
                                   + (lz_t1.tv_nsec - lz_t0.tv_nsec)),
                         __ATOMIC_RELAXED);
    }
  }
}

/* Lz: the helper markers' CPU time so far, in ns (not the collecting  */
/* thread's: it marks too, and rts/stats.c reads its own clock).        */
GC_API GC_word GC_CALL GC_lz_marker_cpu_ns(void)
{
  return __atomic_load_n(&GC_lz_marker_ns, __ATOMIC_RELAXED);
}
")
lz_patch(pthread_support.c "${a}" "${b}" "GC_lz_marker_cpu_ns")
set(a "STATIC void * GC_mark_thread(void * id)
")
set(b "static GC_word GC_lz_marker_ns; /* Lz: GC_lz_marker_cpu_ns */

${a}")
lz_patch(pthread_support.c "${a}" "${b}" "static GC_word GC_lz_marker_ns")

# Parking at safe points (Note [Parking for collections], docs/notes/threaded-rts.md): a
# capability that reaches a heap check while another thread is about to collect saves its
# registers and stack pointer (GC_lz_park) and waits; the collector, before it signals
# anybody, marks each parked thread as blocked (GC_lz_set_blocked, with the allocation
# lock held), so it neither signals nor waits for it, and after the world restarts it
# unmarks and releases them. Unlike GC_do_blocking, the parking thread never takes the
# lock, which the collector holds while it waits for it.
set(a "/* Wrapper for functions that are likely to block for an appreciable    */
/* length of time.                                                      */
")
set(b "/* Lz: the calling thread's descriptor, for GC_lz_park and  */
/* GC_lz_set_blocked (the thread must be registered).        */
static __thread GC_thread GC_lz_me; /* for GC_lock: GC_lz_lock_wait */

GC_API void * GC_CALL GC_lz_thread_self(void)
{
    GC_thread me;
    DCL_LOCK_STATE;

    LOCK();
    me = GC_lookup_thread(pthread_self());
    UNLOCK();
    GC_lz_me = me;
    return me;
}

/* Lz: run fn(arg) with the callee-saved registers saved in this frame */
/* and the stack pointer stored, as a signalled thread would have them  */
/* (no getcontext: it makes a system call, and its buffer is only      */
/* partly written, so stale words below the caller would be scanned).  */
STATIC GC_ATTR_NOINLINE void GC_lz_saved_call(void (*fn)(void *), void *arg)
{
    __builtin_unwind_init();
    AO_store_release((volatile AO_t *)&GC_lz_me->stop_info.stack_ptr,
                     (AO_t)GC_approx_sp());
    fn(arg);
    GC_noop1((word)arg); /* not a tail call: this frame stays */
}

/* Lz: park at a safe point: wait(arg) publishes that this thread is   */
/* parked and returns once the collector has released it.              */
GC_API void GC_CALL GC_lz_park(void (GC_CALLBACK *wait)(void *), void *arg)
{
    if (GC_lz_me != NULL) GC_lz_saved_call(wait, arg);
}

/* Lz: the collector, holding the lock, before GC_stop_world signals   */
/* (blocked: skip it, scan from its stored stack pointer) and after    */
/* GC_start_world restarted the others.                                */
GC_API void GC_CALL GC_lz_set_blocked(void *me, int blocked)
{
    GC_ASSERT(I_HOLD_LOCK());
    ((GC_thread)me) -> thread_blocked = (unsigned char)(blocked != 0);
}

${a}")
lz_patch(pthread_support.c "${a}" "${b}" "GC_lz_thread_self")
set(a "  /* Make sure all free list construction has stopped before we start.  */
")
set(b "  if (GC_lz_before_stop) GC_lz_before_stop(); /* Lz: parking */

${a}")
lz_patch(pthread_stop_world.c "${a}" "${b}" "GC_lz_before_stop();")
set(a "#   ifdef DEBUG_THREADS
      GC_log_printf(\"World started\\n\");
#   endif
")
set(b "    if (GC_lz_after_start) GC_lz_after_start(); /* Lz: parking */
${a}")
lz_patch(pthread_stop_world.c "${a}" "${b}" "GC_lz_after_start();")
set(a "GC_INNER void GC_stop_world(void)
{
")
set(b "/* Lz: parking at safe points (rts/sched.c) */
GC_API void (*GC_lz_before_stop)(void) = 0;
GC_API void (*GC_lz_after_start)(void) = 0;

${a}")
lz_patch(pthread_stop_world.c "${a}" "${b}" "GC_API void (*GC_lz_before_stop)(void) = 0;")

# A thread that waits for the allocation lock is at a safe point too: with its registers
# pushed and its stack pointer stored, GC_lock tells the runtime (GC_lz_lock_wait) that it
# waits, and that it got the lock; a collector holding the lock meanwhile may mark it
# blocked instead of signalling it (rts/gcpark.c). It runs no code that touches the heap
# in between, and it gets the lock only after the collection ended.
set(a "# ifndef NO_PTHREAD_TRYLOCK
    GC_INNER void GC_lock(void)
    {
      if (1 == GC_nprocs || is_collecting()) {
        pthread_mutex_lock(&GC_allocate_ml);
      } else {
        GC_generic_lock(&GC_allocate_ml);
      }
    }
")
set(b "# ifndef NO_PTHREAD_TRYLOCK
    GC_API void (*GC_lz_lock_wait)(int) = 0; /* Lz: rts/gcpark.c */

    STATIC void GC_lz_lock(void)
    {
      if (1 == GC_nprocs || is_collecting()) {
        pthread_mutex_lock(&GC_allocate_ml);
      } else {
        GC_generic_lock(&GC_allocate_ml);
      }
    }

    STATIC void GC_lz_lock_inner(void *arg GC_ATTR_UNUSED)
    {
      GC_lz_lock_wait(1);
      GC_lz_lock();
      GC_lz_lock_wait(0);
    }

    GC_INNER void GC_lock(void)
    {
      if (GC_lz_lock_wait != 0 && GC_lz_me != NULL
          && !GC_lz_me -> thread_blocked) { /* Lz: not in GC_do_blocking */
        GC_lz_saved_call(GC_lz_lock_inner, NULL);
      } else {
        GC_lz_lock();
      }
    }
")
lz_patch(pthread_support.c "${a}" "${b}" "GC_lz_lock_inner")

# A thread stopped by the suspend signal is scanned from where the signal interrupted it
# (less the 128-byte red zone), and its registers from a clean copy of the signal context,
# instead of from the handler's frame up: the kernel's signal frame in between is only
# partly written (the padding after uc_stack.ss_flags, the FP area's unused components,
# the high half of the word that ends with the 4-byte FP_XSTATE_MAGIC2), and its stale
# halves can form the address of a heap object. The copy sits in the handler's frame below
# a traced stack section whose saved pointer is the interrupted sp, so GC_push_all_stacks
# scans the copy, skips the signal frame and goes on from there (Note [Signal frames]).
set(a "STATIC void GC_suspend_handler_inner(ptr_t dummy GC_ATTR_UNUSED,
                                     void * context GC_ATTR_UNUSED)
{
  pthread_t self = pthread_self();
  GC_thread me;
")
set(b "#if defined(__x86_64__) && defined(__linux__)
# include <cpuid.h>
# include <ucontext.h>
# define LZ_SIG_WORDS 320 /* 23 registers, 16 XMM, AVX and AVX-512 upper parts: 287 */
  struct lz_sig_copy {
    word regs[LZ_SIG_WORDS];
    struct GC_traced_stack_sect_s sect; /* above regs: the scan skips from here */
  };
  /* XSAVE components 2 (AVX), 5-7 (AVX-512): offset and size in the standard format */
  static unsigned lz_xs_off[8], lz_xs_size[8];
  static volatile AO_t lz_xs_known;

  static void lz_xs_init(void)
  {
    unsigned i, a, b, c, d;

    for (i = 2; i < 8; i++)
      if ((i == 2 || i >= 5) && __get_cpuid_count(0xd, i, &a, &b, &c, &d)) {
        lz_xs_size[i] = a;
        lz_xs_off[i] = b;
      }
    AO_store_release(&lz_xs_known, 1);
  }

  /* Copy what the interrupted code may hold in registers into s, and make */
  /* the scan of me's stack skip the signal frame. 0: context unusable.    */
  static int lz_sig_scan(GC_thread me, void *context, struct lz_sig_copy *s)
  {
    ucontext_t *uc = (ucontext_t *)context;
    const unsigned char *fp;
    unsigned n = NGREG, i;

    if (NULL == uc) return 0;
    memset(s->regs, 0, sizeof(s->regs));
    memcpy(s->regs, uc->uc_mcontext.gregs, NGREG * sizeof(word));
    fp = (const unsigned char *)uc->uc_mcontext.fpregs;
    if (fp != NULL) {
      unsigned long long bv = 2; /* FXSAVE format: the XMM registers only */
      unsigned magic1, xsize = 512;

      memcpy(&magic1, fp + 464, 4); /* struct _fpx_sw_bytes */
      if (0x46505853U == magic1) { /* FP_XSTATE_MAGIC1: an XSAVE area */
        memcpy(&xsize, fp + 480, 4);
        memcpy(&bv, fp + 512, 8); /* XSTATE_BV: the components written */
        if (!AO_load_acquire(&lz_xs_known)) lz_xs_init();
      }
      if (bv & 2) memcpy(s->regs + n, fp + 160, 256); /* XMM0-15 */
      n += 32;
      for (i = 2; i < 8; i++) {
        unsigned words = lz_xs_size[i] / sizeof(word);

        if ((bv >> i & 1) && lz_xs_size[i] != 0
            && lz_xs_off[i] + lz_xs_size[i] <= xsize
            && n + words <= LZ_SIG_WORDS) {
          memcpy(s->regs + n, fp + lz_xs_off[i], lz_xs_size[i]);
          n += words;
        }
      }
    }
    s->sect.saved_stack_ptr = (ptr_t)uc->uc_mcontext.gregs[REG_RSP] - 128;
    s->sect.prev = me->traced_stack_sect;
    me->traced_stack_sect = &s->sect;
    ao_store_async((volatile AO_t *)&me->stop_info.stack_ptr, (AO_t)s->regs);
    return 1;
  }
# define LZ_SIG_DECL struct lz_sig_copy lz_sig; int lz_sig_on = 0;
# define LZ_SIG_STORE(me) \\
    if (!(lz_sig_on = lz_sig_scan(me, context, &lz_sig))) GC_store_stack_ptr(me)
# define LZ_SIG_DONE(me) \\
    if (lz_sig_on) (me)->traced_stack_sect = lz_sig.sect.prev
#else
# define LZ_SIG_DECL
# define LZ_SIG_STORE(me) GC_store_stack_ptr(me)
# define LZ_SIG_DONE(me) (void)0
#endif

${a}  LZ_SIG_DECL /* Lz: signal frames */
")
lz_patch(pthread_stop_world.c "${a}" "${b}" "LZ_SIG_DECL /* Lz: signal frames */")
set(a "  GC_store_stack_ptr(me);
# ifdef E2K
    GC_ASSERT(NULL == me -> backing_store_end);
    GET_PROCEDURE_STACK_LOCAL(&bs_lo, &stack_size);")
set(b "  LZ_SIG_STORE(me); /* Lz */
# ifdef E2K
    GC_ASSERT(NULL == me -> backing_store_end);
    GET_PROCEDURE_STACK_LOCAL(&bs_lo, &stack_size);")
lz_patch(pthread_stop_world.c "${a}" "${b}" "LZ_SIG_STORE(me); /* Lz */")
set(a "# ifdef DEBUG_THREADS
    GC_log_printf(\"Continuing %p\\n\", (void *)self);
# endif")
set(b "  LZ_SIG_DONE(me); /* Lz */
${a}")
lz_patch(pthread_stop_world.c "${a}" "${b}" "LZ_SIG_DONE(me); /* Lz */")

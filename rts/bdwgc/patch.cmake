# Run by ExternalProject in the unpacked Boehm GC 8.2.2 source (cmake -P patch.cmake): two
# small changes for 64 KB heap blocks (Note [Boehm's block size], docs/notes/threaded-rts.md).
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

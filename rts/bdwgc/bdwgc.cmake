# Boehm GC for compiled programs: Debian's 8.2.2 source, built with 64 KB heap blocks.
# Debian's libgc has 4 KB blocks; every 4 KB an allocating capability refills its free list
# under Boehm's global lock, and at -N2 that lock, not the program, set the speed (Note
# [Boehm's block size] in docs/notes/threaded-rts.md). The result is
# ${CMAKE_BINARY_DIR}/liblzgc.a, which lzc and the tests link in place of -lgc, with its
# headers under ${LZ_BDWGC_INCLUDE}; rts/bdwgc/patch.cmake makes the two changes that 64 KB
# blocks need and adds GC_lz_take_blocks and GC_lz_set_marks (Note [Bump allocation]). A
# nested build (the sanitizer tests') passes LZ_BDWGC_DIR, the parent's install prefix,
# instead of downloading and building it again.
include(ExternalProject)
set(LZ_BDWGC_DIR "" CACHE PATH "An installed Boehm GC built by another Lz build directory")
set(LZ_BDWGC_URL http://deb.debian.org/debian/pool/main/libg/libgc/libgc_8.2.2.orig.tar.gz
    CACHE STRING "Where to get Boehm GC 8.2.2's source (an address or a local file; offline: a copy)")
set(LZ_BDWGC_SHA256 f30107bcb062e0920a790ffffa56d9512348546859364c23a14be264b38836a0)
set(LZ_BDWGC_CFLAGS "-O2 -g -DHBLKSIZE=65536")
if(LZ_BDWGC_DIR)
  set(LZ_BDWGC_PREFIX ${LZ_BDWGC_DIR})
  add_custom_target(bdwgc)
else()
set(LZ_BDWGC_PREFIX ${CMAKE_BINARY_DIR}/bdwgc)
find_program(LZ_MAKE NAMES make gmake REQUIRED)
ExternalProject_Add(bdwgc
  URL ${LZ_BDWGC_URL}
  URL_HASH SHA256=${LZ_BDWGC_SHA256}
  DOWNLOAD_DIR ${LZ_BDWGC_PREFIX}/download
  DOWNLOAD_EXTRACT_TIMESTAMP TRUE
  PREFIX ${LZ_BDWGC_PREFIX}
  INSTALL_DIR ${LZ_BDWGC_PREFIX}
  PATCH_COMMAND ${CMAKE_COMMAND} -P ${CMAKE_CURRENT_LIST_DIR}/patch.cmake
  CONFIGURE_COMMAND <SOURCE_DIR>/configure --prefix=<INSTALL_DIR> --enable-static
                    --disable-shared --with-pic --enable-threads=posix --enable-parallel-mark
                    --enable-thread-local-alloc --enable-handle-fork --disable-docs
                    --with-libatomic-ops=none --disable-dependency-tracking --quiet
                    CC=${CMAKE_C_COMPILER} CFLAGS=${LZ_BDWGC_CFLAGS}
  # clean first: the build step runs again only after a new patch or configuration, and
  # the objects (no dependency tracking) would not see a patched header
  BUILD_COMMAND ${LZ_MAKE} --quiet clean COMMAND ${LZ_MAKE} -j2 --quiet
  INSTALL_COMMAND ${LZ_MAKE} install --quiet
  BUILD_BYPRODUCTS <INSTALL_DIR>/lib/libgc.a
  LOG_CONFIGURE TRUE LOG_BUILD TRUE LOG_INSTALL TRUE LOG_OUTPUT_ON_FAILURE TRUE)
# an edited patch.cmake patches (it skips what is done) and rebuilds an existing build tree
ExternalProject_Add_StepDependencies(bdwgc patch ${CMAKE_CURRENT_LIST_DIR}/patch.cmake)
endif()
set(LZ_BDWGC_INCLUDE ${LZ_BDWGC_PREFIX}/include)
file(MAKE_DIRECTORY ${LZ_BDWGC_INCLUDE}) # imported targets may not name a missing directory

set(LZ_GC_ARCHIVE ${CMAKE_BINARY_DIR}/liblzgc.a)
# Ninja takes libgc.a for the build step's (BUILD_BYPRODUCTS), but the install step writes
# it: without the install stamp, a rebuilt Boehm reached liblzgc.a only at the next run
set(LZ_BDWGC_INSTALLED "")
if(NOT LZ_BDWGC_DIR)
  set(LZ_BDWGC_INSTALLED ${LZ_BDWGC_PREFIX}/src/bdwgc-stamp/bdwgc-install)
endif()
add_custom_command(OUTPUT ${LZ_GC_ARCHIVE}
  COMMAND ${CMAKE_COMMAND} -E copy ${LZ_BDWGC_PREFIX}/lib/libgc.a ${LZ_GC_ARCHIVE}
  DEPENDS bdwgc ${LZ_BDWGC_PREFIX}/lib/libgc.a ${LZ_BDWGC_INSTALLED}
  COMMENT "liblzgc.a (Boehm GC with 64 KB blocks)" VERBATIM)
add_custom_target(lzgc_archive ALL DEPENDS ${LZ_GC_ARCHIVE})

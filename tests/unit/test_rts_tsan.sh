#!/usr/bin/env bash
# Build the runtime and its concurrency tests with clang under ThreadSanitizer in a
# separate build directory, and run them: any data race reported fails the test. Used by
# the ctest test unit/rts-tsan (tests/CMakeLists.txt passes the tests to run: the spark
# pool's and the scheduler's); can be run by hand:
#   tests/unit/test_rts_tsan.sh SOURCE_DIR BUILD_DIR CLANG GENERATOR test_rts_sparkpool ...
# The nested build passes -fsanitize=thread through CMAKE_C_FLAGS, so it needs no option
# of its own in the top-level CMakeLists.txt; RelWithDebInfo keeps the interleavings
# close to the real ones (and the stress tests fast enough).
set -euo pipefail
src="$1"; build="$2"; clang="${3:-clang}"; gen="${4:-Ninja}"
shift 4 || true
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
  for f in "$src"/tests/unit/test_rts_sparkpool*.c "$src"/tests/unit/test_rts_sched*.c; do
    [ -e "$f" ] && tests+=("$(basename "$f" .c)")
  done
fi
# The parent build's Boehm GC (rts/bdwgc/bdwgc.cmake), so it is not downloaded and built again.
parent_gc="$(dirname "$build")/bdwgc"
gc_opt=()
[ -f "$parent_gc/lib/libgc.a" ] && gc_opt=(-DLZ_BDWGC_DIR="$parent_gc")
cmake -S "$src" -B "$build" -G "$gen" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${gc_opt[@]}" \
      -DCMAKE_C_COMPILER="$clang" \
      -DCMAKE_C_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
      -DLZ_RTS_SANITIZE_TESTS=OFF -DLZ_RTS_TSAN_TESTS=OFF >/dev/null
cmake --build "$build" --target "${tests[@]}" -- >/dev/null
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1 second_deadlock_stack=1}"
status=0
for t in "${tests[@]}"; do
  echo "== $t (ThreadSanitizer)"
  "$build/tests/$t" || status=1
done
exit $status

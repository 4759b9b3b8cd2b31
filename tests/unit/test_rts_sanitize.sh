#!/usr/bin/env bash
# Build the runtime and its unit tests (tests/unit/test_rts_*.c) with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer in a separate build directory, and run
# them. Used by the ctest test unit/rts-sanitized; can be run by hand:
#   tests/unit/test_rts_sanitize.sh SOURCE_DIR BUILD_DIR [CLANG] [GENERATOR]
set -euo pipefail
src="$1"; build="$2"; clang="${3:-clang}"; gen="${4:-Ninja}"
# The parent build's Boehm GC (rts/bdwgc/bdwgc.cmake), so it is not downloaded and built again.
parent_gc="$(dirname "$build")/bdwgc"
gc_opt=()
[ -f "$parent_gc/lib/libgc.a" ] && gc_opt=(-DLZ_BDWGC_DIR="$parent_gc")
cmake -S "$src" -B "$build" -G "$gen" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER="$clang" "${gc_opt[@]}" \
      -DLZ_SANITIZE=ON -DLZ_RTS_SANITIZE_TESTS=OFF >/dev/null
targets=()
for f in "$src"/tests/unit/test_rts_*.c; do targets+=("$(basename "$f" .c)"); done
cmake --build "$build" --target "${targets[@]}" -- >/dev/null
cd "$build"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"
ctest --output-on-failure -R '^unit/test_rts_'

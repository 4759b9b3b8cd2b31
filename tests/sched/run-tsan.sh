#!/usr/bin/env bash
# run-tsan.sh — the threaded scheduler under ThreadSanitizer: builds the threaded runtime
# (liblzrts_thr.a) with clang -fsanitize=thread in a nested build directory, compiles the
# programs of tests/sched/ with `lzc -threaded` against it, and runs each several times at
# -N2 and -N4; any race report (TSan exits 66) or wrong output fails.
#   tests/sched/run-tsan.sh SOURCE_DIR BUILD_DIR LZC [CLANG]
# Boehm's collector stops the world with signals, which TSan cannot see as
# synchronisation, so its own reports are suppressed (tsan.supp) and collections are
# made rare with a large initial heap; every report from the runtime's own code counts.
set -euo pipefail
src="$1"; build="$2"; lzc="$3"; clang="${4:-clang}"
here="$src/tests/sched"
# The parent build's Boehm GC (rts/bdwgc/bdwgc.cmake), so it is not downloaded and built again.
parent_gc="$(dirname "$build")/bdwgc"
gc_opt=()
[ -f "$parent_gc/lib/libgc.a" ] && gc_opt=(-DLZ_BDWGC_DIR="$parent_gc")
cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${gc_opt[@]}" \
      -DCMAKE_C_COMPILER="$clang" \
      -DCMAKE_C_FLAGS="-fsanitize=thread -fno-omit-frame-pointer" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" \
      -DLZ_RTS_SANITIZE_TESTS=OFF -DLZ_RTS_TSAN_TESTS=OFF >/dev/null
cmake --build "$build" --target lzrts_thr_archive >/dev/null
export LZ_RTS_DIR="$build" CC="$clang" LZC_LINK_FLAGS="-fsanitize=thread"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 suppressions=$here/tsan.supp"
out="$build/sched-tsan"
mkdir -p "$out"
status=0
# alone_phases: a capability running alone, then not (Note [Running alone])
for f in "$here"/*.lz "$src/tests/parallel/alone_phases.lz"; do
  name="$(basename "$f" .lz)"
  expected="${f%.lz}.stdout"
  "$lzc" -O1 -threaded "$f" -o "$out/$name"
  for n in 2 4; do
    for i in 1 2 3; do
      if ! "$out/$name" +RTS -N$n -A256m -RTS >"$out/$name.out" 2>"$out/$name.err"; then
        echo "FAIL $name -N$n run $i (exit $?):"; head -n 40 "$out/$name.err"; status=1; break
      fi
      if ! cmp -s "$out/$name.out" "$expected"; then
        echo "FAIL $name -N$n run $i: wrong output"; status=1; break
      fi
    done
  done
  [ $status = 0 ] && echo "ok $name (-N2, -N4, 3 runs each, no race reported)"
done
exit $status

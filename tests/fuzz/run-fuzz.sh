#!/usr/bin/env bash
# run-fuzz.sh — fuzz the front end with libFuzzer for a while.
#
#   tests/fuzz/run-fuzz.sh SECONDS [LIBFUZZER-FLAGS...]
#
# Configures a separate clang build with -DLZ_FUZZ=ON (build-fuzz/ next to the
# sources, or $LZ_FUZZ_BUILD), builds fuzz_frontend, seeds a fresh corpus with every
# program of tests/golden (and the modules in its subfolders) and tests/reject, and runs
# the fuzzer for SECONDS with a 10 s time-out per input, a 2 GB memory limit and leak
# detection (the arena is freed by lz_reset after each input, so nothing may leak).
# Runs in a scratch directory holding only the seeds' modules (Geometry/Shapes.lz, ...),
# so `import` in a fuzzed input finds those and no stray files.
# Exits 0 if no crash, time-out, leak or out-of-memory was found; otherwise exits 1
# and keeps the scratch directory with the crashing inputs (crash-*, timeout-*,
# leak-*, oom-*) and the log. Extra flags go to the fuzzer (e.g. -jobs=4 -workers=4).
set -euo pipefail

if [ $# -lt 1 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [LIBFUZZER-FLAGS...]" >&2
  exit 2
fi
secs="$1"
shift
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${LZ_FUZZ_BUILD:-$root/build-fuzz}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DLZ_FUZZ=ON >/dev/null
ninja -C "$build" fuzz_frontend >/dev/null
fuzzer="$build/tests/fuzz_frontend"

work="$(mktemp -d "${TMPDIR:-/tmp}/lz-fuzz.XXXXXX")"
mkdir -p "$work/corpus" "$work/artifacts"
n=0
for f in "$root"/tests/golden/*.lz "$root"/tests/golden/*/*.lz \
  "$root"/tests/reject/*.lz "$root"/tests/reject/*/*.lz; do
  [ -f "$f" ] || continue
  n=$((n + 1))
  cp "$f" "$work/corpus/$n-$(basename "$f")"
done
# the seeds' own modules (tests/golden/Geometry/Shapes.lz, ...) next to "fuzz.lz"
for d in "$root"/tests/golden/*/ "$root"/tests/reject/*/; do
  [ -d "$d" ] && cp -r "$d" "$work/"
done
echo "fuzz: $n seed programs, ${secs}s, scratch directory $work"

cd "$work"
set +e
LZ_STDLIB="${LZ_STDLIB:-$root/stdlib}" "$fuzzer" \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -detect_leaks=1 \
  -dict="$here/lz.dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
set -e
tail -n 12 "$work/fuzz.log" | grep -E '^(stat::|Done|#[0-9]+ +DONE)' || true
found="$(ls "$work/artifacts" | head -n 20)"
if [ $rc -ne 0 ] || [ -n "$found" ]; then
  echo "fuzz: FAILED (fuzzer exit status $rc); log: $work/fuzz.log"
  grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|core lint|SUMMARY' "$work/fuzz.log" || true
  for a in $found; do echo "  reproduce: $fuzzer $work/artifacts/$a"; done
  exit 1
fi
echo "fuzz: no crash, time-out or leak in ${secs}s"
rm -rf "$work"

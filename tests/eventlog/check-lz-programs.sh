#!/usr/bin/env bash
# check-lz-programs.sh — the ctest eventlog/lz-programs: logs written by real Lz programs
# (tests/sched/*.lz, built with lzc -threaded) at -N1, -N2 and -N4, with the default
# classes and with one event per spark (-lf), must pass GHC's reader and the invariants
# of check-eventlog.hs (runs follow creates, per-capability time order, RUN/STOP
# alternate, spark counters add up and match the per-spark events).
#   tests/eventlog/check-lz-programs.sh LZC WORKDIR
# Skipped (exit 0) when ghc or ghc-events is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lzc="$1"; work="$2"
mkdir -p "$work"
checker="$("$here/run-check.sh" --build)"
case "$checker" in skipped:*) echo "$checker"; exit 0 ;; esac
for f in "$here"/../sched/*.lz; do
  name="$(basename "$f" .lz)"
  "$lzc" -O1 -threaded "$f" -o "$work/$name"
  for n in 1 2 4; do
    for cls in "" f; do
      log="$work/$name-N$n$cls.eventlog"
      (cd "$work" && "./$name" +RTS -N$n -l$cls -ol"$log" -RTS >"$work/$name.out")
      cmp -s "$work/$name.out" "$here/../sched/$name.stdout" || { echo "FAIL: $name -N$n output"; exit 1; }
      "$checker" -q "$log" || { echo "FAIL: $log"; exit 1; }
    done
  done
  echo "ok $name: -N1/-N2/-N4, -l and -lf logs pass"
done

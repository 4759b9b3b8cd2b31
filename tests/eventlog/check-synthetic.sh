#!/usr/bin/env bash
# check-synthetic.sh — the ctest eventlog/ghc-events: GHC's reader accepts our logs.
#
#   tests/eventlog/check-synthetic.sh TEST_EVENTLOG_BINARY WORKDIR
#
# 1. test_eventlog --write makes a synthetic two-capability log (tens of thousands of
#    events, every kind the writer has); the ghc-events checker must pass it, and
#    `ghc-events show` must print it.
# 2. test_eventlog --write-bad makes a log that breaks the invariants; the checker must
#    fail it, naming each broken invariant (the checker can fail).
# 3. A small par/pseq program compiled by GHC itself (-threaded -eventlog; -O0, since
#    at -O GHC's strictness analysis evaluates the sparked thunks first and every
#    spark fizzles) is run at -N1/-N2/-N4, with and without one event per spark; its
#    logs must pass too: the invariants are GHC's.
# Skipped (exit 0) when ghc or ghc-events is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gen="$1"; work="$2"
mkdir -p "$work"
checker="$("$here/run-check.sh" --build)"
case "$checker" in skipped:*) echo "$checker"; exit 0 ;; esac

"$gen" --write "$work/synthetic.eventlog"
"$checker" "$work/synthetic.eventlog"
if command -v ghc-events >/dev/null 2>&1; then
  ghc-events show "$work/synthetic.eventlog" >"$work/synthetic.txt"
  grep -q "cap 1: running thread 1000001" "$work/synthetic.txt"
  grep -q 'args: \["prog","+RTS","-l","-RTS","x y"\]' "$work/synthetic.txt"
  echo "ghc-events show: $(wc -l <"$work/synthetic.txt") lines"
fi

"$gen" --write-bad "$work/bad.eventlog"
if "$checker" -q "$work/bad.eventlog" >"$work/bad.out"; then
  echo "FAIL: the checker accepted a log that breaks the invariants"; exit 1
fi
for want in "never created" "but no thread is running" "do not add up" "SPARK_CREATE events"; do
  grep -q "$want" "$work/bad.out" || { echo "FAIL: no '$want' in:"; cat "$work/bad.out"; exit 1; }
done
echo "bad log rejected as expected"

# GHC's own log, as a reference for the invariants.
mkdir -p "$work/ghc-par"
if ghc -O0 -threaded -eventlog -rtsopts -outputdir "$work/ghc-par" -o "$work/ghc-par/par" \
       "$here/ghc-par.hs" >"$work/ghc-par.build.log" 2>&1; then
  for opts in "-N2 -lf" "-N4 -lf" "-N2 -l" "-N1 -lf"; do
    (cd "$work" && ./ghc-par/par 26 +RTS $opts -olghc-par.eventlog -RTS >/dev/null)
    "$checker" -q "$work/ghc-par.eventlog"
  done
else
  echo "note: could not build the GHC reference program (see $work/ghc-par.build.log)"
fi

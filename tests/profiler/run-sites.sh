#!/usr/bin/env bash
# run-sites.sh — the ctest profiler/spark-sites: per-`par`-site spark statistics from the
# runtime's own "Lz: spark site" / "Lz: spark" events (Note [Spark sites] in
# docs/notes/lzprof.md) on tests/profiler/sparksites.lz, whose two sites have known fates.
#
#   tests/profiler/run-sites.sh LZPROF LZC WORKDIR
#
# 1. -threaded, +RTS -N2 -lf: `lzprof sparks --tsv` has exactly two sites: spawn's `slow`
#    (2 created, 2 converted, nothing else) and eager's `quick` (3000 created, 3000
#    fizzled, nothing else); no spark names an unknown site; the per-site counts add up to
#    the per-capability ones; slow's median run is over 1 ms.
# 2. -replay (which carries the source-location table), +RTS -N2 -lf: the sites are named
#    with their file:line:col.
# 3. +RTS -N2 -l (no f): no per-spark events, so no site table; --record: the replay log
#    holds no spark events either (the runtime posts them only with -lf).
# The split between converted and fizzled depends on the other capability stealing
# `slow` while the main thread loops (tens of ms); on a machine so loaded that it does
# not, the run is repeated (at most 3 times) and the attempts are printed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lzprof="$1"; lzc="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
want=14713272

# site lines: id crt cnv fiz ovf dud gcd label median
check_sites() { # TSV -> 0 when the two sites are exactly as the program says
  awk -F'\t' '
    $1 != "site" { next }
    { n++ }
    $9 ~ /^Main\.spawn\.slow_/ && $3 == 2 && $4 == 2 && $5 == 0 && $6 == 0 && $7 == 0 && $8 == 0 && $10 > 1000000 { slow++ }
    $9 ~ /^Main\..*quick_/ && $3 == 3000 && $4 == 0 && $5 == 3000 && $6 == 0 && $7 == 0 && $8 == 0 { quick++ }
    END { exit !(n == 2 && slow == 1 && quick == 1) }' "$1"
}

"$lzc" -O1 -threaded "$here/sparksites.lz" -o sparksites >build.log 2>&1 || { cat build.log; echo "FAIL: lzc"; exit 1; }
ok=0
for attempt in 1 2 3; do
  [ "$(./sparksites +RTS -N2 -lf -RTS)" = $want ] || fail "sparksites printed something else"
  "$lzprof" sparks sparksites.eventlog --tsv >sites.tsv
  "$lzprof" sparks sparksites.eventlog >sites.txt
  if check_sites sites.tsv; then ok=1; break; fi
  echo "attempt $attempt: the sites' fates were not the expected split:"; grep '^site' sites.tsv || true
done
cat sites.txt
[ $ok = 1 ] || fail "lzprof sparks: per-site fates are not (slow: 2 created, 2 converted; quick: 3000 created, 3000 fizzled)"
# the per-site counts add up to the capabilities' (created, converted, fizzled)
awk -F'\t' '$1 == "events" { c += $3; v += $10; f += $8 } $1 == "site" { sc += $3; sv += $4; sf += $5 }
  END { if (c != sc || v != sv || f != sf) { print "caps " c "/" v "/" f " sites " sc "/" sv "/" sf; exit 1 } }' sites.tsv ||
  fail "per-site counts do not add up to the per-capability counts"
grep -q 'Per par site:' sites.txt || fail "no per-site table in the report"
grep -q 'verdict: most sparks fizzle' sites.txt || fail "no fizzle verdict"

# ---- 2. source locations (the -replay way carries the table) ----------------------------------
"$lzc" -O1 -replay "$here/sparksites.lz" -o sparksites_r >build_r.log 2>&1 || { cat build_r.log; fail "lzc -replay"; }
if [ -x sparksites_r ]; then
  [ "$(./sparksites_r +RTS -N2 -lf -RTS)" = $want ] || fail "sparksites_r printed something else"
  "$lzprof" sparks sparksites_r.eventlog --tsv >sites_r.tsv
  grep -qE '^site	.*	Main\.spawn\.slow_[0-9]+ [^	]*sparksites\.lz:30:' sites_r.tsv ||
    { cat sites_r.tsv; fail "-replay: slow's site has no source location (sparksites.lz:30)"; }
  grep -qE '^site	.*quick_[0-9]+ [^	]*sparksites\.lz:20:' sites_r.tsv ||
    fail "-replay: quick's site has no source location (sparksites.lz:20)"
  # ---- 3b. a recording posts no spark events ----------------------------------------------------
  ./sparksites_r +RTS -N2 --record=rec.lzr -RTS >/dev/null || fail "--record run"
  set +e; "$lzprof" sparks rec.lzr >/dev/null 2>rec.err; rc=$?; set -e
  [ $rc = 1 ] && grep -q 'no spark events' rec.err || { cat rec.err; fail "a --record log has spark events"; }
fi

# ---- 3. without -lf: nothing per spark ------------------------------------------------------------
./sparksites +RTS -N2 -l -ol"plain.eventlog" -RTS >/dev/null
"$lzprof" sparks plain.eventlog --tsv >plain.tsv
if grep -qE '^site' plain.tsv; then fail "+RTS -l (no f): site lines"; fi
awk -F'\t' '$1 == "events" && ($3 || $4 || $5 || $6 || $7 || $8 || $9) { bad = 1 } END { exit bad }' plain.tsv ||
  fail "+RTS -l (no f): per-spark events in the log"
if command -v ghc-events >/dev/null 2>&1; then
  ghc-events show sparksites.eventlog >lf.txt
  [ "$(grep -c 'cap [01]: Lz: spark$' lf.txt)" = "$(grep -cE 'cap [01]: (spark (created|fizzled|dud|overflowed|GCed)|running a local spark|stealing a spark)' lf.txt)" ] ||
    fail "ghc-events: not one Lz spark event per spark event"
  if ghc-events show plain.eventlog | grep -q 'cap [01]: Lz: spark'; then fail "+RTS -l (no f): Lz spark events"; fi
fi

[ $fails = 0 ] && echo "spark sites: all checks passed" || { echo "$fails check(s) failed"; exit 1; }

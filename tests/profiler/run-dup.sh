#!/usr/bin/env bash
# run-dup.sh — the ctest profiler/dup: `lzprof dup PROG LOG`, the duplicate-work report
# (Note [Duplicate work] in docs/notes/lzprof.md), on small recorded programs whose
# answers are known.
#
#   tests/profiler/run-dup.sh LZPROF LZC WORKDIR
#
# 1. dupwaste.lz: a par site (line 16, `w`) whose sparks the other capability converts
#    and nobody uses: every converted spark is reported thrown away, at that site, and no
#    duplicate evaluation; --json agrees.
# 2. dupused.lz: every spark's value is used: "no duplicate work".
# 3. duplazy.lz with lazy blackholing (+RTS $LZ_LAZY_FLAG, default --lazy-blackholing) at
#    -N2: a spark thread and the main thread both evaluate `shared` (line 13): the report
#    names that line with two evaluations (one of them usually cut off by the exit). Skipped, with a message, while the runtime does
#    not know the flag.
# 4. Bad input: a binary built without -replay, a log of another binary, a truncated log,
#    a plain event log, a missing log: a clear message and exit status 1.
# Programs are built with -O0, which keeps the thunks' source locations.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lzprof="$1"; lzc="$2"; work="$3"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
lazy_flag="${LZ_LAZY_FLAG:---lazy-blackholing}"

for p in dupwaste dupused duplazy; do
  "$lzc" -O0 -replay "$here/$p.lz" -o $p >build-$p.log 2>&1 || { cat build-$p.log; fail "lzc $p"; }
done

# ---- 1. sparks thrown away ---------------------------------------------------------------
./dupwaste +RTS -N2 --record=waste.lzr -RTS >waste.out || fail "dupwaste recording"
"$lzprof" dup ./dupwaste waste.lzr --keep waste.dup >waste.txt 2>waste.err || { cat waste.err; fail "lzprof dup dupwaste"; }
cat waste.txt
conv=$(awk -F'\t' '$1 == "sparks_run" { print $2 }' waste.dup)
unfin=$(awk -F'\t' '$1 == "sparks_unfinished" { print $2 }' waste.dup)
thrown=$(awk -F'\t' '$1 == "spark" { n++ } END { print n + 0 }' waste.dup)
at_site=$(awk -F'\t' '$1 == "spark" && $9 ~ /dupwaste\.lz:16:/ { n++ } END { print n + 0 }' waste.dup)
[ -n "$conv" ] && [ "$conv" -gt 0 ] || fail "dupwaste: no spark was converted (the other capability never stole one)"
# every converted spark is thrown away, but for one the program's exit may cut short
[ "$((thrown + unfin))" = "$conv" ] && [ "$unfin" -le 1 ] ||
  fail "dupwaste: $thrown sparks thrown away and $unfin unfinished at exit, $conv converted"
[ "$thrown" -gt 0 ] || fail "dupwaste: no spark thrown away"
[ "$at_site" = "$thrown" ] || fail "dupwaste: $at_site of $thrown thrown-away sparks name dupwaste.lz:16"
grep -q "^dup	" waste.dup && fail "dupwaste: a duplicate evaluation was reported"
grep -qE "^total: 0 evaluations duplicated, $thrown sparks? thrown away \(of $conv converted\)" waste.txt ||
  fail "dupwaste: the total line"
grep -qE "^ +[0-9.]+ +[0-9.]+ +0 +0 +0 +$thrown  .*dupwaste\.lz:16:" waste.txt || fail "dupwaste: the per-site line"
awk '$1 == "1" && $3 == "'"$thrown"'" && $4 > 0 { ok = 1 } END { exit !ok }' <(sed -n '/^per capability/,/^$/p' waste.txt) ||
  fail "dupwaste: capability 1's line (its sparks and wasted time)"
"$lzprof" dup ./dupwaste waste.lzr --json >waste.json || fail "lzprof dup --json"
python3 - "$thrown" <<'PY' || fail "dupwaste: --json"
import json, sys
d = json.load(open("waste.json"))
n = int(sys.argv[1])
assert d["sparks_thrown_away"] == n and d["duplicate_evaluations"] == 0, d
assert d["per_site"][0]["sparks_thrown_away"] == n and "dupwaste.lz:16:" in d["per_site"][0]["site"]
assert sum(c["wasted_ns"] for c in d["per_capability"]) == d["wasted_ns"] > 0
assert len(d["wasted"]) == n and all(w["start_ns"] <= w["end_ns"] for w in d["wasted"])
PY

# ---- 2. no waste -----------------------------------------------------------------------------
./dupused +RTS -N2 --record=used.lzr -RTS >used.out || fail "dupused recording"
"$lzprof" dup ./dupused used.lzr >used.txt 2>used.err || { cat used.err; fail "lzprof dup dupused"; }
cat used.txt
grep -q "^no duplicate work" used.txt || fail "dupused: waste reported"

# ---- 3. lazy blackholing: a duplicated thunk -----------------------------------------------
if ./duplazy +RTS "$lazy_flag" -RTS >/dev/null 2>lazyprobe.err; then
  found=0
  for attempt in 1 2 3 4 5; do # the race is real: both must start on `shared` before either finishes
    ./duplazy +RTS -N2 "$lazy_flag" --record=lazy.lzr -RTS >lazy.out || fail "duplazy recording"
    "$lzprof" dup ./duplazy lazy.lzr --keep lazy.dup >lazy.txt 2>lazy.err || { cat lazy.err; fail "lzprof dup duplazy"; break; }
    if grep -qE "^ +[0-9.]+ +[0-9.]+ +1 +1 +2 +[0-9]+  .*duplazy\.lz:13:" lazy.txt; then found=1; break; fi
    echo "attempt $attempt: no duplicate of duplazy.lz:13 in this recording:"; cat lazy.txt
  done
  cat lazy.txt
  [ $found = 1 ] || fail "duplazy: the report does not name duplazy.lz:13 with two evaluations"
else
  echo "SKIPPED (lazy duplicate test): the runtime does not know +RTS $lazy_flag yet: $(head -1 lazyprobe.err)"
fi

# ---- 3b. the report's arithmetic on a made-up report (--report): a duplicate nested in
# another of the same thread counts once in the totals, in full in its own site's line -----
printf 'lz-dup-report 1\nprogram\tfake\ncapabilities\t2\nrun_ns\t1000000\nsparks_run\t3\nsparks_unfinished\t0\n# header\n' >fake.dup
printf 'dup\t0:8\t-\t1\t2\t100000\t300000\t150000\tMain.inner a.lz:3:1\n' >>fake.dup
printf 'dup\t0:16\t-\t1\t2\t100000\t400000\t250000\tMain.outer a.lz:2:1\n' >>fake.dup
printf 'dup\t0:16\t-\t0\t1\t500000\t600000\t100000\tMain.outer a.lz:2:1\n' >>fake.dup
printf 'spark\t0:24\t0:1\t1\t3\t700000\t900000\t200000\tMain.w a.lz:5:1 with spaces\n' >>fake.dup
printf 'end\t3\t1\n' >>fake.dup
"$lzprof" dup --report fake.dup >fake.txt || fail "lzprof dup --report"
cat fake.txt
grep -q '^total: 3 evaluations duplicated, 1 spark thrown away (of 3 converted); wasted 0.550 ms = 27.5 %' fake.txt ||
  fail "--report: totals (nested 0.150 ms counted once)"
grep -qE '^ +0\.350 +17\.5 +2 +1 +3 +0  Main\.outer a\.lz:2:1$' fake.txt || fail "--report: outer's site line"
grep -qE '^ +0\.150 +7\.5 +1 +1 +2 +0  Main\.inner a\.lz:3:1$' fake.txt || fail "--report: inner's site line"
grep -qE '^ +1 +2 +1 +0\.450 +45\.0$' fake.txt || fail "--report: capability 1"
grep -qE '^  \(nested\) +0:8 ' fake.txt || fail "--report: the nested one is marked"
head -n 7 fake.dup >cut.dup
"$lzprof" dup --report cut.dup >/dev/null 2>cut.err && fail "--report of a cut report succeeded"
grep -q "not a whole duplicate-work report" cut.err || fail "--report of a cut report: message"

# ---- 4. bad input ------------------------------------------------------------------------------
expect_error() { # WHAT PATTERN ARGS...: exit status 1 and the message
  local what="$1" pat="$2"; shift 2
  "$lzprof" dup "$@" >bad.out 2>bad.err; local rc=$?
  [ $rc = 1 ] || fail "$what: exit status $rc, not 1"
  grep -qE "$pat" bad.err || { cat bad.err; fail "$what: no message matching '$pat'"; }
}
"$lzc" -O0 -threaded "$here/dupused.lz" -o plain >build-plain.log 2>&1 || fail "lzc -threaded"
expect_error "a binary without -replay" "not built with lzc -replay" ./plain used.lzr
expect_error "another binary's log" "recorded by a different binary" ./dupwaste used.lzr
head -c $(($(stat -c %s waste.lzr) / 2)) waste.lzr >cut.lzr
expect_error "a truncated log" "cut\.lzr" ./dupwaste cut.lzr
./plain +RTS -N2 -l -ol"plain.eventlog" -RTS >/dev/null || fail "plain event log"
expect_error "a plain event log, a binary without -replay" "not built with lzc -replay" ./plain plain.eventlog
expect_error "a plain event log (replay binary)" "plain event log .*--record" ./dupused plain.eventlog
expect_error "a missing log" "nothing\.lzr" ./dupused nothing.lzr
"$lzprof" dup ./dupused >/dev/null 2>&1; [ $? = 2 ] || fail "usage: exit status 2"
# the runtime's own checks of the flag
./dupused +RTS --dup-report=x -RTS >/dev/null 2>flag.err && fail "--dup-report without --replay ran"
grep -q "give --replay" flag.err || fail "--dup-report without --replay: message"

[ $fails = 0 ] && echo "profiler/dup: all checks passed"
exit $((fails > 0))

#!/usr/bin/env bash
# run-tests.sh — the ctest profiler/lzprof: lzprof against GHC's own reader and against a
# generator that knows what it wrote.
#
#   tests/profiler/run-tests.sh LZPROF GEN_EVENTLOG WORKDIR
#
# 1. The committed GHC logs (fixtures/): `sparks` and `threads` numbers equal what
#    ghc-events says (fixtures/*.expect, and a fresh `ghc-events show` when installed);
#    threads' times add up; --sort and --cap behave; the timeline HTML has no http(s)
#    reference and a row per capability, its script runs under node (page-check.js:
#    draws, zooms, pans, clicks) when node is installed; the SVG is well-formed XML.
# 2. A synthetic log with Lz's spark-site events: every count equals the generator's.
# 3. Truncated and corrupt logs: exit status 1 and a message naming the byte offset.
# 4. A million-event synthetic log: timeline HTML in under 5 s and under 5 MB.
# 5. With ghc and the `parallel` package: a fresh GHC log (parprog.hs, -O1 -threaded
#    -eventlog, +RTS -N2 -lf) passes the checks of 1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lzprof="$1"; gen="$2"; work="$3"
mkdir -p "$work"
cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
have() { command -v "$1" >/dev/null 2>&1; }

lzprof_numbers() { # what lzprof says, in expect-from-ghc-events.sh's format
  { "$lzprof" sparks "$1" --tsv | grep -E '^(events|counters)	'
    "$lzprof" threads "$1" --tsv | grep -E '^(stops|runs)	'; } | LC_ALL=C sort
}

check_threads() { # LOG: times add up, sorting and --cap
  local log="$1"
  "$lzprof" threads "$log" --tsv >threads.tsv
  awk -F'\t' '
    $1 == "span_ns" { span = $2 }
    $1 == "capability_running_ns" { caprun = $2 }
    $1 == "total" { total_run = $4 }
    $1 ~ /^[0-9]+$/ { n++; created[n] = $3; life[n] = $4 + $5 + $6; id[n] = $1 }
    END {
      if (total_run != caprun) { print "threads: running total " total_run " != capabilities running " caprun; exit 1 }
      for (i = 1; i <= n; i++) if (life[i] > span - created[i] + 1) { print "thread " id[i] ": run+runnable+blocked " life[i] " > lifetime " span - created[i]; exit 1 }
      if (n == 0) { print "threads: no threads"; exit 1 }
    }' threads.tsv || fail "threads totals inconsistent for $log"
  "$lzprof" threads "$log" --tsv --sort run | awk -F'\t' '$1 ~ /^[0-9]+$/ { if (NR > 2 && $4 > prev) bad = 1; prev = $4 } END { exit bad }' ||
    fail "threads --sort run is not in decreasing order of running time ($log)"
  local r0 r1 all
  r0=$("$lzprof" threads "$log" --tsv --cap 0 | awk -F'\t' '$1 == "total" { print $4 }')
  r1=$("$lzprof" threads "$log" --tsv --cap 1 | awk -F'\t' '$1 == "total" { print $4 }')
  all=$(awk -F'\t' '$1 == "total" { print $4 }' threads.tsv)
  [ "$((r0 + r1))" = "$all" ] || fail "threads --cap 0 ($r0) + --cap 1 ($r1) != all ($all) for $log"
  if "$lzprof" threads "$log" --cap 7 >/dev/null 2>&1; then fail "threads --cap 7 accepted on a 2-capability log"; fi
}

check_timeline() { # LOG NAME
  local log="$1" name="$2"
  "$lzprof" timeline "$log" -o "$name.html" 2>/dev/null || { fail "timeline $log"; return; }
  "$lzprof" timeline "$log" -o "$name.svg" || { fail "timeline svg $log"; return; }
  if grep -qiE 'https?://' "$name.html"; then fail "$name.html refers to the network"; fi
  if grep -qiE '<(script|link|img|iframe)[^>]* (src|href)=' "$name.html"; then fail "$name.html loads an external resource"; fi
  grep -q '"ncaps":2,' "$name.html" || fail "$name.html: not 2 capabilities"
  grep -q '"intervals":{"counts":\[[0-9]*,[0-9]*\]' "$name.html" || fail "$name.html: no interval rows for both capabilities"
  grep -q 'fillText("cap " + c' "$name.html" || fail "$name.html: no capability row labels"
  if have node; then
    node "$here/page-check.js" "$name.html" --expect-exact >"$name.page.log" || { cat "$name.page.log"; fail "$name.html: the page's script failed"; }
  fi
  grep -q 'id="cap0"' "$name.svg" && grep -q 'id="cap1"' "$name.svg" || fail "$name.svg: capability rows missing"
  if have xmllint; then
    xmllint --noout "$name.svg" || fail "$name.svg is not well-formed XML"
  elif have python3; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$name.svg" || fail "$name.svg is not well-formed XML"
  fi
}

check_ghc_log() { # LOG NAME [EXPECT]
  local log="$1" name="$2" expect="${3:-}"
  lzprof_numbers "$log" >"$name.lzprof"
  if [ -n "$expect" ]; then
    diff "$expect" "$name.lzprof" >"$name.diff" || { cat "$name.diff"; fail "$log: lzprof's numbers differ from $expect"; }
  fi
  if have ghc-events; then
    "$here/expect-from-ghc-events.sh" "$log" 2 >"$name.ghc-events"
    diff "$name.ghc-events" "$name.lzprof" >"$name.diff" || { cat "$name.diff"; fail "$log: lzprof's numbers differ from ghc-events show"; }
  fi
  "$lzprof" sparks "$log" >"$name.sparks.txt" || fail "sparks $log"
  grep -q '^verdict: ' "$name.sparks.txt" || fail "$log: sparks printed no verdict"
  check_threads "$log"
  check_timeline "$log" "$name"
}

# ---- 1. committed GHC logs ---------------------------------------------------------------
for f in "$here"/fixtures/*.eventlog; do
  n=$(basename "$f" .eventlog)
  check_ghc_log "$f" "$n" "${f%.eventlog}.expect"
  echo "fixture $n: checked"
done
grep -q '^  ctr ' parprog-N2-lf.sparks.txt && grep -q 'per-spark events and counters agree' parprog-N2-lf.sparks.txt ||
  fail "sparks: per-spark events and counters do not agree on parprog-N2-lf"

# ---- 2. synthetic log with spark sites -----------------------------------------------------
"$gen" synthetic.eventlog --sites --events 30000 2>/dev/null >synthetic.expect
sed -n 's/^expect //p' synthetic.expect | grep -E '^(events|stops|runs)	' | LC_ALL=C sort >synthetic.want
{ "$lzprof" sparks synthetic.eventlog --tsv | grep -E '^events	'
  "$lzprof" threads synthetic.eventlog --tsv | grep -E '^(stops|runs)	'; } | LC_ALL=C sort >synthetic.got
diff synthetic.want synthetic.got || fail "synthetic: lzprof's counts differ from the generator's"
sed -n 's/^expect site	//p' synthetic.expect >sites.want
"$lzprof" sparks synthetic.eventlog --tsv | sed -n 's/^site	//p' | cut -f1-7 >sites.got
[ -s sites.want ] && diff sites.want sites.got || fail "synthetic: per-site counts differ from the generator's"
"$lzprof" sparks synthetic.eventlog >synthetic.sparks.txt
grep -q 'Main.pfib examples/pfib.lz:12:17' synthetic.sparks.txt || fail "synthetic: sparks does not name the par sites"
check_threads synthetic.eventlog
check_timeline synthetic.eventlog synthetic
grep -q 'Main.pfib examples/pfib.lz:12:17' synthetic.html || fail "synthetic.html: no site names"
# Note [Reading in time order]: merging the capabilities' streams gives what sorting an
# index of every event gives (LZPROF_INDEX=1 forces the index, used for unordered logs)
for log in synthetic.eventlog "$here/fixtures/parprog-N2-lf.eventlog"; do
  for cmd in "sparks --tsv" "threads --tsv" "export --chrome merge.json" "timeline -o merge.svg"; do
    # shellcheck disable=SC2086
    "$lzprof" $cmd "$log" >merge.out 2>&1; [ -f merge.json ] && cat merge.json >>merge.out; [ -f merge.svg ] && cat merge.svg >>merge.out
    rm -f merge.json merge.svg
    # shellcheck disable=SC2086
    LZPROF_INDEX=1 "$lzprof" $cmd "$log" >index.out 2>&1; [ -f merge.json ] && cat merge.json >>index.out; [ -f merge.svg ] && cat merge.svg >>index.out
    rm -f merge.json merge.svg
    cmp -s merge.out index.out || fail "$log: lzprof $cmd differs between the stream merge and the sorted index"
  done
done
echo "synthetic log: checked"

# ---- 3. broken logs ----------------------------------------------------------------------
src="$here/fixtures/parprog-N2-lf.eventlog"
size=$(wc -c <"$src")
broken() { # NAME WHAT: lzprof must exit 1 with a byte offset, for every command
  for cmd in sparks threads "timeline -o $1.html"; do
    set +e
    # shellcheck disable=SC2086
    "$lzprof" $cmd "$1" >/dev/null 2>"$1.err"
    rc=$?
    set -e
    [ "$rc" = 1 ] || fail "$2: lzprof $cmd exited $rc (want 1)"
    grep -q "byte [0-9]*: " "$1.err" || { cat "$1.err"; fail "$2: no byte offset in the message"; }
  done
}
head -c $((size - 7)) "$src" >cut-end.eventlog; broken cut-end.eventlog "truncated inside the last events"
head -c $((size / 2)) "$src" >cut-half.eventlog; broken cut-half.eventlog "truncated in the middle"
head -c 300 "$src" >cut-header.eventlog; broken cut-header.eventlog "truncated in the header"
printf 'this is not an event log at all\n' >garbage.eventlog; broken garbage.eventlog "not an event log"
# an undeclared event type: overwrite the first event's type after "datb" with 0x7777
off=$(grep -abo datb "$src" | head -1 | cut -d: -f1)
cp "$src" undeclared.eventlog
printf '\x77\x77' | dd of=undeclared.eventlog bs=1 seek=$((off + 4)) conv=notrunc 2>/dev/null
broken undeclared.eventlog "undeclared event type"
grep -q "not declared" undeclared.eventlog.err || fail "undeclared type: message does not say so"
set +e; "$lzprof" sparks /nonexistent.eventlog 2>/dev/null; rc=$?; set -e
[ "$rc" = 1 ] || fail "missing file: exit $rc"
cat cut-half.eventlog.err
echo "broken logs: rejected"

# ---- 4. a million events -----------------------------------------------------------------
"$gen" big.eventlog --events 1000000 2>/dev/null >big.expect
t0=$(date +%s%N)
"$lzprof" timeline big.eventlog -o big.html 2>/dev/null
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000)); bytes=$(wc -c <big.html)
echo "million events: timeline in $ms ms, $bytes bytes of HTML"
[ "$ms" -lt 5000 ] || fail "timeline of a million events took $ms ms"
[ "$bytes" -lt 5000000 ] || fail "timeline of a million events is $bytes bytes"
if grep -qiE 'https?://' big.html; then fail "big.html refers to the network"; fi
if have node; then
  node "$here/page-check.js" big.html >big.page.log || { cat big.page.log; fail "big.html: the page's script failed"; }
  grep '^first draw' big.page.log
fi
sed -n 's/^expect //p' big.expect | grep -E '^events	' >big.want
"$lzprof" sparks big.eventlog --tsv | grep -E '^events	' >big.got
diff big.want big.got || fail "million events: spark counts differ from the generator's"

# ---- 5. a fresh GHC log ------------------------------------------------------------------
if have ghc && ghc-pkg --simple-output list parallel 2>/dev/null | grep -q parallel; then
  mkdir -p ghc
  if ghc -O1 -threaded -eventlog -rtsopts -outputdir ghc -o ghc/parprog "$here/parprog.hs" >ghc/build.log 2>&1; then
    ./ghc/parprog 26 +RTS -N2 -lf -olfresh.eventlog -RTS >/dev/null
    check_ghc_log fresh.eventlog fresh
    echo "fresh GHC log: checked$(have ghc-events || echo ' (no ghc-events: not cross-checked)')"
  else
    cat ghc/build.log; fail "cannot compile parprog.hs with ghc"
  fi
else
  echo "fresh GHC log: skipped (ghc or the parallel package not installed)"
fi

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all lzprof checks passed"

#!/usr/bin/env bash
# run-programs.sh — the ctest profiler/lzprof-programs: lzprof on logs of a real Lz program
# (tests/profiler/marks.lz, a parallel quicksort with four checkpoints, compiled with lzc)
# and on replay logs.
#
#   tests/profiler/run-programs.sh LZPROF LZC GEN_REPLAYLOG WORKDIR
#
# 1. marks: exactly the program's four checkpoints ("start" first, "end" last, the two
#    halves between), each with the time, capability and running thread that ghc-events
#    shows for it (when installed); PROG checked against the log; a log without user
#    events and one without scheduler events are refused naming the +RTS flag.
# 2. export: Chrome JSON and speedscope JSON validate (check-export.py): one track per
#    capability, running time equal to `threads`', the four checkpoints, nested stacks.
# 3. eventlog: a replay log written by the runtime's replay writer (gen_replaylog, frames
#    cut anywhere) decompresses to the original bytes; the result passes ghc-events
#    (tests/eventlog/run-check.sh); every command reads the .lzr directly; damaged,
#    truncated and plain inputs give clear errors. Then a real `+RTS --record` run
#    (lzc -replay): eventlog output equals `zstd -dc`, marks checks the binary's SHA-256.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lzprof="$1"; lzc="$2"; genrpl="$3"; work="$4"
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
have() { command -v "$1" >/dev/null 2>&1; }
expect_error() { # WHAT PATTERN CMD...: exit status 1 and PATTERN in the message
  local what="$1" pat="$2"; shift 2
  set +e; "$@" >/dev/null 2>err.txt; local rc=$?; set -e
  [ "$rc" = 1 ] || fail "$what: exit status $rc, want 1"
  grep -qE -- "$pat" err.txt || { cat err.txt; fail "$what: message does not match '$pat'"; }
}

# ---- 1. marks --------------------------------------------------------------------------------
"$lzc" -O1 -threaded "$here/marks.lz" -o marks >build.log 2>&1 || { cat build.log; echo "FAIL: lzc"; exit 1; }
./marks +RTS -N2 -lf -RTS >marks.out
[ "$(cat marks.out)" = 30031786 ] || fail "marks printed $(cat marks.out)"
"$lzprof" marks marks.eventlog --tsv >marks.tsv
"$lzprof" marks ./marks marks.eventlog >marks.txt 2>marks.err || fail "marks ./marks marks.eventlog"
cat marks.txt
[ ! -s marks.err ] || { cat marks.err; fail "marks with the right binary warned"; }
cut -f6 marks.tsv | tr '\n' '|' >order.txt
case "$(cat order.txt)" in
  "start|low half sorted|high half sorted|end|" | "start|high half sorted|low half sorted|end|") ;;
  *) fail "marks: checkpoints $(cat order.txt)" ;;
esac
awk -F'\t' '$1 != "mark" || $4 == 0 || ($3 != 0 && $3 != 1) { bad = 1 } END { exit bad }' marks.tsv ||
  fail "marks: a checkpoint without a thread or capability"
awk -F'\t' '$6 == "end" && $5 != "event" || $6 != "end" && $5 != "marker" { bad = 1 } END { exit bad }' marks.tsv ||
  fail "marks: traceEventIO/traceMarker kinds wrong"
awk -F'\t' '$6 == "start" { s = $4 } $6 == "end" { e = $4 } END { exit s != e }' marks.tsv ||
  fail "marks: start and end not posted by the same (main) thread"
"$lzprof" marks marks.eventlog --tsv --cap 1 >cap1.tsv
"$lzprof" marks marks.eventlog --tsv --match half >half.tsv
[ "$(wc -l <half.tsv)" = 2 ] || fail "marks --match half: $(wc -l <half.tsv) lines"
[ "$(($(wc -l <cap1.tsv) + $("$lzprof" marks marks.eventlog --tsv --cap 0 | wc -l)))" = 4 ] || fail "marks --cap 0 + --cap 1 != all"
if have ghc-events; then # the same facts from GHC's reader: time, cap, thread running there
  ghc-events show marks.eventlog | awk '
    /^ *[0-9]+: cap [0-9]+: running thread [0-9]+$/ { split($0, a, /[: ]+/); run[$3 + 0] = $NF }
    /^ *[0-9]+: cap [0-9]+: stopping thread/ { run[$3 + 0] = 0 }
    /^ *[0-9]+: cap [0-9]+: (marker: .*|end)$/ {
      t = $1; sub(/:$/, "", t); c = $3 + 0; text = $0; sub(/^ *[0-9]+: cap [0-9]+: /, "", text)
      kind = sub(/^marker: /, "", text) ? "marker" : "event"
      printf "mark\t%s\t%d\t%d\t%s\t%s\n", t, c, run[c], kind, text }' >ghc.tsv
  diff ghc.tsv marks.tsv || fail "marks: lzprof and ghc-events disagree"
fi
cp marks marks-other && printf 'x' >>marks-other
"$lzprof" marks ./marks-other marks.eventlog >/dev/null 2>other.err
grep -q "written by './marks', not './marks-other'" other.err || { cat other.err; fail "marks: no warning for another program's log"; }
expect_error "marks on a log without user events" '\+RTS -l' "$lzprof" marks "$here/fixtures/parprog-N2-l.eventlog"
expect_error "marks with a missing binary" 'nonexistent' "$lzprof" marks ./nonexistent marks.eventlog
./marks +RTS -N2 -l-s -olnosched.eventlog -RTS >/dev/null
for cmd in threads "timeline -o x.html" "export --chrome x.json"; do
  # shellcheck disable=SC2086
  expect_error "$cmd on a log without scheduler events" 'no thread runs.*\+RTS -l .*class s' "$lzprof" $cmd nosched.eventlog
done
echo "marks: checked"

# ---- 2. export -------------------------------------------------------------------------------
for log in marks.eventlog "$here/fixtures/parprog-N2-lf.eventlog"; do
  n=$(basename "$log" .eventlog)
  "$lzprof" export "$log" --chrome "$n.chrome.json" --speedscope "$n.speedscope.json" || fail "export $log"
  run=$("$lzprof" threads "$log" --tsv | awk -F'\t' '$1 == "capability_running_ns" { print $2 }')
  want=$([ "$n" = marks ] && echo 4 || echo 0)
  python3 "$here/check-export.py" "$n.chrome.json" "$n.speedscope.json" 2 "$run" "$want" || fail "export $log does not validate"
done
grep -q '"name":"high half sorted","cat":"traceMarker"' marks.chrome.json || fail "chrome: no marker event"
echo "export: checked"

# Threads' running time is their capabilities' running time, also across collections
# (Boehm stops threads without a STOP_THREAD; the model pauses them): marks allocates
# enough at -N2 -A1m for collections to fall inside threads' runs.
./marks +RTS -N2 -A1m -l -olgc.eventlog -RTS >/dev/null
"$lzprof" threads gc.eventlog --tsv | awk -F'\t' '
  $1 == "capability_running_ns" { caprun = $2 } $1 == "total" { run = $4 }
  END { if (run != caprun) { print "threads: running " run " != capabilities running " caprun; exit 1 } }' ||
  fail "threads: running time differs from the capabilities' across collections"
echo "threads across collections: checked"

# ---- 3. replay logs --------------------------------------------------------------------------
"$genrpl" marks.eventlog marks.lzr --piece 1000 2>/dev/null
"$lzprof" eventlog marks.lzr -o back.eventlog || fail "eventlog marks.lzr"
cmp marks.eventlog back.eventlog || fail "eventlog: not the original bytes"
"$here/../eventlog/run-check.sh" -q back.eventlog >check.txt 2>&1 || { cat check.txt; fail "eventlog output rejected by ghc-events"; }
if have zstd; then zstd -qdc marks.lzr | cmp - back.eventlog || fail "eventlog differs from zstd -dc"; fi
"$lzprof" marks marks.lzr --tsv | diff marks.tsv - || fail "marks reads the .lzr differently"
"$lzprof" sparks "$here/fixtures/parprog-N2-lf.eventlog" --tsv >plain.sparks
"$genrpl" "$here/fixtures/parprog-N2-lf.eventlog" parprog.lzr 2>/dev/null
"$lzprof" sparks parprog.lzr --tsv | diff plain.sparks - || fail "sparks reads the .lzr differently"
"$lzprof" threads parprog.lzr >/dev/null && "$lzprof" timeline parprog.lzr -o parprog.html || fail "threads/timeline on a .lzr"
expect_error "eventlog of a plain log" 'already a plain event log' "$lzprof" eventlog marks.eventlog -o x.eventlog
expect_error "eventlog of a missing file" 'No such file' "$lzprof" eventlog nonexistent.lzr -o x.eventlog
size=$(wc -c <marks.lzr)
head -c $((size - 5)) marks.lzr >cut.lzr
expect_error "a truncated .lzr" 'truncated.*byte [0-9]+' "$lzprof" eventlog cut.lzr -o x.eventlog
expect_error "a truncated .lzr (marks)" 'truncated.*byte [0-9]+' "$lzprof" marks cut.lzr
cp marks.lzr flipped.lzr
# invert the byte (a constant could equal it: then nothing is damaged, about 1 run in 256)
old=$(od -An -tu1 -j $((size - 40)) -N1 marks.lzr | tr -d ' ')
printf "\\$(printf '%03o' $((old ^ 255)))" | dd of=flipped.lzr bs=1 seek=$((size - 40)) conv=notrunc 2>/dev/null
expect_error "a damaged .lzr" 'corrupted zstd data.*file byte [0-9]+' "$lzprof" eventlog flipped.lzr -o x.eventlog
"$genrpl" marks.eventlog noend.lzr --no-end 2>/dev/null
"$lzprof" eventlog noend.lzr -o noend.eventlog 2>noend.err || fail "eventlog of a recording without the end marker"
grep -q 'no end-of-data marker' noend.err || fail "eventlog: no warning for a recording without the end marker"
echo "replay logs (generated): checked"
if "$lzc" -O1 -replay "$here/marks.lz" -o marks-rpl >build-rpl.log 2>&1; then
  ./marks-rpl +RTS -N2 --record -RTS >/dev/null
  "$lzprof" eventlog marks-rpl.lzr -o rpl.eventlog || fail "eventlog of a real recording"
  if have zstd; then zstd -qdc marks-rpl.lzr | cmp - rpl.eventlog || fail "eventlog (real) differs from zstd -dc"; fi
  "$here/../eventlog/run-check.sh" -q rpl.eventlog >check.txt 2>&1 || { cat check.txt; fail "real recording rejected by ghc-events"; }
  "$lzprof" marks ./marks-rpl marks-rpl.lzr --tsv | cut -f6 | grep -qx 'high half sorted' || fail "marks on a real recording"
  expect_error "marks with another binary" 'recorded by a different binary' "$lzprof" marks ./marks marks-rpl.lzr
  echo "replay log (real --record): checked"
else
  cat build-rpl.log; fail "lzc -replay"
fi

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all lzprof program checks passed"

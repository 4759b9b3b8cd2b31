#!/bin/sh
# tests/lazybh/run.sh LZC OUTDIR — lazy blackholing (+RTS --lazy-blackholing), Note [Lazy
# blackholing] in docs/notes/threaded-rts.md and Note [Lazy blackholing replay] in
# docs/notes/replay.md. lazy_dup.lz sparks a shared expensive thunk and demands it in the
# main thread at once, 8 times:
# - eager (the default) at -N2: right output, no DUPLICATES line in -s;
# - lazy at -N2: right output every run, a DUPLICATES line, and at least one run of five
#   with a duplicate evaluation (the spark thread usually enters the thunk within the
#   20 ms before the main thread's first stop blackholes it);
# - the flag: refused by a vanilla build (names -threaded), listed by -?;
# - record with the flag at -N2 and -N4 (REPLAY_RUNS recordings each, default 3), replay
#   without it: same exit status and output, the replay's own event comparison passing,
#   and the same DUPLICATES count as the recorded run (the duplicates are reproduced).
set -u
LZC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${REPLAY_RUNS:-3}
mkdir -p "$OUT"
cd "$OUT" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
LIMIT=
if command -v timeout > /dev/null 2>&1; then LIMIT="timeout 120"; fi
want=$HERE/lazy_dup.stdout
dups() { sed -n 's/^ *DUPLICATES: \([0-9]*\) .*/\1/p' "$1"; }

"$LZC" -O1 -threaded "$HERE/lazy_dup.lz" -o thr > /dev/null || { echo "FAIL: lzc -threaded"; exit 1; }
"$LZC" -O1 -replay "$HERE/lazy_dup.lz" -o rpl > /dev/null || { echo "FAIL: lzc -replay"; exit 1; }
"$LZC" -O1 "$HERE/lazy_dup.lz" -o van > /dev/null || { echo "FAIL: lzc"; exit 1; }

$LIMIT ./thr +RTS -N2 -s -RTS > out 2> err || fail "eager -N2: exit $?"
cmp -s out "$want" || fail "eager -N2: wrong output"
grep -q DUPLICATES err && fail "eager -N2: a DUPLICATES line without --lazy-blackholing"

seen=0
for k in 1 2 3 4 5; do
  $LIMIT ./thr +RTS -N2 --lazy-blackholing -s -RTS > out 2> err || fail "lazy -N2 run $k: exit $?"
  cmp -s out "$want" || fail "lazy -N2 run $k: wrong output: $(head -c 200 out)"
  d=$(dups err)
  [ -n "$d" ] || fail "lazy -N2 run $k: no DUPLICATES line in -s"
  echo "lazy -N2 run $k: DUPLICATES ${d:-none}"
  [ "${d:-0}" -gt 0 ] && seen=$((seen + 1))
done
[ $seen -gt 0 ] || fail "lazy -N2: no duplicate evaluation in 5 runs"

./van +RTS --lazy-blackholing -RTS > out 2> err
st=$?
[ $st = 1 ] || fail "vanilla with --lazy-blackholing: exit $st, not 1"
grep -q "requires the program to be built with -threaded" err || fail "vanilla: message: $(cat err)"
./thr +RTS -? -RTS > out 2>&1
grep -q -- "--lazy-blackholing" out || fail "-? does not list --lazy-blackholing"

for n in 2 4; do
  k=0
  while [ $k -lt "$RUNS" ]; do
    k=$((k + 1))
    ./rpl +RTS -N$n --lazy-blackholing --record=lazy.lzr -s -RTS > rec.out 2> rec.err < /dev/null
    rs=$?
    $LIMIT ./rpl +RTS --replay=lazy.lzr -s -RTS > rep.out 2> rep.err
    ps=$?
    if [ $ps != $rs ] || ! cmp -s rec.out rep.out; then
      fail "replay -N$n run $k: exit $ps (recorded $rs): $(grep -v '^ ' rep.err | head -c 300)"
    elif [ "$(dups rec.err)" != "$(dups rep.err)" ]; then
      fail "replay -N$n run $k: DUPLICATES $(dups rep.err), recorded $(dups rec.err)"
    else
      echo "replay -N$n run $k: exact, DUPLICATES $(dups rep.err)"
    fi
  done
done

[ $fails = 0 ] && echo "lazybh: all passed" && exit 0
echo "lazybh: $fails failed"
exit 1

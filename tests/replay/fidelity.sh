#!/bin/sh
# tests/replay/fidelity.sh LZC OUTDIR [PROG...] — replay fidelity (Note [Replay],
# "What works"): record each program K times at each -N, replay every log once (under
# `timeout`) with the replay writing its own event log (+RTS -l), and count a replay exact
# when (1) it exits with the recorded status, (2) its stdout is the recording's, (3) the
# replay's own event-by-event comparison passed (it exits 3 otherwise) and (4), outside
# the replay, `lzprof compare` finds the recording's events and the replay's event log the
# same per capability with times removed. Prints per program and -N how many replays were
# exact, then the divergences grouped by their message with the numbers taken out.
# PROG: a name of tests/parallel (par_nfib) or nofib:NAME (bench/nofib-mini, fast size).
# Default: every tests/parallel program that is not fail_* and every nofib-mini program
# (issue 6's full test). Environment: K (recordings per -N, default 20), NS (default
# "1 2 4"), LIMIT (seconds per run, default 120), RTS (more +RTS flags for the recordings,
# e.g. --lazy-blackholing: Note [Lazy blackholing replay]). Exit status 0 when every
# replay was exact. Not a ctest at these sizes (an hour); ctest replay/fidelity runs it
# with K=1.
set -u
LZC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PAR=$HERE/../parallel
NOFIB=$HERE/../../bench/nofib-mini
K=${K:-20}
NS=${NS:-"1 2 4"}
LIMIT=${LIMIT:-120}
LZPROF=$(dirname "$LZC")/lzprof
mkdir -p "$OUT"
cd "$OUT" || exit 1
: > classes.txt
progs="$*"
if [ -z "$progs" ]; then
  for f in "$PAR"/*.lz; do
    b=$(basename "$f" .lz)
    case $b in fail_*) ;; *) progs="$progs $b" ;; esac
  done
  for name in $(sed -n 's/^\([a-z0-9_-]*\) .*dir=.*/\1/p' "$NOFIB/suite.txt"); do
    progs="$progs nofib:$name"
  done
fi

fast_args() { # the fast arguments of a nofib-mini program
  sed -n "s/^$1 .*fast=\"\([^\"]*\)\".*/\1/p" "$NOFIB/suite.txt"
}

all_ok=0
all_n=0
for p in $progs; do
  case $p in
  nofib:*)
    name=${p#nofib:}
    dir=$(sed -n "s/^$name .*dir=\([^ ]*\).*/\1/p" "$NOFIB/suite.txt")
    src=$NOFIB/$dir/Main.lz
    args=$(fast_args "$name")
    exe=$name
    ;;
  *) src=$PAR/$p.lz; args=; exe=$p ;;
  esac
  "$LZC" -O1 -replay "$src" -o "$exe" > /dev/null 2>&1 || { echo "$p: lzc failed"; all_n=$((all_n + 1)); continue; }
  line="$p:"
  for n in $NS; do
    ok=0
    k=0
    while [ $k -lt "$K" ]; do
      k=$((k + 1))
      # shellcheck disable=SC2086
      timeout "$LIMIT" ./"$exe" $args +RTS -N"$n" --record="$exe.lzr" ${RTS:-} -RTS > rec.out 2> rec.err < /dev/null
      rs=$?
      rm -f rep.eventlog
      timeout "$LIMIT" ./"$exe" +RTS --replay="$exe.lzr" -l -olrep.eventlog -RTS > rep.out 2> rep.err < /dev/null
      ps=$?
      same=0
      if [ $ps = "$rs" ] && cmp -s rec.out rep.out; then
        if "$LZPROF" compare "$exe.lzr" rep.eventlog > cmp.out 2>&1; then
          same=1
        else
          echo "events differ outside the replay (lzprof compare): $(head -3 cmp.out)" > rep.err
        fi
      fi
      if [ $same = 1 ]; then
        ok=$((ok + 1))
      else
        msg=$(grep -m1 "replay\|error\|timeout\|differ" rep.err | sed "s/^[^:]*: //")
        [ $ps = 124 ] && msg="timeout (hung replay)"
        [ -z "$msg" ] && msg="exit $ps (recorded $rs), output differs"
        echo "$p -N$n: $msg" >> details.txt
        # the class: numbers and thread/thunk ids out
        echo "$msg" | sed 's/#[0-9]*/#N/g; s/[0-9][0-9:]*/_/g' >> classes.txt
        cp "$exe.lzr" "fail-$exe-N$n-$k.lzr"
        for f in rec.out rec.err rep.out rep.err; do cp $f "fail-$exe-N$n-$k.$f"; done
      fi
    done
    line="$line -N$n $ok/$K"
    all_ok=$((all_ok + ok))
    all_n=$((all_n + K))
  done
  echo "$line"
done
echo "all: $all_ok/$all_n exact"
echo "divergence classes:"
sort classes.txt | uniq -c | sort -rn
[ "$all_ok" = "$all_n" ]

#!/bin/sh
# tests/replay/fidelity.sh LZC OUTDIR [PROG...] — measure replay fidelity (Note [Replay],
# "What works"): record each program K times at each -N, replay every log once (under
# `timeout`), and print per program and -N how many replays were exact (same exit status
# and stdout, the replay's own event comparison passing), then the divergences grouped by
# their message with the numbers taken out (the classes to work on).
# PROG: a name of tests/parallel (par_nfib) or nofib:NAME (bench/nofib-mini, fast size).
# Default: every tests/parallel program that is not fail_* plus nofib:parfib, nofib:queens.
# Environment: K (recordings per -N, default 10), NS (default "2 4"), LIMIT (seconds per
# replay, default 60), RTS (more +RTS flags for the recordings, e.g. --lazy-blackholing:
# Note [Lazy blackholing replay]). Not a ctest: it takes minutes; run.sh is the CI version.
set -u
LZC=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUT=$2
shift 2
HERE=$(cd "$(dirname "$0")" && pwd)
PAR=$HERE/../parallel
NOFIB=$HERE/../../bench/nofib-mini
K=${K:-10}
NS=${NS:-"2 4"}
LIMIT=${LIMIT:-60}
mkdir -p "$OUT"
cd "$OUT" || exit 1
: > classes.txt
progs="$*"
if [ -z "$progs" ]; then
  for f in "$PAR"/*.lz; do
    b=$(basename "$f" .lz)
    case $b in fail_*) ;; *) progs="$progs $b" ;; esac
  done
  progs="$progs nofib:parfib nofib:queens"
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
  "$LZC" -O1 -replay "$src" -o "$exe" > /dev/null 2>&1 || { echo "$p: lzc failed"; continue; }
  line="$p:"
  for n in $NS; do
    ok=0
    k=0
    while [ $k -lt "$K" ]; do
      k=$((k + 1))
      # shellcheck disable=SC2086
      timeout "$LIMIT" ./"$exe" $args +RTS -N"$n" --record="$exe.lzr" ${RTS:-} -RTS > rec.out 2> rec.err < /dev/null
      rs=$?
      timeout "$LIMIT" ./"$exe" +RTS --replay="$exe.lzr" -RTS > rep.out 2> rep.err < /dev/null
      ps=$?
      if [ $ps = "$rs" ] && cmp -s rec.out rep.out; then
        ok=$((ok + 1))
      else
        msg=$(grep -m1 "replay\|error\|timeout" rep.err | sed "s/^[^:]*: //")
        [ $ps = 124 ] && msg="timeout (hung replay)"
        [ -z "$msg" ] && msg="exit $ps (recorded $rs), output differs"
        echo "$p -N$n: $msg" >> details.txt
        # the class: numbers and thread/thunk ids out
        echo "$msg" | sed 's/#[0-9]*/#N/g; s/[0-9][0-9:]*/_/g' >> classes.txt
        cp "$exe.lzr" "fail-$exe-N$n-$k.lzr"
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

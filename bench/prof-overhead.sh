#!/bin/bash
# bench/prof-overhead.sh [LZC] — the cost of -prof: lzc -O2 -threaded against the same with
# -prof (+RTS -p), -N1, nofib-mini fast size, median CPU time of 3 interleaved runs each.
# Set PROF_FLAGS="-prof -fprof-auto" for the -fprof-auto column. docs/notes/profiling.md.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LZC=${1:-$ROOT/build/lzc}
S=$ROOT/bench/nofib-mini
PROF_FLAGS=${PROF_FLAGS:--prof}
WORK=$(mktemp -d /tmp/lz-prof-overhead.XXXXXX)
cd "$WORK" || exit 1
declare -A ARGS=([parfib]="37 20" [sumeuler]="4000 100" [queens]="12" [coins]="7 700" [partree]="250 60" [mandel]="-2.0 -2.0 2.0 2.0 512 512 256" [matmult]="200 10" [minimax]="3")
for p in parfib sumeuler queens coins partree mandel matmult minimax; do
  $LZC -O2 -threaded $S/$p/Main.lz -o $p.plain 2>/dev/null || { echo "$p: build failed"; continue; }
  $LZC -O2 -threaded $PROF_FLAGS $S/$p/Main.lz -o $p.prof 2>/dev/null || { echo "$p: prof build failed"; continue; }
  a=(); b=()
  for i in 1 2 3; do
    a+=($( { /usr/bin/time -f "%U %S" ./$p.plain ${ARGS[$p]} +RTS -N1 -RTS >/dev/null; } 2>&1 | awk '{print $1+$2}'))
    b+=($( { /usr/bin/time -f "%U %S" ./$p.prof ${ARGS[$p]} +RTS -N1 -p -RTS >/dev/null; } 2>&1 | tail -1 | awk '{print $1+$2}'))
  done
  ma=$(printf "%s\n" "${a[@]}" | sort -g | sed -n 2p); mb=$(printf "%s\n" "${b[@]}" | sort -g | sed -n 2p)
  echo "$p plain ${ma}s prof ${mb}s ratio $(echo "scale=2; $mb / $ma" | bc)"
done

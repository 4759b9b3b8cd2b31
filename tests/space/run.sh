#!/usr/bin/env bash
# run.sh — deep-recursion and constant-space checks of compiled programs (ctest: space/*).
#
#   tests/space/run.sh LZC MAXRSS WORKDIR [CASE...]
#
# LZC is the compiler, MAXRSS the lz_maxrss wrapper (tests/space/maxrss.c: runs a
# program and reports its peak resident set size), WORKDIR a scratch directory. Each
# case compiles one tests/space/*.lz program at one -O level, runs it (with RTS flags
# when given) under lz_maxrss and a timeout, and checks stdout, the exit status, the
# first two lines of stderr when given, and the peak RSS against a limit in MB. The
# cases (name: program, level, RTS flags, expected exit, RSS limit):
#
#   deep-O0, deep-O2        deep_foldr      a million nested frames: no crash, < 400 MB
#   length-O0, length-O2    length_big      length [1..10^7] in < 50 MB
#   foldl-O2                foldl_strict    foldl' (+) 0 [1..10^8] in < 32 MB (a false root
#                           in Boehm's data once kept the list: Note [Stale registers])
#   bh-fvs-O2, bh-fvs-N2    blackhole_fvs   a fold under evaluation whose free variable is
#                           the list: < 50 MB, -threaded -N2 < 80 MB (the blackhole kept
#                           its free variables: 1.3 GB; Note [Eager blackholing], "Free
#                           variables")
#   bh-fvs-lazy-N2          blackhole_fvs   the same at -N2 with --lazy-blackholing: < 120 MB
#                           (76-82 MB: the list grows until the first tick stops the thread and
#                           blackholes the fold's thunk; 1.6 GB while blackholing at a stop
#                           kept the free variables: Note [Lazy blackholing], "Free variables")
#   overflow-O0/-O2         stack_overflow  +RTS -K1m: GHC's message, exit 2
#   foldl-lazybh-N2         foldl_strict    -threaded, +RTS -N2 --lazy-blackholing: < 80 MB
#                           (37 MB usually; a rare spike at -N2 grows the heap: Note [Heap
#                           sizing], "One collection's spike")
#                           (a stopped thread's saved registers once kept the list's head:
#                           1.7 GB; Note [Stale registers])
#   blocked-owner-N2        blocked_owner   -threaded, +RTS -N2, 4 runs: each in < 100 MB
#                           (a spark blocked on main's fold once kept its list from the
#                           sleeping capability's stack: 3 GB; Note [Idle in Boehm's
#                           blocking state])
#   coins-N2                bench/nofib-mini/coins, -threaded, 7 700 at -N2, 4 runs: each in
#                           < 46 MB (40 MB: the initial 32 MB heap; the spark pool's prune
#                           buffer, made at the first prune, once made Boehm grow it to
#                           43 MB: 52 MB; Note [Spark pools and Boehm])
#   nbody-threaded-N1       bench/nofib-mini/nbody, -threaded, 800 30 20 at -N1, 6 runs:
#                           each in < 45 MB (the bump pointers once leaked the list of
#                           `energy`: 60-70 MB in most runs; Note [Bump allocation])
#   pool-evaluated-N1/-N2   pool_evaluated  -threaded, main sparks a list it folds: < 80 MB
#                           (the pool, or at -N2 the frame of a capability that found the
#                           spark fizzled, kept the list: 1.3 GB; Note [Evaluated sparks at
#                           a collection])
#   spark-value-N2          spark_value     -threaded, a spark evaluates the list's first
#                           cell: < 80 MB, 4 runs (the finished spark thread kept it: 1.3
#                           GB; Note [Stale registers], "The spare spark thread")
#   queens-N2               bench/nofib-mini/queens, -threaded, 13 at -N2, 4 runs: each in
#                           < 48 MB (41-42 MB; 51-53 MB while -F was scaled by -N, 71-85 MB
#                           while the spare spark thread kept its last spark's value)
#   quicksort-N2            bench/nofib-mini/quicksort, -threaded, 100000 4 at -N2, 4 runs:
#                           each in < 90 MB (61-69 MB; 110-131 MB while the heap could grow
#                           to 1 + (F-1) N times the live data: Note [Heap sizing], "F for
#                           the whole heap")
#
# A program is tests/space/<prog>.lz, or a path from the repository's root; the compiler
# flags and the arguments are split at spaces; expected stdout "@file" is that file.
#
# One line per case (ok / FAIL with the reason, and the time and RSS measured); exit
# status 1 if any case failed. CASE... runs only those. Env: TIMEOUT (seconds per run,
# default 30).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 3 ]; then
  echo "usage: $0 LZC MAXRSS WORKDIR [CASE...]" >&2
  exit 2
fi
LZC="$1" MAXRSS="$2" WORK="$3"
shift 3
TIMEOUT="${TIMEOUT:-30}"
mkdir -p "$WORK" || exit 2

# name program compiler-flags arguments exit rss-limit-MB expected-stdout [runs]
CASES=(
  "deep-O0|deep_foldr|-O0||0|400|500000500000\n500000500000"
  "deep-O2|deep_foldr|-O2||0|400|500000500000\n500000500000"
  "length-O0|length_big|-O0||0|50|10000000"
  "length-O2|length_big|-O2||0|50|10000000"
  "foldl-O2|foldl_strict|-O2||0|32|5000000050000000"
  "bh-fvs-O2|blackhole_fvs|-O2||0|50|3\n200000010000000"
  "overflow-O0|stack_overflow|-O0|+RTS -K1m -RTS|2|100|"
  "overflow-O2|stack_overflow|-O2|+RTS -K1m -RTS|2|100|"
  "foldl-lazybh-N2|foldl_strict|-O2 -threaded|+RTS -N2 --lazy-blackholing -RTS|0|80|5000000050000000"
  "blocked-owner-N2|blocked_owner|-O1 -threaded|+RTS -N2 -RTS|0|100|800000020000003\n800000020000002|4"
  "coins-N2|bench/nofib-mini/coins/Main.lz|-O2 -threaded|7 700 +RTS -N2 -RTS|0|46|98698|4"
  "bh-fvs-N2|blackhole_fvs|-O2 -threaded|+RTS -N2 -RTS|0|80|3\n200000010000000"
  "bh-fvs-lazy-N2|blackhole_fvs|-O2 -threaded|+RTS -N2 --lazy-blackholing -RTS|0|120|3\n200000010000000"
  "pool-evaluated-N1|pool_evaluated|-O2 -threaded|+RTS -N1 -RTS|0|80|200000010000000"
  "pool-evaluated-N2|pool_evaluated|-O2 -threaded|+RTS -N2 -RTS|0|80|200000010000000|4"
  "spark-value-N2|spark_value|-O2 -threaded|+RTS -N2 -RTS|0|80|200000010000000|4"
  "queens-N2|bench/nofib-mini/queens/Main.lz|-O2 -threaded|13 +RTS -N2 -RTS|0|48|73712|4"
  "quicksort-N2|bench/nofib-mini/quicksort/Main.lz|-O2 -threaded|100000 4 +RTS -N2 -RTS|0|90|@bench/nofib-mini/quicksort/quicksort.fast.stdout|4"
  "nbody-threaded-N1|bench/nofib-mini/nbody/Main.lz|-O2 -threaded|800 30 20 +RTS -N1 -RTS|0|45|@bench/nofib-mini/nbody/nbody.fast.stdout|6"
)
# expected stderr of the overflow cases (PROG is the program's name), as GHC prints it
# but for the size, which GHC gives as its current stack chunk's
overflow_err1='^PROG: Stack space overflow: current size [0-9]+ bytes\.$'
overflow_err2="PROG: Use \`+RTS -Ksize -RTS' to increase it."

wanted() {
  [ ${#SELECT[@]} -eq 0 ] && return 0
  local s
  for s in "${SELECT[@]}"; do [ "$s" = "$1" ] && return 0; done
  return 1
}
SELECT=("$@")

fails=0
for c in "${CASES[@]}"; do
  IFS='|' read -r name prog opt cmdargs want_exit limit want_out runs <<<"$c"
  wanted "$name" || continue
  read -ra optv <<<"$opt"
  read -ra args <<<"$cmdargs"
  src="$here/$prog.lz"
  case "$prog" in */*) src="$here/../../$prog" ;; esac
  case "$want_out" in @*) want_out="$(cat "$here/../../${want_out#@}")" ;; esac
  exe="$WORK/$name"
  why=""
  if ! "$LZC" "${optv[@]}" "$src" -o "$exe" >"$WORK/$name.build" 2>&1; then
    why="does not compile: $(head -1 "$WORK/$name.build")"
  fi
  run=0
  while [ -z "$why" ] && [ "$run" -lt "${runs:-1}" ]; do
    run=$((run + 1))
    t0=$(date +%s%N)
    timeout "$TIMEOUT" "$MAXRSS" "$WORK/$name.rss" "$exe" "${args[@]}" \
      >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
    rc=$?
    t1=$(date +%s%N)
    ms=$(((t1 - t0) / 1000000))
    rss_kb=$(cat "$WORK/$name.rss" 2>/dev/null || echo 0)
    rss_mb=$((rss_kb / 1024))
    prog_name="$(basename "$exe")"
    if [ "$rc" = 124 ]; then
      why="timed out after ${TIMEOUT}s"
    elif [ "$rc" != "$want_exit" ]; then
      why="exit status $rc, expected $want_exit ($(head -1 "$WORK/$name.err"))"
    elif [ "$(cat "$WORK/$name.out")" != "$(printf "%b" "$want_out")" ]; then
      why="wrong output: $(head -c 200 "$WORK/$name.out")"
    elif [ "$rss_mb" -ge "$limit" ]; then
      why="maximum RSS ${rss_mb} MB, limit ${limit} MB (run $run)"
    elif [ "$want_exit" = 2 ]; then
      e1="$(sed -n 1p "$WORK/$name.err" | sed "s|^$prog_name: |PROG: |")"
      e2="$(sed -n 2p "$WORK/$name.err" | sed "s|^$prog_name: |PROG: |")"
      if ! [[ "$e1" =~ $overflow_err1 ]]; then why="stderr line 1: $e1"
      elif [ "$e2" != "$overflow_err2" ]; then why="stderr line 2: $e2"
      fi
    fi
  done
  if [ -z "$why" ]; then
    echo "ok    $name (${ms} ms, ${rss_mb} MB${runs:+, the last of $runs runs})"
  else
    echo "FAIL  $name: $why"
    fails=$((fails + 1))
  fi
done
[ "$fails" -eq 0 ] && echo "space: all passed" || echo "space: $fails failed"
[ "$fails" -eq 0 ]

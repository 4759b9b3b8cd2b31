#!/usr/bin/env bash
# run.sh — the parallel corpus: compile every tests/parallel/NAME.lz with lzc, run it many
# times at several -N, and compare each run with what GHC printed (README.md in this folder).
#
#   tests/parallel/run.sh LZC [--runs K] [--N "1 2 4"] [--way threaded|vanilla]
#                             [--rts "FLAGS"] [--skip-unsupported] [NAME...]
#
# threaded way (default): `LZC -O1 -threaded NAME.lz`, then at each -N in --N (default
# "1 2 4") K plain runs `./NAME +RTS -Nn -RTS` (default K=3) and one more with `-s` added.
# vanilla way: `LZC -O1 NAME.lz`, K plain runs and one `+RTS -s` run, no -N.
# Every run is compared with GHC's: stdout byte for byte with NAME.stdout, the exit status
# with NAME.exit and, when NAME.stderr exists, the first line of stderr (a leading "NAME: "
# read as "PROG: "). In `-s` runs the SPARKS line, when the runtime prints one, is checked
# too (docs/notes/sparks.md): it must parse; its total T (created + dud + overflowed, as
# GHC prints it) must equal converted + overflowed + dud + GC'd + fizzled, since after the
# final prune at exit every pushed spark has exactly one fate (GHC itself can lose sparks,
# so this is Lz's identity, not GHC's); and, when NAME.sparks exists, T must equal it: the
# number of `par`s GHC executes (-O0, -N1; gen-expected.sh says why). With eager blackholing
# no thunk is evaluated twice, so that number must not change with -N (GHC's does, through
# duplicated work). --rts adds FLAGS to every run's +RTS; with --lazy-blackholing among them
# thunks may be evaluated twice (Note [Lazy blackholing]), so T is not compared with
# NAME.sparks (the fates identity still is).
# Output: one line per program with its pass count per -N and, on failure, the first failure
# (which -N and run, and the first lines of the diff); then a summary. After MAXFAIL failures
# a program's remaining runs are skipped. Exit status 1 if anything failed.
# --skip-unsupported: first check that `LZC -threaded` builds a trivial program that runs at
# +RTS -N2; if not, print why and exit 77 (ctest's SKIP_RETURN_CODE) without testing.
# Env: OPT (optimisation flag, default -O1), TIMEOUT (seconds per run, 10), CTIMEOUT (seconds per compilation, 180), JOBS
# (parallel compilations, default the number of CPUs), MAXFAIL (3), KEEP=1 keeps the
# temporary directory (the failing runs' outputs are in NAME/fail-*).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() {
  echo "usage: $0 LZC [--runs K] [--N \"1 2 4\"] [--way threaded|vanilla] [--rts \"FLAGS\"] [--skip-unsupported] [NAME...]" >&2
  exit 2
}
[ $# -ge 1 ] || usage
LZC="$1"
shift
case "$LZC" in */*) LZC="$(cd "$(dirname "$LZC")" && pwd)/$(basename "$LZC")" ;; esac
command -v "$LZC" >/dev/null 2>&1 || { echo "$0: compiler not found: $LZC" >&2; exit 2; }

RUNS=3
NS="1 2 4"
WAY=threaded
SKIP_UNSUPPORTED=0
EXTRA_RTS=""
names=()
while [ $# -gt 0 ]; do
  case "$1" in
  --runs) RUNS="${2:-}"; shift 2 || usage ;;
  --N) NS="${2:-}"; shift 2 || usage ;;
  --way) WAY="${2:-}"; shift 2 || usage ;;
  --rts) EXTRA_RTS="${2:-}"; shift 2 || usage ;;
  --skip-unsupported) SKIP_UNSUPPORTED=1; shift ;;
  -*) usage ;;
  *) n="$(basename "$1")"; names+=("${n%.lz}"); shift ;;
  esac
done
case "$RUNS" in '' | *[!0-9]*) usage ;; esac
case "$WAY" in
threaded) CFLAGS=("${OPT:--O1}" -threaded) ;;
vanilla) CFLAGS=("${OPT:--O1}"); NS="-" ;;
*) usage ;;
esac
[ -n "$NS" ] || usage
TIMEOUT="${TIMEOUT:-10}"
CTIMEOUT="${CTIMEOUT:-180}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
MAXFAIL="${MAXFAIL:-3}"
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/*.lz; do
    n="$(basename "$f")"
    names+=("${n%.lz}")
  done
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/lz-parallel.XXXXXX")"
if [ "${KEEP:-0}" = 1 ]; then echo "run.sh: keeping $tmp"; else trap 'rm -rf "$tmp"' EXIT; fi

# ---- is the threaded way there? -----------------------------------------------------------
if [ $SKIP_UNSUPPORTED = 1 ] && [ "$WAY" = threaded ]; then
  mkdir -p "$tmp/probe"
  printf 'main :: IO ()\nmain = print (42 :: Int)\n' >"$tmp/probe/probe.lz"
  why=""
  if ! (cd "$tmp/probe" && timeout "$CTIMEOUT" "$LZC" -O1 -threaded probe.lz -o probe) \
    >"$tmp/probe/out" 2>&1; then
    why="'$LZC -threaded' fails: $(head -n 1 "$tmp/probe/out")"
  elif ! (cd "$tmp/probe" && timeout "$TIMEOUT" ./probe +RTS -N2 -RTS) >"$tmp/probe/out" 2>&1 ||
    [ "$(cat "$tmp/probe/out")" != 42 ]; then
    why="a '-threaded' program does not run at +RTS -N2: $(head -n 1 "$tmp/probe/out")"
  fi
  if [ -n "$why" ]; then
    echo "run.sh: SKIPPED: the threaded runtime is not there yet ($why)"
    exit 77
  fi
fi

# ---- compile everything (in parallel) -----------------------------------------------------
compile_one() {
  local name="$1" dir="$tmp/$1"
  mkdir -p "$dir"
  (cd "$here" && timeout "$CTIMEOUT" "$LZC" "${CFLAGS[@]}" "$name.lz" -o "$dir/$name") \
    >"$dir/compile.out" 2>&1
  echo $? >"$dir/compile.status"
}
export -f compile_one
export LZC CTIMEOUT tmp here
export CFLAGS_STR="${CFLAGS[*]}"
t_compile0=$(date +%s%N)
# shellcheck disable=SC2016 # expanded by the inner bash
printf '%s\n' "${names[@]}" |
  xargs -P "$JOBS" -I{} bash -c 'CFLAGS=($CFLAGS_STR); compile_one "$1"' _ {}
t_compile1=$(date +%s%N)

# ---- one run -------------------------------------------------------------------------------
# check_sparks FILE NAME: empty if fine (or no SPARKS line), else what is wrong.
check_sparks() {
  local line
  line="$(grep -m1 'SPARKS:' "$1")"
  [ -n "$line" ] || return 0
  local re='^  SPARKS: ([0-9]+) \(([0-9]+) converted, ([0-9]+) overflowed, ([0-9]+) dud, ([0-9]+) GC.d, ([0-9]+) fizzled\)$'
  if [[ ! "$line" =~ $re ]]; then
    echo "SPARKS line not in GHC's format: '$line'"
    return 0
  fi
  local total=${BASH_REMATCH[1]} fates=$((BASH_REMATCH[2] + BASH_REMATCH[3] + BASH_REMATCH[4] + BASH_REMATCH[5] + BASH_REMATCH[6]))
  if [ "$total" != "$fates" ]; then
    echo "SPARKS total $total != converted+overflowed+dud+GC'd+fizzled = $fates ('$line')"
  elif [ -f "$here/$2.sparks" ] && [[ " $EXTRA_RTS " != *" --lazy-blackholing "* ]] &&
    [ "$total" != "$(tr -d '[:space:]' <"$here/$2.sparks")" ]; then
    echo "SPARKS total $total, GHC executes $(tr -d '[:space:]' <"$here/$2.sparks") pars (a thunk evaluated twice, or a par lost?) ('$line')"
  fi
  echo "$total" >"$(dirname "$1")/last-sparks"
}

# run_once NAME N STATS: runs the program once; prints nothing if it behaved, else why.
run_once() {
  local name="$1" n="$2" stats="$3" dir="$tmp/$1"
  local rts=()
  [ "$n" != - ] && rts+=("-N$n")
  [ "$stats" = 1 ] && rts+=(-s)
  # shellcheck disable=SC2206 # FLAGS are words
  [ -n "$EXTRA_RTS" ] && rts+=($EXTRA_RTS)
  local args=()
  [ ${#rts[@]} -gt 0 ] && args=(+RTS "${rts[@]}" -RTS)
  { (cd "$dir" && timeout -k 2 "$TIMEOUT" "./$name" "${args[@]}" </dev/null >"$dir/stdout" 2>"$dir/stderr"); } 2>/dev/null
  local status=$? want=0
  [ -f "$here/$name.exit" ] && want="$(tr -d '[:space:]' <"$here/$name.exit")"
  if [ $status = 124 ] || [ $status = 137 ]; then
    echo "timed out after ${TIMEOUT}s"
    return
  elif [ "$status" != "$want" ]; then
    local sig=""
    [ "$status" -gt 128 ] && sig=" (signal $((status - 128)))"
    echo "exit status $status$sig, expected $want: $(head -n 1 "$dir/stderr" | head -c 160)"
    return
  fi
  if ! cmp -s "$dir/stdout" "$here/$name.stdout"; then
    echo "stdout differs: $(diff "$here/$name.stdout" "$dir/stdout" | head -n 3 | tr '\n' ' ' | head -c 200)"
    return
  fi
  if [ -f "$here/$name.stderr" ]; then
    local got want_err
    got="$(head -n 1 "$dir/stderr" | sed "s|^$name: |PROG: |")"
    want_err="$(head -n 1 "$here/$name.stderr")"
    if [ "$got" != "$want_err" ]; then
      echo "stderr: got '$got', expected '$want_err'"
      return
    fi
  fi
  [ "$stats" = 1 ] && check_sparks "$dir/stderr" "$name"
}

# ---- run everything ------------------------------------------------------------------------
prog_fail=0
total_runs=0
t_run0=$(date +%s%N)
for name in "${names[@]}"; do
  dir="$tmp/$name"
  if [ ! -f "$here/$name.lz" ]; then
    printf 'FAIL %-18s no such program %s\n' "$name" "$here/$name.lz"
    prog_fail=$((prog_fail + 1))
    continue
  fi
  cstatus="$(cat "$dir/compile.status" 2>/dev/null || echo none)"
  if [ "$cstatus" != 0 ]; then
    what="$(grep -m1 -E 'rror' "$dir/compile.out" || head -n 1 "$dir/compile.out")"
    [ "$cstatus" = 124 ] && what="timed out after ${CTIMEOUT}s"
    printf 'FAIL %-18s compilation (%s) failed: %s\n' "$name" "$LZC ${CFLAGS[*]}" "$what"
    prog_fail=$((prog_fail + 1))
    continue
  fi
  rm -f "$dir/last-sparks"
  passed=0 ran=0 fails=0 first="" per_n="" t0=$(date +%s%N)
  for n in $NS; do
    np=0 nr=0
    for ((i = 1; i <= RUNS + 1; i++)); do
      [ $fails -ge "$MAXFAIL" ] && break
      stats=0
      [ $i -gt "$RUNS" ] && stats=1
      why="$(run_once "$name" "$n" "$stats")"
      nr=$((nr + 1))
      if [ -z "$why" ]; then
        np=$((np + 1))
      else
        fails=$((fails + 1))
        cp "$dir/stdout" "$dir/fail-$fails.stdout" 2>/dev/null
        cp "$dir/stderr" "$dir/fail-$fails.stderr" 2>/dev/null
        where="run $i"
        [ $stats = 1 ] && where="the -s run"
        [ "$n" != - ] && where="-N$n $where"
        [ -z "$first" ] && first="$where: $why"
      fi
    done
    passed=$((passed + np))
    ran=$((ran + nr))
    label="N$n"
    [ "$n" = - ] && label="$WAY"
    per_n="$per_n${per_n:+, }$label $np/$nr"
  done
  t1=$(date +%s%N)
  total_runs=$((total_runs + ran))
  expected_runs=$(($(wc -w <<<"$NS") * (RUNS + 1)))
  sparks="no SPARKS line"
  [ -f "$dir/last-sparks" ] && sparks="SPARKS $(cat "$dir/last-sparks")"
  secs="$(awk -v ns=$((t1 - t0)) 'BEGIN { printf "%.2fs", ns / 1e9 }')"
  if [ $fails = 0 ]; then
    printf 'ok   %-18s %d/%d runs (%s) %s, %s\n' "$name" "$passed" "$expected_runs" "$per_n" "$sparks" "$secs"
  else
    prog_fail=$((prog_fail + 1))
    stopped=""
    [ $ran -lt "$expected_runs" ] && stopped=", stopped after $MAXFAIL failures"
    printf 'FAIL %-18s %d/%d runs passed (%s%s) %s; first failure at %s\n' "$name" "$passed" \
      "$expected_runs" "$per_n" "$stopped" "$secs" "$first"
  fi
done
t_run1=$(date +%s%N)
awk -v p=${#names[@]} -v f=$prog_fail -v r=$total_runs -v c=$((t_compile1 - t_compile0)) \
  -v t=$((t_run1 - t_run0)) -v way="$WAY${EXTRA_RTS:+ $EXTRA_RTS}" -v ns="$([ "$NS" = - ] || echo "-N $NS, ")" -v k="$RUNS" 'BEGIN {
  printf "parallel/%s (%s%d runs + 1 -s run each): %d programs, %d passed, %d failed; %d runs in %.1fs, compiling %.1fs\n",
         way, ns, k, p, p - f, f, r, t / 1e9, c / 1e9 }'
[ $prog_fail = 0 ]

#!/usr/bin/env bash
# run-golden-exec.sh — end-to-end test: compile every golden program to native code, run it,
# and compare with what GHC's build printed (tests/golden/README.md has the conventions).
#
#   tests/run-golden-exec.sh [--list-failures] LZC [-O0|-O1|-O2] [NAME...]
#
# For each tests/golden/NAME.lz this runs `LZC -On NAME.lz -o TMP/NAME` (an executable named
# exactly NAME, in a temporary directory), runs it from that directory with stdin from
# NAME.stdin (or /dev/null), and compares: stdout byte for byte with NAME.stdout, the exit
# status with NAME.exit, and, when NAME.stderr exists, the first line of stderr (a leading
# "NAME: " read as "PROG: ") with it. One line per failure says what differed; then a
# summary `N passed, M failed`; exit status 1 if anything failed. --list-failures prints
# only the failing names. NAME... restricts the run (NAME, NAME.lz or a path).
# Env: TIMEOUT (seconds per run, default 20), CTIMEOUT (seconds per compilation, default
# 120), JOBS (parallel programs, default the number of CPUs), KEEP=1 keeps the temporary
# directory, LZC_FLAGS (more compiler flags, e.g. -threaded), RTS_N (a list of -N values,
# e.g. "1 2 4": each program is run once with `+RTS -Nn -RTS` for each; all must pass).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
golden="$here/golden"
list_only=0
if [ "${1:-}" = "--list-failures" ]; then
  list_only=1
  shift
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 [--list-failures] LZC [-O0|-O1|-O2] [NAME...]" >&2
  exit 2
fi
LZC="$1"
shift
case "$LZC" in */*) LZC="$(cd "$(dirname "$LZC")" && pwd)/$(basename "$LZC")" ;; esac
if ! command -v "$LZC" >/dev/null 2>&1; then
  echo "$0: compiler not found: $LZC" >&2
  exit 2
fi
OPT=-O0
case "${1:-}" in -O0 | -O1 | -O2 | -O) OPT="$1"; shift ;; esac
TIMEOUT="${TIMEOUT:-20}"
CTIMEOUT="${CTIMEOUT:-120}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"

progs=()
if [ $# -gt 0 ]; then
  for n in "$@"; do
    n="$(basename "$n")"
    progs+=("${n%.lz}")
  done
else
  for f in "$golden"/*.lz; do
    n="$(basename "$f")"
    progs+=("${n%.lz}")
  done
fi

tmp="$(mktemp -d "${TMPDIR:-/tmp}/lz-golden-exec.XXXXXX")"
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$tmp"' EXIT; fi

# one program: writes "ok" or a failure description to $tmp/NAME.result
run_one() {
  local name="$1" dir="$tmp/$1"
  mkdir -p "$dir"
  local res="$tmp/$name.result"
  # shellcheck disable=SC2086
  (cd "$golden" && timeout "$CTIMEOUT" "$LZC" "$OPT" ${LZC_FLAGS:-} "$name.lz" -o "$dir/$name") >"$dir/compile.out" 2>&1
  local cstatus=$?
  if [ "$cstatus" = 124 ]; then
    echo "compilation timed out after ${CTIMEOUT}s" >"$res"
    return
  elif [ "$cstatus" != 0 ]; then
    echo "compile failed: $(grep -m1 -E 'error|rror:' "$dir/compile.out" || head -n1 "$dir/compile.out")" >"$res"
    return
  fi
  local variants=("")
  if [ -n "${RTS_N:-}" ]; then
    variants=()
    for n in $RTS_N; do variants+=("-N$n"); done
  fi
  local v why=""
  for v in "${variants[@]}"; do
    why="$(run_variant "$name" "$dir" "$v")"
    [ -n "$why" ] && break
  done
  if [ -z "$why" ]; then echo ok >"$res"; else echo "$why" >"$res"; fi
}

# run NAME once (with +RTS $3 -RTS when $3 is set); prints why it failed, or nothing
run_variant() {
  local name="$1" dir="$2" v="$3" rts=()
  [ -n "$v" ] && rts=(+RTS "$v" -RTS)
  local in=/dev/null
  [ -f "$golden/$name.stdin" ] && in="$golden/$name.stdin"
  (cd "$dir" && timeout "$TIMEOUT" "./$name" "${rts[@]}" <"$in" >"$dir/stdout" 2>"$dir/stderr")
  local status=$?
  local want_status=0
  [ -f "$golden/$name.exit" ] && want_status="$(tr -d '[:space:]' <"$golden/$name.exit")"
  local why=""
  if [ "$status" = 124 ]; then
    why="timed out after ${TIMEOUT}s"
  elif [ "$status" != "$want_status" ]; then
    why="exit status $status, expected $want_status ($(head -c 200 "$dir/stderr" | head -n1))"
  fi
  if [ -z "$why" ] && ! cmp -s "$dir/stdout" "$golden/$name.stdout"; then
    local line
    line="$(diff <(cat "$golden/$name.stdout") <(cat "$dir/stdout") | head -n 3 | tr '\n' ' ' | head -c 200)"
    why="stdout differs: $line"
  fi
  if [ -z "$why" ] && [ -f "$golden/$name.stderr" ]; then
    local got want
    got="$(head -n1 "$dir/stderr" | sed "s|^$name: |PROG: |")"
    want="$(head -n1 "$golden/$name.stderr")"
    [ "$got" != "$want" ] && why="stderr: got '$got', expected '$want'"
  fi
  [ -n "$why" ] && [ -n "$v" ] && why="($v) $why"
  printf '%s' "$why"
}
export -f run_one run_variant
export LZC OPT TIMEOUT CTIMEOUT tmp golden LZC_FLAGS RTS_N

printf '%s\n' "${progs[@]}" | xargs -P "$JOBS" -I{} bash -c 'run_one "$1"' _ {}

pass=0
fail=0
for n in "${progs[@]}"; do
  r="$(cat "$tmp/$n.result" 2>/dev/null || echo "no result")"
  if [ "$r" = ok ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    if [ $list_only = 1 ]; then echo "$n"; else echo "FAIL $n: $r"; fi
  fi
done
[ $list_only = 1 ] || echo "$pass passed, $fail failed"
[ $fail = 0 ]

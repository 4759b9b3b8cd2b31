#!/usr/bin/env bash
# run-frontend-golden.sh — front-end acceptance test: every program tests/golden/*.lz
# must go through the whole front end with the Core linter on.
#
#   tests/run-frontend-golden.sh [--list-failures] LZC [NAME...]
#
# For each program (only *.lz directly in tests/golden; the modules in its subfolders
# are imported, not compiled on their own) this runs `LZC --dump-core PROG.lz` with a
# time limit and requires exit status 0 and no "error:" on stderr. It prints one line
# per failure with the first error lines, then a summary `N passed, M failed`, and
# exits 1 if anything failed. With --list-failures it prints only the names of the
# failing programs, one per line (for scripts). NAME... restricts the run to those
# programs (NAME, NAME.lz or a path).
# Env: TIMEOUT (seconds per compilation, default 10), JOBS (parallel compilations,
# default the number of CPUs).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
list_only=0
if [ "${1:-}" = "--list-failures" ]; then
  list_only=1
  shift
fi
if [ $# -lt 1 ]; then
  echo "usage: $0 [--list-failures] LZC [NAME...]" >&2
  exit 2
fi
LZC="$1"
shift
case "$LZC" in */*) LZC="$(cd "$(dirname "$LZC")" && pwd)/$(basename "$LZC")" ;; esac
if ! command -v "$LZC" >/dev/null 2>&1; then
  echo "$0: compiler not found: $LZC" >&2
  exit 2
fi
TIMEOUT="${TIMEOUT:-10}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"

progs=()
if [ $# -gt 0 ]; then
  for n in "$@"; do
    n="$(basename "$n" .lz)"
    progs+=("$here/golden/$n.lz")
  done
else
  for p in "$here"/golden/*.lz; do [ -e "$p" ] && progs+=("$p"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Compile one program; write "PASS" or a one-line failure to $tmp/NAME.result.
run_one() {
  local prog="$1" name err rc reason detail
  name="$(basename "$prog" .lz)"
  err="$tmp/$name.err"
  if [ ! -f "$prog" ]; then
    echo "FAIL $name.lz: no such program" >"$tmp/$name.result"
    return
  fi
  # (the outer 2>/dev/null drops the shell's own "Segmentation fault" notice)
  { timeout -k 2 "$TIMEOUT" "$LZC" --dump-core "$prog" >/dev/null 2>"$err" </dev/null; rc=$?; } 2>/dev/null
  reason=""
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    reason="timed out after ${TIMEOUT}s"
  elif [ $rc -gt 128 ]; then
    reason="crashed (signal $((rc - 128)))"
  elif [ $rc -eq 3 ]; then
    reason="internal error (exit 3)"
  elif [ $rc -ne 0 ]; then
    reason="exit status $rc"
  elif grep -q "error:" "$err"; then
    reason="reported an error but exited 0"
  fi
  if [ -z "$reason" ]; then
    echo PASS >"$tmp/$name.result"
    return
  fi
  # the first error line and the line after it (the message), else the first lines
  detail="$(grep -m1 -A1 -e 'error:' -e '^core lint' "$err" | tr -s ' \n' ' ' | sed 's/ *$//')"
  [ -n "$detail" ] || detail="$(head -n 2 "$err" | tr -s ' \n' ' ' | sed 's/ *$//')"
  echo "FAIL $name.lz: $reason${detail:+: $detail}" | cut -c1-400 >"$tmp/$name.result"
}

running=0
for prog in "${progs[@]}"; do
  run_one "$prog" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

pass=0
fail=0
for prog in "${progs[@]}"; do
  name="$(basename "$prog" .lz)"
  result="$(cat "$tmp/$name.result" 2>/dev/null || echo "FAIL $name.lz: no result (runner failed)")"
  if [ "$result" = PASS ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    if [ $list_only -eq 1 ]; then echo "$name.lz"; else echo "$result"; fi
  fi
done
[ $list_only -eq 1 ] || echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

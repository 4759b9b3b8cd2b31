#!/usr/bin/env bash
# run-reject.sh — front-end rejection test: every program tests/reject/*.lz must be
# rejected with a diagnostic at the line its first line announces.
#
#   tests/run-reject.sh [--list-failures] LZC [NAME...]
#
# Each program starts with `-- expect: KIND LINE`. This runs `LZC --dump-core PROG.lz`
# with a time limit and requires exit status 1 (errors in the user's program), and the
# first diagnostic line `FILE:L:C: error:` to name the program itself with L == LINE.
# A crash (exit status > 128), a time-out or an internal error (exit 3) is a failure
# with that reason. Prints one line per failure, then `N passed, M failed`, and exits 1
# if anything failed; --list-failures prints only the failing names. NAME... restricts
# the run to those programs.
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
    progs+=("$here/reject/$n.lz")
  done
else
  for p in "$here"/reject/*.lz; do [ -e "$p" ] && progs+=("$p"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

first_line_of() { grep -m1 "$@" | tr -s ' ' | cut -c1-200; }

# Compile one program; write "PASS" or a one-line failure to $tmp/NAME.result.
run_one() {
  local prog="$1" name err out rc header kind line first msg loc file l
  name="$(basename "$prog" .lz)"
  err="$tmp/$name.err"
  out="$tmp/$name.result"
  if [ ! -f "$prog" ]; then
    echo "FAIL $name.lz: no such program" >"$out"
    return
  fi
  header="$(head -n 1 "$prog")"
  if [[ ! "$header" =~ ^--[[:space:]]*expect:[[:space:]]*([^[:space:]]+)[[:space:]]+([0-9]+) ]]; then
    echo "FAIL $name.lz: first line is not '-- expect: KIND LINE'" >"$out"
    return
  fi
  kind="${BASH_REMATCH[1]}"
  line="${BASH_REMATCH[2]}"
  # (the outer 2>/dev/null drops the shell's own "Segmentation fault" notice)
  { timeout -k 2 "$TIMEOUT" "$LZC" --dump-core "$prog" >/dev/null 2>"$err" </dev/null; rc=$?; } 2>/dev/null
  first="$(first_line_of -e 'error' "$err")"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAIL $name.lz: timed out after ${TIMEOUT}s (expected a $kind error at line $line)" >"$out"
  elif [ $rc -gt 128 ]; then
    echo "FAIL $name.lz: crashed (signal $((rc - 128))) (expected a $kind error at line $line)" >"$out"
  elif [ $rc -eq 3 ]; then
    echo "FAIL $name.lz: internal error (exit 3): $(head -n 1 "$err" | cut -c1-200)" >"$out"
  elif [ $rc -eq 0 ]; then
    echo "FAIL $name.lz: accepted (expected a $kind error at line $line)" >"$out"
  elif [ $rc -ne 1 ]; then
    echo "FAIL $name.lz: exit status $rc, expected 1: ${first:-$(head -n 1 "$err" | cut -c1-200)}" >"$out"
  else
    loc="$(grep -m1 -E ':[0-9]+:[0-9]+: error:' "$err")"
    if [ -z "$loc" ]; then
      echo "FAIL $name.lz: no located 'FILE:LINE:COL: error:' diagnostic: ${first:-$(head -n 1 "$err")}" |
        cut -c1-300 >"$out"
      return
    fi
    msg="$(grep -m1 -A1 -E ':[0-9]+:[0-9]+: error:' "$err" | tail -n 1 | tr -s ' ' | cut -c1-200)"
    [[ "$loc" =~ ^(.*):([0-9]+):([0-9]+):\ error: ]]
    file="${BASH_REMATCH[1]}"
    l="${BASH_REMATCH[2]}"
    if [ "$file" != "$prog" ]; then
      echo "FAIL $name.lz: first error is in $file, not in the program:$msg" >"$out"
    elif [ "$l" != "$line" ]; then
      echo "FAIL $name.lz: first error at line $l, expected a $kind error at line $line:$msg" >"$out"
    else
      echo PASS >"$out"
    fi
  fi
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

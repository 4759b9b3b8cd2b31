#!/usr/bin/env bash
# run-stg-golden.sh — STG acceptance test: every program tests/golden/*.lz must convert to
# STG and pass the STG linter (which `lzc --dump-stg` runs after the conversion).
#
#   tests/run-stg-golden.sh LZC [NAME...]
#
# For each program (only *.lz directly in tests/golden; the modules in its subfolders are
# imported, not compiled on their own) this runs `LZC --dump-stg PROG.lz` with a time
# limit and requires exit status 0 and nothing from the linters on stderr. A program the
# front end itself rejects (`--dump-core` fails too) is skipped: the front-end suite
# reports it. Prints one line per failure or skip, then a summary; exits 1 if anything
# failed.
# Env: TIMEOUT (seconds per compilation, default 20), JOBS (default: number of CPUs).
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 1 ]; then
  echo "usage: $0 LZC [NAME...]" >&2
  exit 2
fi
LZC="$1"
shift
case "$LZC" in */*) LZC="$(cd "$(dirname "$LZC")" && pwd)/$(basename "$LZC")" ;; esac
TIMEOUT="${TIMEOUT:-20}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 4)}"

progs=()
if [ $# -gt 0 ]; then
  for n in "$@"; do progs+=("$here/golden/$(basename "$n" .lz).lz"); done
else
  for p in "$here"/golden/*.lz; do [ -e "$p" ] && progs+=("$p"); done
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

run_one() {
  local prog="$1" name rc reason=""
  name="$(basename "$prog" .lz)"
  { timeout -k 2 "$TIMEOUT" "$LZC" --dump-stg "$prog" >/dev/null 2>"$tmp/$name.err" </dev/null; rc=$?; } 2>/dev/null
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then reason="timed out after ${TIMEOUT}s"
  elif [ $rc -gt 128 ]; then reason="crashed (signal $((rc - 128)))"
  elif [ $rc -ne 0 ]; then reason="exit status $rc"
  elif grep -q -e "lint" -e "error:" "$tmp/$name.err"; then reason="reported a problem but exited 0"
  fi
  if [ -z "$reason" ]; then echo PASS >"$tmp/$name.result"; return; fi
  # rejected by the front end itself (not an STG problem: the front-end suite reports it)
  if [ $rc -eq 1 ] && ! grep -q "stg" "$tmp/$name.err" &&
     ! timeout -k 2 "$TIMEOUT" "$LZC" --dump-core "$prog" >/dev/null 2>&1 </dev/null; then
    echo "SKIP $name.lz: the front end rejects it" >"$tmp/$name.result"
    return
  fi
  echo "FAIL $name.lz: $reason: $(head -n 2 "$tmp/$name.err" | tr -s ' \n' ' ')" | cut -c1-400 >"$tmp/$name.result"
}

running=0
for prog in "${progs[@]}"; do
  run_one "$prog" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then wait -n; running=$((running - 1)); fi
done
wait

pass=0
fail=0
skip=0
for prog in "${progs[@]}"; do
  name="$(basename "$prog" .lz)"
  result="$(cat "$tmp/$name.result" 2>/dev/null || echo "FAIL $name.lz: no result")"
  case "$result" in
    PASS) pass=$((pass + 1)) ;;
    SKIP*) skip=$((skip + 1)); echo "$result" ;;
    *) fail=$((fail + 1)); echo "$result" ;;
  esac
done
echo "$pass passed, $fail failed, $skip skipped (rejected by the front end)"
[ "$fail" -eq 0 ]

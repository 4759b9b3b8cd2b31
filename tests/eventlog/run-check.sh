#!/usr/bin/env bash
# run-check.sh — check event logs with GHC's ghc-events library (check-eventlog.hs).
#
#   tests/eventlog/run-check.sh [-q] LOG...   check the logs (exit status 0: all pass)
#   tests/eventlog/run-check.sh --build       only build the checker, print its path
#
# The checker is compiled with ghc on first use (again when its source changes) into
# $LZ_EVENTLOG_CHECK_DIR (default: $TMPDIR/lz-check-eventlog-$UID). Without ghc, or
# without the ghc-events library (Debian: libghc-ghc-events-dev), it prints
# "skipped: ..." and exits 0, so CI passes until it installs them.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
src="$here/check-eventlog.hs"
dir="${LZ_EVENTLOG_CHECK_DIR:-${TMPDIR:-/tmp}/lz-check-eventlog-$(id -u)}"
bin="$dir/check-eventlog"

if ! command -v ghc >/dev/null 2>&1; then
  echo "skipped: ghc not installed"
  exit 0
fi
if ! ghc-pkg --simple-output list ghc-events 2>/dev/null | grep -q ghc-events; then
  echo "skipped: the ghc-events library is not installed (apt-get install libghc-ghc-events-dev)"
  exit 0
fi
# Tests run in parallel (ctest -j): one builds under a lock, into a directory of its own,
# and renames the result into place, so nobody executes a half-written checker (a ghc
# writing $bin while another test runs it failed with "Text file busy").
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
  tmp="$dir/build.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  if ! ghc -O -package ghc-events -outputdir "$tmp" -o "$tmp/check-eventlog" "$src" >"$dir/build.log" 2>&1; then
    cat "$dir/build.log" >&2
    echo "run-check.sh: cannot compile $src" >&2
    rm -rf "$tmp"
    exit 2
  fi
  mv -f "$tmp/check-eventlog" "$bin"
  rm -rf "$tmp"
fi
exec 9>&-
if [ "${1:-}" = "--build" ]; then
  echo "$bin"
  exit 0
fi
exec "$bin" "$@"

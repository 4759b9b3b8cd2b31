#!/usr/bin/env bash
# park_race.sh — collections that park capabilities, many times at -N4 (ctest: gc/park-race).
#
#   tests/gc/park_race.sh LZC WORKDIR [ROUNDS]
#
# Runs bench/nofib-mini/coins (7 700) at -N4 ROUNDS times (default 200) in each of two
# builds, alternating: -threaded, and -replay recording the run. Each run is under a 20 s
# limit and must exit 0 with the right output. Four capabilities on this machine's two
# cores collect often and park one another at heap checks and in Boehm's lock. A
# capability whose offer to park was accepted and released before it looked at the
# gathering flag, and whose park word a later collection had closed by then, slept for
# ever (Note [Parking for collections], "A decision not ours" in
# docs/notes/threaded-rts.md): one run in 6-324 of -threaded and one in 39-83 recordings
# hung.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 LZC WORKDIR [ROUNDS]" >&2; exit 2; }
LZC="$1" WORK="$2" ROUNDS="${3:-200}"
mkdir -p "$WORK" || exit 2
src="$here/../../bench/nofib-mini/coins/Main.lz"
"$LZC" -O2 -threaded "$src" -o "$WORK/coins-threaded" || { echo "FAIL: compile -threaded"; exit 1; }
"$LZC" -O2 -replay "$src" -o "$WORK/coins-replay" || { echo "FAIL: compile -replay"; exit 1; }
cd "$WORK" || exit 2

# one run: name, command...
run() {
  local name="$1" out rc why
  shift
  out=$(timeout -s KILL 20 "$@" 2>park.stderr)
  rc=$?
  [ $rc -eq 0 ] && [ "$out" = 98698 ] && return 0
  [ $rc -eq 137 ] && why="hung (killed after 20 s)" || why="exit $rc, output '$out'"
  echo "FAIL $name, round $i of $ROUNDS: $why"
  head -5 park.stderr
  exit 1
}

start=$SECONDS
for i in $(seq 1 "$ROUNDS"); do
  run "-threaded -N4" ./coins-threaded 7 700 +RTS -N4 -RTS
  run "recording at -N4" ./coins-replay 7 700 +RTS -N4 --record=park.lzr -RTS
done
echo "ok   coins 7 700 at -N4: $ROUNDS runs -threaded and $ROUNDS recordings in $((SECONDS - start)) s"

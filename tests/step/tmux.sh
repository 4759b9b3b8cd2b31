#!/usr/bin/env bash
# tests/step/tmux.sh LZC OUTDIR — the stepper used interactively, as a person would: in a
# tmux pane (a terminal), the (lzdb) prompt, `next`, `info caps`, line editing (cursor
# keys), history (Up repeats `info caps`), Enter repeating the last command, `quit`.
# Exit 77 (skipped) without tmux. Note [Stepper] in docs/notes/stepper.md.
set -u
LZC=$1
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }
mkdir -p "$OUT" && cd "$OUT" || exit 1
"$LZC" -O1 -replay "$HERE/pfib.lz" -o pfib || exit 1
./pfib +RTS -N2 --record=pfib.lzr -RTS >recorded.out || exit 1

export TERM=${TERM:-xterm} # tmux itself needs one, even detached
SOCK=lzstep$$
T() { tmux -L "$SOCK" "$@"; }
trap 'T kill-server 2>/dev/null' EXIT
T new-session -d -s step -x 150 -y 60 \
  "./pfib +RTS --replay=pfib.lzr --step -RTS; echo STEPPER-EXIT=\$?; sleep 60"
fail=0
screen() { T capture-pane -p -t step -S -200; }
# wait until the screen shows `pattern` at least `count` times (default 1)
wait_for() {
  local pattern=$1 count=${2:-1}
  for _ in $(seq 1 150); do
    [ "$(screen | grep -c -- "$pattern")" -ge "$count" ] && return 0
    sleep 0.1
  done
  echo "FAIL: waited for '$pattern' (x$count); the screen:"
  screen
  fail=1
  return 1
}
keys() { T send-keys -t step "$@"; }

wait_for '^(lzdb)' && echo "ok   the prompt"
keys "next" Enter
wait_for '^#1 .*create thread 1' && echo "ok   next prints event #1"
keys "info caps" Enter
wait_for '^cap 1: ' && echo "ok   info caps"
keys Up Enter # history: `info caps` again
wait_for '^cap 1: ' 2 && echo "ok   Up recalls the last command"
keys "nxt" Left Left "e" Enter # edited in place to `next`
wait_for '^#2 ' && echo "ok   the line can be edited (cursor keys)"
keys Enter # an empty line repeats `next`
wait_for '^#3 ' && echo "ok   Enter repeats the last command"
keys "when" Enter
wait_for '^event #3 of ' && echo "ok   when"
keys "quit" Enter
wait_for 'STEPPER-EXIT=0' && echo "ok   quit leaves with status 0"
[ $fail -eq 0 ] && echo "all ok"
exit $fail

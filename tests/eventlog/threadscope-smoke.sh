#!/usr/bin/env bash
# threadscope-smoke.sh — does ThreadScope open a log and draw its timeline?
#
#   tests/eventlog/threadscope-smoke.sh LOG [SCREENSHOT.png]
#
# Runs threadscope on LOG inside a virtual X server (xvfb-run) for a few seconds,
# takes a screenshot (xwd, converted with ImageMagick) and measures the share of the
# timeline area drawn in ThreadScope's "running" green. A log ThreadScope cannot read
# shows an error box instead and has none. Exit 0 if the timeline is drawn; prints
# "skipped: ..." and exits 0 when threadscope, xvfb-run, xwd or convert is missing.
# (Debian: apt-get install threadscope xvfb x11-apps imagemagick)
set -euo pipefail
# Opt-in: ThreadScope 0.2.14 itself sometimes dies with "chop" (GUI/Timeline/Activity.hs)
# on a timing-dependent synthetic log, which made CI flaky. Run it by hand or with
# LZ_THREADSCOPE_TEST=1 until the logs come from real programs (issue 4).
if [ "${LZ_THREADSCOPE_TEST:-0}" != 1 ]; then echo "skipped: set LZ_THREADSCOPE_TEST=1"; exit 0; fi
log="$(realpath "$1")"; png="${2:-}"
for tool in threadscope xvfb-run xwd convert; do
  command -v "$tool" >/dev/null 2>&1 || { echo "skipped: $tool not installed"; exit 0; }
done
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
timeout 60 xvfb-run -a -s "-screen 0 1280x800x24" sh -c '
  threadscope "$1" >"$2/ts.out" 2>&1 & ts=$!
  sleep "${LZ_THREADSCOPE_WAIT:-8}"
  xwd -root -silent >"$2/shot.xwd"
  kill $ts 2>/dev/null; wait $ts 2>/dev/null || true' sh "$log" "$tmp" || true
[ -s "$tmp/shot.xwd" ] || { echo "FAIL: no screenshot"; cat "$tmp/ts.out" 2>/dev/null; exit 1; }
convert "$tmp/shot.xwd" "$tmp/shot.png"
[ -n "$png" ] && cp "$tmp/shot.png" "$png"
# the timeline area of ThreadScope's default window; "running" is srgb(0,102,0)
green="$(convert "$tmp/shot.png" -crop 990x300+190+95 +repage -fuzz 3% \
  -fill black +opaque "srgb(0,102,0)" -fill white -opaque "srgb(0,102,0)" -format "%[fx:mean]" info:)"
if awk -v g="$green" 'BEGIN { exit !(g > 0.01) }'; then
  echo "threadscope drew $log (running: ${green} of the timeline)"
else
  echo "FAIL: threadscope drew no timeline for $log (running: ${green})"
  cat "$tmp/ts.out"
  exit 1
fi

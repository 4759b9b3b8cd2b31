#!/usr/bin/env bash
# run-chromium.sh — the ctest profiler/timeline-chromium: `lzprof timeline` pages loaded in
# a real browser, Debian's headless Chromium.
#
#   tests/profiler/run-chromium.sh LZPROF GEN_EVENTLOG WORKDIR
#
# For a synthetic 3-capability log with spark sites and the committed GHC log
# (fixtures/parprog-N2-lf): the page is opened as FILE#selftest (the page's self-test hook,
# end of profiler/timeline_page.html) with --dump-dom; the test checks that the console
# shows nothing but the hook's own line (no error, no exception), that exactly one row
# per capability is painted (and nothing below the last), and that clicks on a running
# interval and on a spark tick show their details (thread, times, stop reason; spark id,
# site, run time). A screenshot of each page after the clicks is kept in WORKDIR
# (*.png). Exit status 77 (ctest: skipped) when chromium is not installed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lzprof="$1"; gen="$2"; work="$3"
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "skipped: chromium is not installed (apt-get install chromium)"
  exit 77
fi
rm -rf "$work"; mkdir -p "$work"; cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# a private profile and no sandbox (CI runs as root); the page needs nothing else
chrome() { "$browser" --headless --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0 --window-size=1280,520 "$@"; }

check_page() { # NAME LOG NCAPS
  local name="$1" log="$2" ncaps="$3"
  "$lzprof" timeline "$log" -o "$name.html" 2>/dev/null || { fail "timeline $log"; return; }
  local url="file://$work/$name.html#selftest"
  timeout 60 bash -c "$(declare -f chrome); browser='$browser' work='$work' chrome --dump-dom '$url'" \
    >"$name.dom" 2>"$name.console" || { tail -5 "$name.console"; fail "$name: chromium failed"; return; }
  grep 'CONSOLE' "$name.console" | grep -v '"lzprof selftest: ' >"$name.errors" || true
  [ ! -s "$name.errors" ] || { cat "$name.errors"; fail "$name: console messages (errors) while loading the page"; }
  sed -n 's|.*<pre id="selftest">\(.*\)</pre>.*|\1|p' "$name.dom" | sed 's/&quot;/"/g; s/&amp;/\&/g; s/&lt;/</g; s/&gt;/>/g' >"$name.json"
  [ -s "$name.json" ] || { fail "$name: the page's self-test did not run (script error?)"; return; }
  python3 - "$name.json" "$ncaps" <<'EOF' || fail "$name: self-test results wrong"
import json, re, sys
r = json.load(open(sys.argv[1])); n = int(sys.argv[2]); bad = []
if r["ncaps"] != n or len(r["rows"]) != n: bad.append(f"{len(r['rows'])} capability rows, want {n}")
if not all(p > 100 for p in r["rows"]): bad.append(f"a capability row is not painted: {r['rows']}")
if r["below"]: bad.append(f"{r['below']} painted pixels below the last capability row")
if len(r["clicks"]) != 2: bad.append(f"{len(r['clicks'])} clicks answered, want 2")
else:
    iv, sp = r["clicks"]
    if not re.match(r"cap 0: running — thread \d+", iv) or not re.search(r"from .* to .*\n(stopped: |still running)", iv):
        bad.append("click on a running interval showed: " + iv)
    if not re.match(r"spark \d+:\d+.* (created|dud|overflowed|run|stolen|fizzled|GC'd) on cap \d+ at ", sp):
        bad.append("click on a spark tick showed: " + sp)
for b in bad: print("FAIL: " + b)
print("rows painted: %s; interval click: %s; spark click: %s" % (r["rows"], r["clicks"][0].split("\n")[0] if r["clicks"] else "-", r["clicks"][-1].split("\n")[0] if r["clicks"] else "-"))
sys.exit(1 if bad else 0)
EOF
  timeout 60 bash -c "$(declare -f chrome); browser='$browser' work='$work' chrome --screenshot='$work/$name.png' '$url'" \
    >/dev/null 2>&1 || fail "$name: no screenshot"
  [ -s "$name.png" ] && echo "screenshot: $work/$name.png"
}

"$gen" synthetic3.eventlog --caps 3 --sites --events 20000 >/dev/null 2>&1
check_page synthetic3 synthetic3.eventlog 3
grep -q 'par site: ' synthetic3.json || fail "synthetic3: the spark click shows no par site"
check_page parprog "$here/fixtures/parprog-N2-lf.eventlog" 2

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "timeline pages in Chromium: checked"

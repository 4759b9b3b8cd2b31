#!/usr/bin/env bash
# check.sh - compile the Lz standard library with GHC (through LzShim.hs and
# convert.py) and run the test programs in check/tests against both GHC's own
# base and the converted Lz library, comparing stdout, exit status and the first
# line of stderr.
#
#   stdlib/check/check.sh            type-check the library, run all tests
#   stdlib/check/check.sh NAME...    only these tests (check/tests/NAME.hs)
#   KEEP=1 ...                       keep the work directory (printed)
#
# A test program is ordinary Haskell (no deriving, no arithmetic sequences over
# Lz-only types: GHC's RebindableSyntax does not rebind them); it may read
# tests/NAME.stdin and take arguments from tests/NAME.args.
# Limits of the method: the library is compiled by GHC, so this checks the
# Haskell in stdlib/ and the primops' documented meaning (LzShim.hs), not lzc
# or the runtime. One restriction it imposes on stdlib code: no `if` whose
# branches have an unlifted type (RebindableSyntax's ifThenElse is lifted);
# use guards or case instead.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stdlib="$(dirname "$here")"
work="$(mktemp -d "${TMPDIR:-/tmp}/lzcheck.XXXXXX")"
trap '[[ -n "${KEEP:-}" ]] && echo "kept $work" || rm -rf "$work"' EXIT

cd "$work"
mods=$(python3 "$here/convert.py" lib "$stdlib" lib)
cp "$here/LzShim.hs" "$here/LzRun.hs" lib/
mkdir -p obj
GHCOPTS=(-O0 -ilib -outputdir obj -v0 -Wno-missing-methods -Wno-overlapping-patterns -Wno-inaccessible-code)
echo "== compiling the library"
# shellcheck disable=SC2086
ghc "${GHCOPTS[@]}" -c -fforce-recomp --make $mods LzRun >build.log 2>&1 || { cat build.log; exit 1; }
grep -E "error" build.log || true

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for f in "$here"/tests/*.hs; do names+=("$(basename "$f" .hs)"); done
fi
fails=0
for n in "${names[@]}"; do
  src="$here/tests/$n.hs"
  mkdir -p "t/$n/ghc" "t/$n/lz"
  cp "$src" "t/$n/ghc/$n.hs"
  python3 "$here/convert.py" prog "$src" "t/$n/lz/$n.hs"
  args=()
  [[ -f "$here/tests/$n.args" ]] && read -r -a args <"$here/tests/$n.args"
  input=/dev/null
  [[ -f "$here/tests/$n.stdin" ]] && input="$here/tests/$n.stdin"
  ok=1
  if ! (cd "t/$n/ghc" && ghc -O2 -v0 -outputdir obj -o "$n" "$n.hs" >../ghc-build.log 2>&1); then
    echo "FAIL $n: GHC could not compile the test:"; cat "t/$n/ghc-build.log"; fails=$((fails+1)); continue
  fi
  if ! ghc "${GHCOPTS[@]}" -o "t/$n/lz/$n" "t/$n/lz/$n.hs" >"t/$n/lz-build.log" 2>&1; then
    echo "FAIL $n: the converted program does not compile:"; head -60 "t/$n/lz-build.log"; fails=$((fails+1)); continue
  fi
  for w in ghc lz; do
    rc=0
    (cd "t/$n/$w" && timeout 20 "./$n" "${args[@]}" <"$input" >out.txt 2>err.txt) || rc=$?
    echo "$rc" >"t/$n/$w/rc.txt"
    head -n 1 "t/$n/$w/err.txt" >"t/$n/$w/err1.txt"
  done
  for f in out.txt rc.txt err1.txt; do
    if ! cmp -s "t/$n/ghc/$f" "t/$n/lz/$f"; then
      ok=0
      echo "FAIL $n: $f differs (< ghc, > lz):"
      diff "t/$n/ghc/$f" "t/$n/lz/$f" | head -20 || true
    fi
  done
  if [[ $ok -eq 1 ]]; then echo "ok   $n"; else fails=$((fails+1)); fi
done
echo "== $fails failure(s)"
[[ $fails -eq 0 ]]

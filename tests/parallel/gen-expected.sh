#!/usr/bin/env bash
# gen-expected.sh — regenerate the expected outputs of the parallel corpus with GHC, the oracle.
#
#   tests/parallel/gen-expected.sh            # all tests/parallel/*.lz
#   tests/parallel/gen-expected.sh NAME...    # only these (NAME, NAME.lz or a path)
#
# Each NAME.lz is copied to NAME.hs, built with `ghc $GHCFLAGS -rtsopts -package parallel`
# (default GHCFLAGS "-O1 -threaded") into an executable named NAME, and run with no arguments,
# stdin /dev/null, at `+RTS -N2` (RTSFLAGS). Written next to the program:
#   NAME.stdout  GHC's standard output
#   NAME.exit    its exit status (just the number)
#   NAME.stderr  only when the exit status is non-zero: the FIRST line of stderr, a leading
#                "NAME: " replaced by "PROG: " (removed when the status is zero)
#   NAME.sparks  the number of `par`s (spark# calls) the program executes: the total of the
#                SPARKS line (created + dud + overflowed) of a second build with -O0 instead of
#                -O1, run SPARKRUNS times at `+RTS -N1 -s`; written when those runs agree,
#                removed otherwise. -O0 because GHC -O1 drops some sparks of values that
#                need no evaluation (`rpar (2 :: Int)` in runEval; `par` keeps them), and -N1
#                because at -N2 and more GHC's total can be higher: with lazy blackholing two
#                capabilities may evaluate the same thunk and execute the `par`s inside it
#                twice. Lz blackholes eagerly (DESIGN.md) and never drops a spark#, so its
#                total must be this number at every -N (run.sh checks it).
# Check runs: the -O1 build is also run SPARKRUNS times (default 2) at each of -N1, -N2, -N4
# with -s; stdout and exit status must equal the first run's, otherwise the program is not
# deterministic and the script fails for it (fix the program, not the expected file). The
# -O1 totals of those runs are printed for information.
# The same conventions as tests/gen-golden.sh; run.sh in this folder reads these files.
# Env: GHC (default ghc), GHCFLAGS, RTSFLAGS (default -N2), TIMEOUT (seconds per run, 30),
#      SPARKRUNS (2).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GHC="${GHC:-ghc}"
GHCFLAGS="${GHCFLAGS:--O1 -threaded}"
RTSFLAGS="${RTSFLAGS:--N2}"
TIMEOUT="${TIMEOUT:-30}"
SPARKRUNS="${SPARKRUNS:-2}"

command -v "$GHC" >/dev/null || {
  echo "gen-expected: $GHC not found (apt-get install -y ghc libghc-parallel-dev)" >&2
  exit 2
}

# the total of a `SPARKS: T (...)` line in file $1, or "none"
sparks_total() {
  local t
  t="$(sed -n 's/^ *SPARKS: \([0-9][0-9]*\) (.*/\1/p' "$1" | head -n 1)"
  echo "${t:-none}"
}

gen_one() {
  local name
  name="$(basename "$1" .lz)"
  local src="$here/$name.lz"
  [[ -f "$src" ]] || { echo "gen-expected: no such program $src" >&2; return 1; }
  local tmp
  tmp="$(mktemp -d "${TMPDIR:-/tmp}/gen-parallel.XXXXXX")"
  cp "$src" "$tmp/$name.hs"
  # shellcheck disable=SC2086
  if ! (cd "$tmp" && "$GHC" $GHCFLAGS -rtsopts -package parallel -outputdir obj -o "$name" "$name.hs" >build.log 2>&1); then
    echo "gen-expected: $name: GHC FAILED to compile:" >&2
    cat "$tmp/build.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  if ! (cd "$tmp" && "$GHC" -O0 -threaded -rtsopts -package parallel -outputdir obj0 \
    -o "$name.O0" "$name.hs" >build0.log 2>&1); then
    echo "gen-expected: $name: GHC -O0 FAILED to compile:" >&2
    cat "$tmp/build0.log" >&2
    rm -rf "$tmp"
    return 1
  fi
  local rc=0 t0 t1
  t0=$(date +%s%N)
  # shellcheck disable=SC2086
  (cd "$tmp" && timeout "$TIMEOUT" "./$name" +RTS $RTSFLAGS -RTS </dev/null >out.txt 2>err.txt) || rc=$?
  t1=$(date +%s%N)
  # determinism and spark totals: the same program at -N1/-N2/-N4 with -s
  local n i totals="" totals1="" bad=""
  for n in 1 2 4; do
    for ((i = 1; i <= SPARKRUNS; i++)); do
      local rc2=0
      (cd "$tmp" && timeout "$TIMEOUT" "./$name" +RTS -N$n -s -RTS </dev/null >out2.txt 2>err2.txt) || rc2=$?
      if [[ "$rc2" != "$rc" ]] || ! cmp -s "$tmp/out.txt" "$tmp/out2.txt"; then
        bad="-N$n run $i: exit $rc2 (first run $rc) or stdout differs"
      fi
      totals="$totals $(sparks_total "$tmp/err2.txt")"
    done
  done
  for ((i = 1; i <= SPARKRUNS; i++)); do
    (cd "$tmp" && timeout "$TIMEOUT" "./$name.O0" +RTS -N1 -s -RTS </dev/null >/dev/null 2>err0.txt) || true
    totals1="$totals1 $(sparks_total "$tmp/err0.txt")"
  done
  if [[ -n "$bad" ]]; then
    echo "gen-expected: $name: NOT DETERMINISTIC ($bad); expected files left unchanged" >&2
    rm -rf "$tmp"
    return 1
  fi
  cp "$tmp/out.txt" "$here/$name.stdout"
  echo "$rc" >"$here/$name.exit"
  if [[ "$rc" -ne 0 ]]; then
    head -n 1 "$tmp/err.txt" | sed -e "s|^$name: |PROG: |" -e 's|\([A-Za-z0-9_/.]*\)\.hs:|\1.lz:|g' \
      >"$here/$name.stderr"
  else
    rm -f "$here/$name.stderr"
  fi
  local distinct sparks_note
  distinct="$(tr ' ' '\n' <<<"$totals1" | sed '/^$/d' | sort -u)"
  if [[ "$(wc -l <<<"$distinct")" == 1 && "$distinct" != none ]]; then
    echo "$distinct" >"$here/$name.sparks"
    sparks_note="sparks $distinct"
  else
    rm -f "$here/$name.sparks"
    sparks_note="no .sparks (-O0 -N1 totals vary:$totals1)"
  fi
  sparks_note="$sparks_note (-O1 at -N1,2,4:$totals)"
  rm -rf "$tmp"
  echo "gen-expected: $name: exit $rc, $(wc -l <"$here/$name.stdout") lines, $sparks_note," \
    "ran in $(((t1 - t0) / 1000000)) ms"
}

if [[ $# -gt 0 ]]; then
  names=("$@")
else
  names=()
  for f in "$here"/*.lz; do names+=("$(basename "$f" .lz)"); done
fi
fails=0
for n in "${names[@]}"; do gen_one "$n" || fails=$((fails + 1)); done
if [[ $fails -ne 0 ]]; then
  echo "gen-expected: $fails program(s) failed" >&2
  exit 1
fi

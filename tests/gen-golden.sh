#!/usr/bin/env bash
# Regenerate expected outputs of the golden tests using GHC as the oracle.
#
#   tests/gen-golden.sh            # all tests/golden/*.lz
#   tests/gen-golden.sh NAME...    # only these (NAME or NAME.lz or a path)
#
# For each program NAME.lz this writes, next to it:
#   NAME.stdout  - GHC build's standard output (run with no args, stdin from
#                  NAME.stdin if present, else /dev/null)
#   NAME.exit    - exit status (just the number)
#   NAME.stderr  - only when the exit status is non-zero: the FIRST line of
#                  stderr, with the program name normalised to PROG and
#                  "NAME.hs" normalised to "NAME.lz" (e.g. "PROG: boom").
#                  Removed when the exit status is zero.
# Helper modules live in subfolders of tests/golden (module A.B = A/B.lz);
# every subfolder is copied (renamed .lz -> .hs) next to each program.
# The executable is named NAME, so getProgName prints NAME.
#
# Env: GHC (default ghc), GHCFLAGS (default "-O2 -threaded"), TIMEOUT (secs, 20),
#      JOBS (parallel builds, default 1).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
golden="$here/golden"
GHC="${GHC:-ghc}"
GHCFLAGS="${GHCFLAGS:--O2 -threaded}"
TIMEOUT="${TIMEOUT:-20}"
JOBS="${JOBS:-1}"

command -v "$GHC" >/dev/null || { echo "gen-golden: $GHC not found (apt-get install -y ghc libghc-parallel-dev)" >&2; exit 2; }

gen_one() {
    local name="$1"
    name="$(basename "$name" .lz)"
    local src="$golden/$name.lz"
    if [[ ! -f "$src" ]]; then echo "gen-golden: no such program $src" >&2; return 1; fi
    local tmp
    tmp="$(mktemp -d "${TMPDIR:-/tmp}/gen-golden.XXXXXX")"
    # helper modules: copy every subfolder, .lz -> .hs
    local d f rel
    for d in "$golden"/*/; do
        [[ -d "$d" ]] || continue
        while IFS= read -r -d '' f; do
            rel="${f#"$golden"/}"
            mkdir -p "$tmp/$(dirname "$rel")"
            cp "$f" "$tmp/${rel%.lz}.hs"
        done < <(find "$d" -name '*.lz' -print0)
    done
    cp "$src" "$tmp/$name.hs"
    # shellcheck disable=SC2086
    if ! (cd "$tmp" && "$GHC" $GHCFLAGS -package parallel -outputdir obj -o "$name" "$name.hs" >build.log 2>&1); then
        echo "gen-golden: $name: GHC FAILED to compile:" >&2
        cat "$tmp/build.log" >&2
        rm -rf "$tmp"
        return 1
    fi
    local input=/dev/null
    [[ -f "$golden/$name.stdin" ]] && input="$golden/$name.stdin"
    local rc=0 t0 t1
    t0=$(date +%s%N)
    (cd "$tmp" && timeout "$TIMEOUT" "./$name" <"$input" >out.txt 2>err.txt) || rc=$?
    t1=$(date +%s%N)
    cp "$tmp/out.txt" "$golden/$name.stdout"
    echo "$rc" >"$golden/$name.exit"
    if [[ "$rc" -ne 0 ]]; then
        # first line of stderr; program name -> PROG; NAME.hs -> NAME.lz
        head -n 1 "$tmp/err.txt" \
          | sed -e "s|^$name: |PROG: |" -e 's|\([A-Za-z0-9_/.]*\)\.hs:|\1.lz:|g' \
          >"$golden/$name.stderr"
    else
        rm -f "$golden/$name.stderr"
    fi
    rm -rf "$tmp"
    echo "gen-golden: $name: exit $rc, $(wc -l <"$golden/$name.stdout") lines of stdout, ran in $(( (t1 - t0) / 1000000 )) ms"
}

if [[ $# -gt 0 ]]; then
    names=("$@")
else
    names=()
    for f in "$golden"/*.lz; do names+=("$(basename "$f" .lz)"); done
fi

if [[ "$JOBS" -gt 1 && ${#names[@]} -gt 1 ]]; then
    export -f gen_one
    export golden GHC GHCFLAGS TIMEOUT
    printf '%s\n' "${names[@]}" | xargs -P "$JOBS" -I{} bash -c 'set -euo pipefail; gen_one "$1"' _ {}
else
    fails=0
    for n in "${names[@]}"; do gen_one "$n" || fails=$((fails + 1)); done
    if [[ $fails -ne 0 ]]; then echo "gen-golden: $fails program(s) failed" >&2; exit 1; fi
fi

#!/usr/bin/env bash
# Verify every tests/reject/*.lz with GHC (the oracle):
#   - GHC must reject it, and
#   - the line of GHC's FIRST reported error must equal LINE in the file's
#     first line, which reads:   -- expect: KIND LINE
#     (KIND is one of parse scope type kind instance occurs; it is checked
#      only for being one of these words, GHC has no machine-readable class).
# Helper modules live in subfolders (module A.B = A/B.lz) and are copied
# (renamed .lz -> .hs) next to each program.
#
#   tests/reject/check-with-ghc.sh          # all
#   tests/reject/check-with-ghc.sh NAME...  # some
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GHC="${GHC:-ghc}"
command -v "$GHC" >/dev/null || { echo "check-with-ghc: $GHC not found" >&2; exit 2; }

if [[ $# -gt 0 ]]; then
    names=()
    for n in "$@"; do names+=("$(basename "$n" .lz)"); done
else
    names=()
    for f in "$here"/*.lz; do names+=("$(basename "$f" .lz)"); done
fi

pass=0
fail=0
for name in "${names[@]}"; do
    src="$here/$name.lz"
    header="$(head -n 1 "$src")"
    if [[ ! "$header" =~ ^--\ expect:\ (parse|scope|type|kind|instance|occurs)\ ([0-9]+)[[:space:]]*$ ]]; then
        echo "FAIL $name: bad header: $header"
        fail=$((fail + 1)); continue
    fi
    kind="${BASH_REMATCH[1]}"
    want="${BASH_REMATCH[2]}"
    tmp="$(mktemp -d "${TMPDIR:-/tmp}/check-reject.XXXXXX")"
    for d in "$here"/*/; do
        [[ -d "$d" ]] || continue
        while IFS= read -r -d '' f; do
            rel="${f#"$here"/}"
            mkdir -p "$tmp/$(dirname "$rel")"
            cp "$f" "$tmp/${rel%.lz}.hs"
        done < <(find "$d" -name '*.lz' -print0)
    done
    cp "$src" "$tmp/$name.hs"
    rc=0
    (cd "$tmp" && "$GHC" -fno-code -fforce-recomp "$name.hs" >out.txt 2>&1) || rc=$?
    if [[ $rc -eq 0 ]]; then
        echo "FAIL $name: GHC accepted it"
        fail=$((fail + 1)); rm -rf "$tmp"; continue
    fi
    # first "<file>.hs:LINE:COL: error" (or "<file>.hs:(L,C)-(L,C): error") line
    first="$(grep -m1 -E '^[^ ]+\.hs:([0-9]+|\([0-9]+,[0-9]+\)-\([0-9]+,[0-9]+\)):.*error' "$tmp/out.txt" || true)"
    got="$(sed -E 's/^[^ ]+\.hs:\(?([0-9]+).*/\1/' <<<"$first")"
    file="$(sed -E 's/^([^ ]+\.hs):.*/\1/' <<<"$first")"
    if [[ "$file" != "$name.hs" ]]; then
        echo "FAIL $name: first error is in $file, not in the program: $first"
        fail=$((fail + 1))
    elif [[ "$got" != "$want" ]]; then
        echo "FAIL $name: expected line $want ($kind), GHC's first error is at line $got:"
        sed -n '1,8p' "$tmp/out.txt" | sed 's/^/    /'
        fail=$((fail + 1))
    else
        msg="$(grep -A2 -m1 -E '^[^ ]+\.hs:.*error' "$tmp/out.txt" | tail -n +2 | tr -s ' \n' ' ' | cut -c1-110)"
        echo "ok   $name ($kind $want):$msg"
        pass=$((pass + 1))
    fi
    rm -rf "$tmp"
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]

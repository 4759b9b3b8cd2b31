#!/bin/sh
# tests/ctime/base.sh LZC WORKDIR — the precompiled base (lzc-base next to lzc, made by the
# build; Note [Precompiled base] in docs/notes/backend.md): a fresh compile with an empty
# cache finds it, takes the library definitions from it and writes no cache entry when the
# base has them all; the program links and prints what GHC prints; a base made by another
# compiler build (or none) is not used; --make-base makes a working one elsewhere. ~20 s.
set -u
LZC=$1
WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$WORK"
mkdir -p "$WORK"
unset LZC_CACHE LZC_SPLIT LZC_CACHE_MB LZC_BASE LZC_BASE_DIR
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# compile NAME CACHE [env...]: builds $WORK/NAME with an empty cache directory CACHE, keeps the
# phase timings in $WORK/NAME.log, checks the output against NAME.stdout
compile() {
  name=$1
  cache=$2
  shift 2
  rm -rf "$cache"
  if ! env "$@" LZC_CACHE_DIR="$cache" LZC_TIMINGS=1 "$LZC" -O2 "$HERE/$name.lz" \
    -o "$WORK/$name" 2>"$WORK/$name.log"; then
    fail "$name: lzc failed ($*)"
    cat "$WORK/$name.log"
    return
  fi
  "$WORK/$name" >"$WORK/$name.out" 2>&1 || fail "$name: exit status $? ($*)"
  cmp -s "$WORK/$name.out" "$HERE/$name.stdout" || fail "$name: wrong output ($*)"
}
has() { grep -q "$2" "$WORK/$1.log" || { fail "$1: no '$2' in the log:" && cat "$WORK/$1.log"; }; }
hasnt() { ! grep -q "$2" "$WORK/$1.log" || fail "$1: '$2' in the log"; }

[ -f "$(dirname "$LZC")/lzc-base/manifest" ] || fail "no lzc-base/manifest next to $LZC"

# fib: show and putStrLn, all in the base: nothing of the library is compiled or cached
compile fib "$WORK/cache-fib"
has fib '^lzc: base object .*/lzc-base/base.o (precompiled)'
hasnt fib '^lzc: library object'
[ -e "$WORK/cache-fib" ] && fail "fib: the cache directory was written: $(ls "$WORK/cache-fib")"
# sorted: most of its library from the base, what is not (if anything) built and cached
compile sorted "$WORK/cache-sorted"
has sorted '(precompiled)'
# no base: LZC_BASE=0, or one that another compiler build made (its manifest's first line)
compile fib "$WORK/cache-fib" LZC_BASE=0
hasnt fib '(precompiled)'
has fib '^lzc: library object .* (built)'
mkdir -p "$WORK/other"
cp "$(dirname "$LZC")/lzc-base/base.o" "$WORK/other/"
sed '1s/.*/lz-base 1 0123456789abcdef0123456789abcdef/' "$(dirname "$LZC")/lzc-base/manifest" \
  >"$WORK/other/manifest"
compile fib "$WORK/cache-fib" LZC_BASE_DIR="$WORK/other"
hasnt fib '(precompiled)'
# --make-base into a directory of its own, then used by a compile that names it
if LZC_CACHE=0 "$LZC" -O2 --make-base "$WORK/made" "$HERE/fact.lz" -o "$WORK/fact-made" \
  2>"$WORK/made.log"; then
  [ -s "$WORK/made/base.o" ] && [ -s "$WORK/made/manifest" ] || fail "--make-base: no base.o or manifest"
  compile fact "$WORK/cache-fact" LZC_BASE_DIR="$WORK/made"
  has fact "$WORK/made/base.o (precompiled)"
  hasnt fact '^lzc: library object'
else
  fail "--make-base failed"
  cat "$WORK/made.log"
fi
"$LZC" -O2 --make-base /proc/no/such/dir "$HERE/fact.lz" -o "$WORK/x" 2>"$WORK/bad.log"
[ $? = 1 ] && grep -q "make-base" "$WORK/bad.log" || fail "--make-base into an impossible directory: $(cat "$WORK/bad.log")"

[ "$fails" = 0 ] && echo "ctime/base: all passed"
exit "$fails"

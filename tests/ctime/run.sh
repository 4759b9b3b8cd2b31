#!/bin/sh
# tests/ctime/run.sh LZC WORKDIR — the library part's object cache (codegen/cg_split.c,
# cg_cache.c; Note [Compile time] in docs/notes/backend.md): a miss stores one object, another
# Main over the same library hits it, outputs are GHC's with and without the split, a broken
# or unwritable cache never breaks a compilation, and the size limit prunes. ~15 s.
set -u
LZC=$1
WORK=$2
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=$WORK/cache
rm -rf "$WORK"
mkdir -p "$WORK"
export LZC_CACHE_DIR=$CACHE
unset LZC_CACHE LZC_SPLIT LZC_CACHE_MB LZC_BASE_DIR
export LZC_BASE=0 # (the cache alone; the precompiled base: base.sh)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
entries() { ls "$CACHE" 2>/dev/null | grep -c '^[0-9a-f]*\.o$'; }

# compile NAME [env...]: builds $WORK/NAME, keeps the phase timings in $WORK/NAME.log, checks
# the output against NAME.stdout
compile() {
  name=$1
  shift
  if ! env "$@" LZC_TIMINGS=1 "$LZC" -O2 "$HERE/$name.lz" -o "$WORK/$name" 2>"$WORK/$name.log"; then
    fail "$name: lzc failed ($*)"
    cat "$WORK/$name.log"
    return
  fi
  "$WORK/$name" >"$WORK/$name.out" 2>&1 || fail "$name: exit status $? ($*)"
  cmp -s "$WORK/$name.out" "$HERE/$name.stdout" || fail "$name: wrong output ($*)"
}
phase() { grep -q "^lzc: $2 " "$WORK/$1.log"; }

compile fib
phase fib "library" || fail "fib: first compilation did not build the library part"
[ "$(entries)" = 1 ] || fail "fib: expected 1 cache entry, found $(entries)"
compile fact
phase fact "library (cached)" || fail "fact: same library part not found in the cache"
[ "$(entries)" = 1 ] || fail "fact: expected still 1 cache entry, found $(entries)"
compile fib
phase fib "library (cached)" || fail "fib: second compilation missed the cache"
compile sorted
phase sorted "library" || fail "sorted: a different library part hit the cache"
[ "$(entries)" = 2 ] || fail "sorted: expected 2 cache entries, found $(entries)"

# the same programs without the split, and without a cache
compile sorted LZC_SPLIT=0
phase sorted "split" && fail "sorted: LZC_SPLIT=0 still split the module"
compile fact LZC_CACHE=0
phase fact "library" || fail "fact: LZC_CACHE=0 should build the library part itself"
[ "$(entries)" = 2 ] || fail "LZC_CACHE=0 changed the cache ($(entries) entries)"

# an empty entry (a crash while writing one cannot leave it, but a full disk might) is a miss
for f in "$CACHE"/*.o; do : >"$f"; done
compile fact
phase fact "library" || fail "fact: an empty cache entry was used"
# an unusable cache directory: the object is a temporary file
compile fib LZC_CACHE_DIR="$HERE/fib.lz/not-a-dir"
compile fib LZC_CACHE_DIR=/proc/lz-no-such-dir
ls "$CACHE" | grep -q 'lzc-' && fail "temporary objects left in the cache directory"

# the size limit (these entries are 20 KB to 0.5 MB): each store over 60 KB prunes the older
# entries to 45 KB, never the one just stored
rm -rf "$CACHE"
compile fib LZC_CACHE_MB=0.06
compile sorted LZC_CACHE_MB=0.06
compile words LZC_CACHE_MB=0.06
[ "$(entries)" = 1 ] || fail "LZC_CACHE_MB=0.06: expected 1 entry, found $(entries)"
compile words LZC_CACHE_MB=0.06
phase words "library (cached)" || fail "words: the entry just stored was pruned"

if [ "$fails" -gt 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "ctime: all checks passed"

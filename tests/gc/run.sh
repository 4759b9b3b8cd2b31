#!/usr/bin/env bash
# run.sh — the collector's set-up in the threaded way (ctest: gc/threads).
#
#   tests/gc/run.sh LZC WORKDIR
#
# Compiles tests/gc/alloc.lz with -threaded (a program that allocates ~570 MB and
# collects ~20 times), runs it with +RTS -s and checks the output and how many
# collections were parallel (the "par" column of -s: Boehm marked with more than one
# thread), Note [GC threads] in docs/notes/threaded-rts.md: -N1 marks with one thread,
# -N2 with two (this machine has >= 2 cores, else that case is skipped), -qn<n> and -qg
# override it, GC_MARKERS in the environment overrides them all, and -qn0 is an error.
# Also: lzc refuses a runtime that has no liblzgc.a beside it (Note [Granules]).
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 LZC WORKDIR" >&2; exit 2; }
LZC="$1" WORK="$2"
mkdir -p "$WORK" || exit 2
prog="$WORK/alloc"
"$LZC" -O2 -threaded "$here/alloc.lz" -o "$prog" || { echo "FAIL: compile"; exit 1; }
cores=$(nproc)
fails=0

# case: name, env ("-" for none), RTS flags, expected par: "none" or "all"
check() {
  local name="$1" env="$2" flags="$3" want="$4" out err colls par
  err="$WORK/$name.stderr"
  if [ "$env" = - ]; then
    out=$("$prog" +RTS $flags -s -RTS 2>"$err")
  else
    out=$(env "$env" "$prog" +RTS $flags -s -RTS 2>"$err")
  fi
  local rc=$?
  read -r colls par < <(sed -n 's/^ *Gen  1 *\([0-9]*\) colls, *\([0-9]*\) par.*/\1 \2/p' "$err")
  if [ $rc -ne 0 ] || [ "$out" != 400045778895 ]; then
    echo "FAIL $name: exit $rc, output '$out'"; fails=$((fails + 1)); return
  fi
  if [ -z "${colls:-}" ] || [ "$colls" -lt 2 ]; then
    echo "FAIL $name: expected collections, -s says '${colls:-?}'"; fails=$((fails + 1)); return
  fi
  if { [ "$want" = none ] && [ "$par" -ne 0 ]; } || { [ "$want" = all ] && [ "$par" -ne "$colls" ]; }; then
    echo "FAIL $name: $colls collections, $par parallel, expected $want parallel"
    fails=$((fails + 1)); return
  fi
  echo "ok   $name: $colls collections, $par parallel"
}

check n1 - "-N1" none
check n1-qn2 - "-N1 -qn2" all
if [ "$cores" -ge 2 ]; then
  check n2 - "-N2" all
else
  echo "skip n2: $cores core"
fi
check n2-qn1 - "-N2 -qn1" none
check n2-qg - "-N2 -qg" none
check n2-env GC_MARKERS=1 "-N2 -qn2" none
check n1-env GC_MARKERS=2 "-N1" all

msg=$("$prog" +RTS -qn0 -RTS 2>&1)
rc=$?
if [ $rc -ne 1 ] || ! grep -q "bad value for -qn: 0 (1..256)" <<<"$msg"; then
  echo "FAIL qn0: exit $rc, '$(head -1 <<<"$msg")'"; fails=$((fails + 1))
else
  echo "ok   qn0: rejected"
fi

# A runtime without the Boehm GC built with it (liblzgc.a: 8-byte granules, Note [Granules])
# beside it is refused at link time, not linked against the system's libgc.
lone="$WORK/lone-runtime"
mkdir -p "$lone" && cp "$(dirname "$LZC")/liblzrts_thr.a" "$lone/" || exit 2
msg=$(LZ_RTS_DIR="$lone" LZC_CACHE=0 "$LZC" -O2 -threaded "$here/alloc.lz" -o "$WORK/lone" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! grep -q "has no liblzgc.a" <<<"$msg"; then
  echo "FAIL no-liblzgc: exit $rc, '$(head -1 <<<"$msg")'"; fails=$((fails + 1))
else
  echo "ok   no-liblzgc: refused"
fi
[ $fails -eq 0 ]

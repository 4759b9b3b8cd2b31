#!/usr/bin/env bash
# expect-from-ghc-events.sh — what lzprof must report for LOG, computed from GHC's own
# reader: `ghc-events show LOG` counted with awk, in the line formats of `lzprof sparks
# --tsv` ("events", "counters") and `lzprof threads --tsv` ("stops", "runs").
#   tests/profiler/expect-from-ghc-events.sh LOG NCAPS
set -euo pipefail
ghc-events show "$1" | awk -v ncaps="$2" '
function cap() { c = $3; sub(":", "", c); return c + 0 }
/^[0-9]+: cap [0-9]+: spark created$/            { k[cap(), 0]++ }
/^[0-9]+: cap [0-9]+: dud spark discarded$/       { k[cap(), 1]++ }
/^[0-9]+: cap [0-9]+: overflowed spark discarded$/ { k[cap(), 2]++ }
/^[0-9]+: cap [0-9]+: running a local spark$/     { k[cap(), 3]++ }
/^[0-9]+: cap [0-9]+: stealing a spark from cap/  { k[cap(), 4]++ }
/^[0-9]+: cap [0-9]+: spark fizzled$/             { k[cap(), 5]++ }
/^[0-9]+: cap [0-9]+: spark GCed$/                { k[cap(), 6]++ }
/^[0-9]+: cap [0-9]+: running thread [0-9]+$/     { runs++ }
/^[0-9]+: cap [0-9]+: stopping thread [0-9]+ \(/ {
  r = $0; sub(/^[^(]*\(/, "", r); sub(/\)$/, "", r)
  if (r ~ /black hole/) r = "blocked on black hole"
  stops[r]++
}
/^[0-9]+: cap [0-9]+: spark stats: / {
  # N created, N converted, N remaining (N overflowed, N dud, N GC'"'"'d, N fizzled)
  c = cap(); s = $0; sub(/^.*spark stats: /, "", s); gsub(/[^0-9]+/, " ", s); split(s, v, " ")
  ctr[c] = v[1] "\t" v[5] "\t" v[4] "\t" v[2] "\t" v[6] "\t" v[7] "\t" v[3]; has[c] = 1
}
END {
  for (c = 0; c < ncaps; c++) {
    printf "events\t%d", c
    for (i = 0; i < 7; i++) printf "\t%d", k[c, i]
    printf "\t%d\n", k[c, 3] + k[c, 4]
    if (has[c]) printf "counters\t%d\t%s\n", c, ctr[c]
  }
  for (r in stops) printf "stops\t%s\t%d\n", r, stops[r]
  printf "runs\t%d\n", runs
}' | LC_ALL=C sort

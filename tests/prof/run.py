#!/usr/bin/env python3
"""run.py — cost-centre profiling tests (ctest: prof/profiles). Note [Profiling] in
docs/notes/profiling.md.

    tests/prof/run.py LZC WORKDIR

Compiles the programs of tests/prof/ with `lzc -prof` and checks their +RTS -p, -pa and
-pj reports:
  layout   GHC's own profiles of the same programs (tests/prof/ghc/, made with GHC 9.0.2:
           `ghc -prof -fprof-auto -O1 calls.hs && ./calls +RTS -p`, likewise hot.hs, and
           calls.json with -pj) and ours pass the same layout checker (profcheck.py);
  hot      one cost centre doing ~99 % of the work gets > 80 % of the time, and the
           exact allocation of "hot" is 100x that of "cold" (same work on 1/100 of the
           input) within 2 %;
  entries  calls.lz at -O1 and -O2: every stack of GHC's tree made of the program's
           cost centres exists in ours with exactly GHC's entries, and its inherited
           %alloc is within 3 points of GHC's (nesting, recursion flattened, CAFs,
           thunks charged to the stack that made them);
  -pa      lists every cost centre; -pj has GHC's keys and the exact byte counts;
  par      -threaded at -N2: two sparked halves each get 50 % of the allocation (within 1
           point) and together > 80 % of the time; the header says 2 processors.
Prints one line per check, "N passed, N failed" at the end; exit 1 on any failure.
"""
import json
import os
import subprocess
import sys

import profcheck

HERE = os.path.dirname(os.path.abspath(__file__))
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))


def build(lzc, work, prog, out, *flags):
    exe = os.path.join(work, out)
    r = subprocess.run([lzc, *flags, os.path.join(HERE, prog + ".lz"), "-o", exe],
                       capture_output=True, text=True)
    if r.returncode != 0:
        check("compile %s %s" % (prog, " ".join(flags)), False, r.stderr.strip()[:500])
        return None
    return exe


def run(exe, *rts):
    r = subprocess.run([exe, "+RTS", *rts, "-RTS"], cwd=os.path.dirname(exe),
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        check("run %s %s" % (os.path.basename(exe), " ".join(rts)), False, r.stderr.strip()[:500])
        return None
    with open(exe + ".prof") as f:
        return f.read()


def parsed(name, text):
    try:
        return profcheck.parse_prof(text)
    except profcheck.LayoutError as e:
        check(name + " layout", False, str(e))
        return None


def node_at(tree, path):
    for p, n in profcheck.paths(tree):
        if p == path:
            return n
    return None


def main():
    lzc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)

    # layout: GHC's own profiles pass the checker
    ghc = {}
    for name in ("hot", "calls"):
        with open(os.path.join(HERE, "ghc", name + ".prof")) as f:
            ghc[name] = parsed("ghc/%s.prof" % name, f.read())
            if ghc[name]:
                check("ghc/%s.prof parses" % name, True)
    with open(os.path.join(HERE, "ghc", "calls.json")) as f:
        try:
            profcheck.parse_json(f.read())
            check("ghc/calls.json has GHC's keys", True)
        except (profcheck.LayoutError, ValueError) as e:
            check("ghc/calls.json", False, str(e))

    # hot: time and allocation shares
    exe = build(lzc, work, "hot", "hot", "-prof", "-fprof-auto", "-O1")
    if exe:
        p = parsed("hot", run(exe, "-p") or "")
        if p:
            check("hot .prof parses", True)
            hot = node_at(p["tree"], ("CAF", "main", "main.hot", "hot"))
            check("hot: > 80 % of the time", hot is not None and hot["itime"] > 80,
                  "%s of %d ticks" % (hot and hot["itime"], p["ticks"]))
        j = run(exe, "-pj")
        if j:
            d = profcheck.parse_json(j)
            ids = {c["id"]: c["label"] for c in d["cost_centres"]}
            alloc = {}

            def walk(n):
                total = n["alloc"] + sum(walk(c) for c in n["children"])
                alloc[ids[n["id"]]] = alloc.get(ids[n["id"]], 0) + (total if ids[n["id"]] in ("hot", "cold") else 0)
                return total

            walk(d["profile"])
            ratio = alloc.get("hot", 0) / max(alloc.get("cold", 0), 1)
            check("hot: allocation hot/cold = 100 (exact bytes, -pj)", 98 <= ratio <= 102, "%.2f" % ratio)
            check("-pj total_alloc is the sum of the tree", d["total_alloc"] == sum_alloc(d["profile"]))

    # entries and allocation shares against GHC's profile of the same program
    for level in ("-O1", "-O2"):
        exe = build(lzc, work, "calls", "calls" + level, "-prof", "-fprof-auto", level)
        if not exe or not ghc["calls"]:
            continue
        p = parsed("calls " + level, run(exe, "-p") or "")
        if not p:
            continue
        bad = []
        for path, g in profcheck.paths(ghc["calls"]["tree"]):
            if path[0] != "CAF" or g["module"] != "Main" or any("\\" in x for x in path):
                continue
            if g["entries"] == 0 and path != ("CAF",):
                continue
            ours = node_at(p["tree"], path)
            if ours is None:
                bad.append("/".join(path) + " missing")
            elif ours["entries"] != g["entries"]:
                bad.append("%s: %d entries, GHC %d" % ("/".join(path), ours["entries"], g["entries"]))
            elif abs(ours["ialloc"] - g["ialloc"]) > 3:
                bad.append("%s: %.1f %%alloc, GHC %.1f" % ("/".join(path), ours["ialloc"], g["ialloc"]))
        check("calls %s: entries and %%alloc as GHC's" % level, not bad, "; ".join(bad))
        if level == "-O1":
            a = parsed("calls -pa", run(exe, "-pa") or "")
            if a:
                labels = {r["label"] for r in a["flat"]}
                want = {"MAIN", "CAF", "main", "outer", "outer.go", "step", "count", "table", "consume",
                        "lazyList", "main.xs"}
                check("-pa lists every cost centre", want <= labels, "missing %s" % sorted(want - labels))

    # parallel, -threaded -N2
    exe = build(lzc, work, "par", "par", "-prof", "-threaded", "-O1")
    if exe:
        p = parsed("par", run(exe, "-p", "-N2") or "")
        if p:
            left = node_at(p["tree"], ("CAF", "left"))
            right = node_at(p["tree"], ("CAF", "right"))
            ok = left and right and abs(left["ialloc"] - 50) <= 1 and abs(right["ialloc"] - 50) <= 1
            check("par -N2: left/right 50 % of the allocation each", bool(ok),
                  "%s / %s" % (left and left["ialloc"], right and right["ialloc"]))
            ok = left and right and left["itime"] + right["itime"] > 80
            check("par -N2: left + right > 80 % of the time", bool(ok),
                  "%s + %s of %d ticks" % (left and left["itime"], right and right["itime"], p["ticks"]))
            check("par -N2: 2 processors in the header", p["processors"] == 2)

    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


def sum_alloc(n):
    return n["alloc"] + sum(sum_alloc(c) for c in n["children"])


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""replay.py — profiling a replayed parallel run (ctest: prof/replay). Note [Profiling],
"Profiling a replay", in docs/notes/profiling.md.

    tests/prof/replay.py LZC LZPROF WORKDIR

Builds tests/prof/replay.lz three ways: `lzc -replay -prof` (the binary under test),
`-replay` alone and `-prof -threaded` (references). Records the -replay -prof binary at
-N2 (with -p, which recording must ignore), replays it with -p and -pj, and checks:
  record   -p (and -hc) are ignored while recording (a message, no .prof), and the log
           declares the same event types as the -replay build's recording (the same kind
           of log);
  replay   the .prof parses (GHC's layout) and its header names the replay and the log;
  time     "hot" (two parallel halves, ~99 % of the work) gets > 80 % of the time; the
           ticks add up to the recorded run's running time (lzprof threads:
           capability_running_ns) within 5 %, and the header's total time (ticks /
           processors) is the recorded run's span within 25 % (both halves run at once);
  exact    entries are the expected counts (hot 2, its sq 3000001, cold's sq 30000), and
           every stack's entries and exact bytes (-pj) equal those of a -prof -threaded
           run at -N1 of the same program.
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
    results.append(bool(ok))
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))


def build(lzc, work, out, *flags):
    exe = os.path.join(work, out)
    r = subprocess.run([lzc, *flags, "-fprof-auto-top", "-O1", os.path.join(HERE, "replay.lz"),
                        "-o", exe], capture_output=True, text=True)
    check("compile %s" % " ".join(flags), r.returncode == 0, r.stderr.strip()[:500])
    return exe if r.returncode == 0 else None


def run(exe, *rts):
    return subprocess.run([exe, "+RTS", *rts, "-RTS"], cwd=os.path.dirname(exe),
                          capture_output=True, text=True, timeout=120)


def event_types(lzprof, log, work):
    """The header of the log's event log (the event-type declarations), as bytes."""
    out = os.path.join(work, os.path.basename(log) + ".eventlog")
    r = subprocess.run([lzprof, "eventlog", log, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    with open(out, "rb") as f:
        data = f.read()
    return data[:data.find(b"datb")]


def flatten(node, ids, path=(), out=None):
    """(label path below MAIN) -> (entries, alloc) of a -pj tree."""
    out = {} if out is None else out
    p = path + (ids[node["id"]],) if path or ids[node["id"]] != "MAIN" else ()
    if p:
        out[p] = (node["entries"], node["alloc"])
    for c in node["children"]:
        flatten(c, ids, p, out)
    return out


def pj(path):
    with open(path) as f:
        d = profcheck.parse_json(f.read())
    return d, flatten(d["profile"], {c["id"]: c["label"] for c in d["cost_centres"]})


def main():
    lzc, lzprof, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    exe = build(lzc, work, "rr", "-replay", "-prof")
    plain = build(lzc, work, "rr_plain", "-replay")
    direct = build(lzc, work, "rr_direct", "-prof", "-threaded")
    if not (exe and plain and direct):
        return 1
    prof = exe + ".prof"
    log = os.path.join(work, "rr.lzr")

    # record (retried: a divergence of the replay is issue 6's, not what is tested here)
    for attempt in range(3):
        if os.path.exists(prof):
            os.unlink(prof)
        r = run(exe, "-N2", "--record=" + log, "-p")
        check("record -N2 (attempt %d)" % (attempt + 1), r.returncode == 0 and r.stdout.strip(),
              r.stderr.strip()[:300])
        if attempt == 0:
            check("record: -p is ignored with a message, no .prof",
                  "-p and -hc are ignored while recording" in r.stderr and not os.path.exists(prof),
                  r.stderr.strip()[:300])
        expected_out = r.stdout
        rp = run(exe, "--replay=" + log, "-p")
        if rp.returncode != 3:
            break
        print("     (replay diverged, recording again: %s)" % rp.stderr.strip()[:200])
    check("replay -p: exit 0, the recorded output", rp.returncode == 0 and rp.stdout == expected_out,
          rp.stderr.strip()[:300])
    r = run(plain, "-N2", "--record=" + os.path.join(work, "plain.lzr"))
    a = event_types(lzprof, log, work)
    b = event_types(lzprof, os.path.join(work, "plain.lzr"), work)
    check("record: the same event types as a -replay build's log", a is not None and a == b,
          "%s vs %s bytes" % (a and len(a), b and len(b)))
    if rp.returncode != 0 or not os.path.exists(prof):
        return finish()

    with open(prof) as f:
        text = f.read()
    try:
        p = profcheck.parse_prof(text)
    except profcheck.LayoutError as e:
        check("replay .prof layout", False, str(e))
        return finish()
    check("replay .prof parses (GHC's layout)", True)
    check("header names the replay and the log",
          p["replay"] is not None and "replay" in p["replay"] and "rr.lzr" in p["replay"],
          repr(p["replay"]))

    # time: the recorded run's clock
    tree_hot = None
    for path, n in profcheck.paths(p["tree"]):
        if path == ("CAF", "main", "hot"):
            tree_hot = n
    check("hot: > 80 % of the time", tree_hot is not None and tree_hot["itime"] > 80,
          "%s of %d ticks" % (tree_hot and tree_hot["itime"], p["ticks"]))
    t = subprocess.run([lzprof, "threads", log, "--tsv"], capture_output=True, text=True)
    vals = dict(line.split("\t")[:2] for line in t.stdout.splitlines() if line.count("\t") == 1)
    running, span = int(vals.get("capability_running_ns", 0)), int(vals.get("span_ns", 0))
    ticks_ns = p["ticks"] * p["tick_us"] * 1000
    check("ticks = the recorded running time (5 %)", running and abs(ticks_ns - running) <= 0.05 * running,
          "%.3f s of ticks, %.3f s running in the log" % (ticks_ns / 1e9, running / 1e9))
    check("total time = the recorded span (25 %)", span and abs(p["seconds"] * 1e9 - span) <= 0.25 * span,
          "%.2f s in the header, %.3f s span in the log" % (p["seconds"], span / 1e9))

    # entries: expected counts, and the same as a direct -N1 run, with exact bytes
    def entries(tree, path):
        for q, n in profcheck.paths(tree):
            if q == path:
                return n["entries"]
        return None
    want = {("CAF", "main", "hot"): 2, ("CAF", "main", "hot", "work"): 2,
            ("CAF", "main", "hot", "work", "sq"): 3000001, ("CAF", "main", "cold", "work", "sq"): 30000}
    got = {k: entries(p["tree"], k) for k in want}
    check("entries: hot 2, work 2, sq 3000001 / 30000", got == want, str(got))
    rj = run(exe, "--replay=" + log, "-pj")
    rd = run(direct, "-N1", "-pj")
    if rj.returncode == 0 and rd.returncode == 0:
        dr, fr = pj(prof)
        dd, fd = pj(direct + ".prof")
        check("-pj of a replay has replay_of", dr.get("replay_of", "").endswith("rr.lzr"))
        diff = ["%s: %s vs %s" % ("/".join(k), fr.get(k), fd.get(k))
                for k in sorted(set(fr) | set(fd)) if fr.get(k) != fd.get(k)]
        check("entries and bytes per stack = a -prof -threaded -N1 run", not diff, "; ".join(diff[:5]))
        check("total alloc = the direct run's", dr["total_alloc"] == dd["total_alloc"],
              "%d vs %d" % (dr["total_alloc"], dd["total_alloc"]))
    else:
        check("replay -pj and direct -pj run", False, (rj.stderr + rd.stderr).strip()[:300])
    return finish()


def finish():
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""bench/step/run.py [--lzc LZC] [--args "41 14"] [--runs 5]

How fast the replay stepper answers (issue 8's target: `next` and `back 1` under 100 ms
on a 1-second recording). Builds bench/nofib-mini/parfib with lzc -O2 -replay, records
one run at -N2, then drives `+RTS --replay --step` through a pipe and times each command
(from writing it to the answer of a `when` written after it), at events 10 %, 50 % and
90 % of the way through: `goto` there from the start, `next`, `back 1`, `next` again,
`info threads` after `back` (which needs the engine at an earlier event: a re-replay from
the start), `continue` to the end. Prints medians over --runs repetitions and min-max.
Note [Stepper] in docs/notes/stepper.md.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ap = argparse.ArgumentParser()
ap.add_argument("--lzc", default=os.path.join(ROOT, "build", "lzc"))
ap.add_argument("--args", default="41 14")
ap.add_argument("--runs", type=int, default=5)
opt = ap.parse_args()

work = tempfile.mkdtemp(prefix="lzstep-bench-")
prog = os.path.join(work, "parfib")
subprocess.run([opt.lzc, "-O2", "-replay", os.path.join(ROOT, "bench/nofib-mini/parfib/Main.lz"),
                "-o", prog], check=True)
log = os.path.join(work, "parfib.lzr")
t0 = time.monotonic()
subprocess.run([prog] + opt.args.split() + ["+RTS", "-N2", "--record=" + log, "-RTS"], check=True,
               stdout=subprocess.DEVNULL)
rec_s = time.monotonic() - t0
t0 = time.monotonic()
subprocess.run([prog, "+RTS", "--replay=" + log, "-RTS"], check=True, stdout=subprocess.DEVNULL)
replay_s = time.monotonic() - t0


class Stepper:
    def __init__(self):
        self.p = subprocess.Popen([prog, "+RTS", "--replay=" + log, "--step", "-RTS"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        banner = self.p.stdout.readline()
        self.total = int(banner.split(":")[1].split()[0])

    def time(self, cmd):
        t = time.monotonic()
        self.p.stdin.write(cmd + "\nwhen\n")
        self.p.stdin.flush()
        seen_when = False
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit("the stepper ended during: " + cmd)
            if line.startswith("(lzdb) when"):
                seen_when = True
            elif seen_when and line.startswith("event #"):
                return (time.monotonic() - t) * 1000

    def close(self):
        self.p.stdin.write("quit\n")
        self.p.stdin.close()
        self.p.wait()


results = {}
total = None
for run in range(opt.runs):
    for frac in (0.1, 0.5, 0.9):
        s = Stepper()
        total = s.total
        k = int(s.total * frac)
        rows = [("goto %d%%" % (frac * 100), "goto %d" % k), ("next", "next"),
                ("back 1", "back 1"), ("next (seen)", "next"),
                ("back 1; info threads", "back 1\ninfo threads")]
        for name, cmd in rows:
            results.setdefault((frac, name), []).append(s.time(cmd))
        if frac == 0.9:
            results.setdefault((frac, "continue to the end"), []).append(s.time("continue"))
        s.close()

print("parfib %s, recorded at -N2: %.2f s to record, %.2f s to replay, %d events" %
      (opt.args, rec_s, replay_s, total))
print("%-8s %-22s %10s %18s" % ("where", "command", "median ms", "min-max ms"))
for (frac, name), v in results.items():
    print("%-8s %-22s %10.1f %18s" % ("%d %%" % (frac * 100), name, statistics.median(v),
                                      "%.1f-%.1f" % (min(v), max(v))))

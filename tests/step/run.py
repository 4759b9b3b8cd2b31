#!/usr/bin/env python3
"""tests/step/run.py LZC LZPROF OUTDIR — the replay stepper in script mode (issue 8).

pfib.lz (par/pseq) is built with lzc -replay and recorded at -N2 until a recording has a
steal and a blackhole block (a few tries; which run does what is up to the machine).
Then scripts drive `+RTS --replay=LOG --step-script=FILE`: the first steal shows the
spark id and the source line of the sparked expression; `break FILE:LINE`; `info
threads` at a block shows the blocked thread, the thunk and its owner; `back 5` then
`next 5` prints the same lines as before; `continue` reproduces the recorded output;
bad commands get a one-line message and the prompt again; end of input quits with 0;
the same script gives the same output twice; `lzprof step` drives the same. With a
-replay -prof build: `break cc` and the cost-centre stack in `where`.
Note [Stepper] in docs/notes/stepper.md.
"""
import os
import re
import subprocess
import sys

LZC, LZPROF, OUT = sys.argv[1:4]
HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(OUT, exist_ok=True)
failures = []


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)
        if detail:
            print("     " + detail.replace("\n", "\n     ")[:3000])


def run(cmd, timeout=120, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def step(prog, log, script, name):
    path = os.path.join(OUT, name + ".script")
    with open(path, "w") as f:
        f.write(script)
    return run([prog, "+RTS", "--replay=" + log, "--step-script=" + path, "-RTS"])


def compile_prog(flags, out):
    r = run([LZC, "-O1"] + flags + [os.path.join(HERE, "pfib.lz"), "-o", out], timeout=300)
    if r.returncode != 0:
        print(r.stdout + r.stderr)
    return r.returncode == 0


prog = os.path.join(OUT, "pfib")
if not compile_prog(["-replay"], prog):
    sys.exit("cannot compile pfib.lz with -replay")

# A recording with at least one steal and one block.
log = os.path.join(OUT, "pfib.lzr")
recorded = None
for attempt in range(12):
    r = run([prog, "+RTS", "-N2", "--record=" + log, "-RTS"])
    if r.returncode != 0:
        continue
    probe = step(prog, log, "break steal\ncontinue\ndelete 1\nbreak block\ncontinue\n", "probe")
    if probe.stdout.count("Breakpoint 1: #") == 1 and probe.stdout.count("Breakpoint 2: #") == 1:
        recorded = r.stdout
        break
check(recorded is not None, "a -N2 recording with a steal and a block (12 tries)")
if recorded is None:
    sys.exit(1)

# 1. the first steal: spark id and the source line of `a` (pfib.lz line 14)
r = step(prog, log, "break steal\ncontinue\n", "steal")
m = re.search(r"Breakpoint 1: #(\d+) .*steal spark (\d+):(\d+) from cap \d+\s+at \S*pfib\.lz:14:", r.stdout)
check(m is not None and r.returncode == 0, "first steal: spark id and pfib.lz:14", r.stdout + r.stderr)

# 2. break FILE:LINE: an event of a thunk or spark made on that line
r = step(prog, log, "break pfib.lz:14\ncontinue\nwhen\n", "line")
check(re.search(r"Breakpoint 1: #\d+ .*(spark|thunk) \d+:\d+.*pfib\.lz:14:", r.stdout) is not None,
      "break pfib.lz:14 stops at a spark or thunk of line 14", r.stdout)
r = step(prog, log, "break pfib.lz:3\ncontinue\n", "line-none")
check("Breakpoint 1: #" not in r.stdout and "exited with status 0" in r.stdout,
      "break pfib.lz:3 (an import: no thunk there) runs to the end", r.stdout)

# 3. info threads at a block: the blocked thread, the thunk, its owner
r = step(prog, log, "break block\ncontinue\ninfo threads\nwhere\n", "block")
m = re.search(r"Breakpoint 1: #\d+ .*cap \d+\s+thread (\d+)\s+block on thunk (\d+:\d+) \(owner thread (\d+)\)",
              r.stdout)
check(m is not None, "a block event names the thunk and its owner", r.stdout)
if m:
    blocked, thunk, owner = m.groups()
    check(re.search(r"thread %s: blocked .* on thunk %s owned by thread %s" % (blocked, thunk, owner),
                    r.stdout) is not None, "info threads shows thread %s blocked on %s owned by %s"
          % (blocked, thunk, owner), r.stdout)
    check(owner != blocked and re.search(r"thread %s: running" % owner, r.stdout) is not None,
          "the owner is another thread, running", r.stdout)
    check(re.search(r"thread %s on cap \d+\n(  #\d+ .*\n)+" % blocked, r.stdout) is not None,
          "where lists the blocked thread's frames", r.stdout)

# 4. back 5 then next 5: the same five lines
r = step(prog, log, "run 20\nnext 5\nback 5\nnext 5\nwhen\n", "back")
blocks = re.findall(r"\(lzdb\) next 5\n((?:#.*\n){5})", r.stdout)
check(len(blocks) == 2 and blocks[0] == blocks[1] and "event #25 of" in r.stdout,
      "back 5 then next 5 prints the same five lines", r.stdout)
r = step(prog, log, "run 40\nback 1\nback 1\nnext 2\nwhen\ngoto 10\nwhen\nrun 0\nwhen\n", "moves")
check("event #40 of" in r.stdout and "event #10 of" in r.stdout and "event #0 of" in r.stdout,
      "run/goto/back/when move the cursor", r.stdout)

# 5. continue: the program's output is the recorded run's
r = step(prog, log, "continue\n", "continue")
check(recorded in r.stdout and "the program exited with status 0" in r.stdout,
      "continue reproduces the recorded output", r.stdout[-2000:] + r.stderr)
total = re.search(r"(\d+) events on 2 capabilities", r.stdout)
check(total is not None, "the banner gives the number of events", r.stdout[:300])

# 6. bad input: one line each, the prompt again, no crash; end of input quits with 0
bad = ("foo\ngoto 99999999\nprint 1:3\nprint zz\nprint 7:1000\nbreak nonsense\nbreak cap 9\n"
       "break spark x\ndelete 7\nnext 0\nnext -1\nrun\ninfo nothing\nback\nrun 1\nback 9\n"
       "continue\nnext\nnext 3\ninfo threads\n")
r = step(prog, log, bad, "bad")
out = r.stdout
check(r.returncode == 0 and r.stderr == "", "bad commands: exit 0, nothing on stderr", r.stderr)
check("unknown command: foo" in out and "no event #99999999" in out and "no breakpoint 7" in out,
      "unknown command, out-of-range event, unknown breakpoint", out)
check("unknown breakpoint: nonsense" in out and "no capability 9" in out and "not a spark id" in out,
      "bad breakpoints", out)
check("print needs a thunk id" in out and "no thunk 7:1000" in out, "bad and unknown thunk ids", out)
check("already at the start" in out and "at the end of the recording" in out,
      "stepping before the start and past the end", out)
check(out.count("(lzdb) ") == bad.count("\n"), "every command answered and the prompt again", out)

# 7. the same script twice: the same output (replay is deterministic)
a = step(prog, log, "break steal\ncontinue\ninfo caps\ninfo sparks\nnext 20\ninfo threads\n", "det1")
b = step(prog, log, "break steal\ncontinue\ninfo caps\ninfo sparks\nnext 20\ninfo threads\n", "det1")
check(a.stdout == b.stdout and a.returncode == 0, "the same script gives the same output twice",
      a.stdout + "\n----\n" + b.stdout)
check(re.search(r"cap 0: .*run queue \d+.*spark pool \d+", a.stdout) is not None
      and re.search(r"spark \d+:\d+\s+at \S*pfib\.lz:14:", a.stdout) is not None,
      "info caps and info sparks (with source locations)", a.stdout)

# 8. misuse of the flags
r = run([prog, "+RTS", "--step", "-RTS"])
check(r.returncode != 0 and "--replay" in r.stderr, "--step without --replay: an error", r.stderr)
r = run([prog, "+RTS", "--replay=" + log, "--step-script=/nonexistent/x", "-RTS"])
check(r.returncode != 0 and "/nonexistent/x" in r.stderr, "--step-script of a missing file", r.stderr)

# 9. lzprof step: the same stepper
script = os.path.join(OUT, "lzprof.script")
with open(script, "w") as f:
    f.write("next 3\nwhen\n")
r = run([LZPROF, "step", prog, log, "--script", script])
check(r.returncode == 0 and "event #3 of" in r.stdout and r.stdout.count("\n#") >= 3,
      "lzprof step PROG LOG --script FILE", r.stdout + r.stderr)

# 10. -replay -prof: break cc and the cost-centre stack
# The spark thread that evaluates `a` runs under "left"; it shows at its events (a block on
# a thunk the other capability evaluates, a pre-emption), which some recordings have.
pprog = os.path.join(OUT, "pfib-prof")
if compile_prog(["-replay", "-prof"], pprog):
    plog = os.path.join(OUT, "pfib-prof.lzr")
    for attempt in range(12):
        run([pprog, "+RTS", "-N2", "--record=" + plog, "-RTS"])
        r = step(pprog, plog, "break cc left\ncontinue\nwhere\n", "cc")
        if "Breakpoint 1: #" in r.stdout:
            break
    check(re.search(r"Breakpoint 1: #\d+", r.stdout) is not None
          and re.search(r"cost-centre stack: .*\bleft\b", r.stdout) is not None,
          "break cc left, and where shows the cost-centre stack", r.stdout + r.stderr)
else:
    check(False, "lzc -replay -prof compiles pfib.lz")

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)

#!/usr/bin/env python3
"""heap.py — heap profile by cost-centre stack, +RTS -hc (ctest: prof/heap). Note
[Profiling], "Heap profile", in docs/notes/profiling.md.

    tests/prof/heap.py LZC WORKDIR

Builds tests/prof/leak.lz with `lzc -prof` and tests/prof/par.lz with `-prof -threaded`,
runs them with +RTS -hc -i0.02 and checks the .hp file:
  format   GHC's: JOB, DATE, SAMPLE_UNIT "seconds", VALUE_UNIT "bytes", then
           BEGIN_SAMPLE t / `name<TAB>bytes` lines / END_SAMPLE t blocks, times not
           decreasing, an empty first sample at 0 and an empty last one (as GHC writes);
  leak     the stack leak/CAF holds the 200000-element list while busy runs: its cons
           cells, the unevaluated element thunks and the boxed Ints they refer to, each
           with its cost-centre word (96 bytes per element with 8-byte granules, 112
           with 16-byte ones): at its largest between 80 and 160 bytes per element; busy/CAF, which keeps nothing but what is
           in flight, never more than half of that (attribution is by the stack that
           allocated the object; busy is a strict loop that builds no list, since
           Boehm's conservative scan could keep a stretch of a consumed list alive through
           a stale word: 1-23 MB in the runs seen when busy summed a list);
  -N2      the threaded way samples at -N2 too (the sampler's collections stop every
           capability);
  flags    -hy (not supported), -i0 (bad value): exit 1 with a message; -hc in a build
           without -prof: GHC's "requires the program to be built with -prof";
  hp2ps    Debian's hp2ps (package ghc) turns both files into PostScript (exit 0, %!PS);
           skipped with a message when hp2ps is not installed (exit 77 if all else passed).
Prints one line per check, "N passed, N failed" at the end; exit 1 on any failure.
"""
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
N = 200000
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))


def build(lzc, work, prog, out, *flags):
    exe = os.path.join(work, out)
    r = subprocess.run([lzc, *flags, "-O1", os.path.join(HERE, prog + ".lz"), "-o", exe],
                       capture_output=True, text=True)
    check("compile %s %s" % (prog, " ".join(flags)), r.returncode == 0, r.stderr.strip()[:500])
    return exe if r.returncode == 0 else None


def run(exe, *rts):
    return subprocess.run([exe, "+RTS", *rts, "-RTS"], cwd=os.path.dirname(exe),
                          capture_output=True, text=True, timeout=120)


SAMPLE_LINE = re.compile(r"^(\S+)\t(\d+)$")


def parse_hp(text):
    """[(time, {name: bytes})], or raises ValueError naming the bad line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    heads = [r'^JOB ".*"$', r'^DATE ".*"$', r'^SAMPLE_UNIT "seconds"$', r'^VALUE_UNIT "bytes"$']
    for i, h in enumerate(heads):
        if i >= len(lines) or not re.match(h, lines[i]):
            raise ValueError("line %d: expected %s, got %r" % (i + 1, h, lines[i] if i < len(lines) else None))
    samples, cur, t = [], None, None
    for n, line in enumerate(lines[4:], 5):
        m = re.match(r"^(BEGIN|END)_SAMPLE (\d+\.\d\d)$", line)
        if m and m.group(1) == "BEGIN" and cur is None:
            t, cur = float(m.group(2)), {}
        elif m and m.group(1) == "END" and cur is not None and float(m.group(2)) == t:
            samples.append((t, cur))
            cur = None
        elif cur is not None and SAMPLE_LINE.match(line):
            k, v = SAMPLE_LINE.match(line).groups()
            if k in cur:
                raise ValueError("line %d: %s twice in one sample" % (n, k))
            cur[k] = int(v)
        else:
            raise ValueError("line %d: unexpected %r" % (n, line))
    if cur is not None:
        raise ValueError("the last sample is not ended")
    return samples


def band(sample, suffix):
    return sum(v for k, v in sample.items() if re.sub(r"^\(\d+\)", "", k) == suffix)


def hp_file(name, exe, *rts):
    r = run(exe, "-hc", "-i0.02", *rts)
    check("%s runs with -hc" % name, r.returncode == 0, r.stderr.strip()[:300])
    try:
        with open(exe + ".hp") as f:
            s = parse_hp(f.read())
    except (OSError, ValueError) as e:
        check("%s .hp format" % name, False, str(e))
        return None
    times = [t for t, _ in s]
    ok = len(s) >= 3 and s[0] == (0.0, {}) and s[-1][1] == {} and times == sorted(times)
    check("%s .hp format (%d samples)" % (name, len(s)), ok, "" if ok else str(s[:2]) + str(s[-1:]))
    return s


def main():
    lzc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    leak = build(lzc, work, "leak", "leak", "-prof")
    par = build(lzc, work, "par", "par", "-prof", "-threaded")
    plain = build(lzc, work, "leak", "leak_plain")
    if leak:
        s = hp_file("leak", leak)
        if s:
            most = max(band(x, "leak/CAF") for _, x in s)
            check("leak/CAF holds 80..160 bytes per element at its largest", 80 * N <= most <= 160 * N,
                  "%d bytes, %.1f per element" % (most, most / N))
            busy = max(band(x, "busy/CAF") for _, x in s)
            check("busy/CAF never holds more than half of leak's largest", busy <= most / 2,
                  "%d bytes" % busy)
        for flag, msg in (("-hy", "not supported"), ("-i0", "bad value for -i")):
            r = run(leak, flag)
            check("%s: exit 1 with a message" % flag, r.returncode == 1 and msg in r.stderr,
                  (r.stderr.strip().splitlines() or [""])[0])
    if plain:
        r = run(plain, "-hc")
        check("-hc without -prof: GHC's message", r.returncode == 1 and
              "requires the program to be built with -prof" in r.stderr,
              (r.stderr.strip().splitlines() or [""])[0])
    if par:
        hp_file("par -N2", par, "-N2")
    hp2ps = shutil.which("hp2ps")
    skipped = False
    if not hp2ps:
        print("SKIP hp2ps: not installed (Debian package ghc provides /usr/bin/hp2ps)")
        skipped = True
    else:
        for exe in (leak, par):
            if not exe or not os.path.exists(exe + ".hp"):
                continue
            r = subprocess.run([hp2ps, os.path.basename(exe) + ".hp"], cwd=work, capture_output=True, text=True)
            ps = os.path.join(work, os.path.basename(exe) + ".ps")
            ok = r.returncode == 0 and os.path.exists(ps) and open(ps, "rb").read(4) == b"%!PS"
            check("hp2ps accepts %s.hp" % os.path.basename(exe), ok, (r.stdout + r.stderr).strip()[:200])
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    if not all(results):
        return 1
    return 77 if skipped else 0


if __name__ == "__main__":
    sys.exit(main())

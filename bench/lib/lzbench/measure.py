"""Building and running one benchmark program, and reading what the runtime reports.

Everything here deals with a single process at a time. A build or a run never
raises for a failure of the program or the compiler: it returns a result whose
`failure` is a short human-readable reason ("build failed: ...", "crashed
(SIGSEGV)", "timeout (>60 s)", "exit 1: prog: head: empty list"), because a
benchmark runner must mark the failure in its table and go on.

Runs are timed with the wall clock around the child process, which is started in
its own session so that a timeout kills it and anything it started; os.wait4 gives
its CPU time. (Not its maximum resident set size: Linux counts in it the size of the
Python process the child was forked from.) Runtime statistics (allocation, maximum
residency) come from a file the program's RTS writes: GHC's `+RTS -t<file>
--machine-readable` or Lz's (and GHC's) `+RTS -s<file>` summary; parse_rts_stats
reads either form.
"""

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Dict, List, Optional

# --------------------------------------------------------------------------------
# Compilers


@dataclass
class Compiler:
    """A compiler the runner may use; `path` is None when it is not available."""
    name: str                      # "lzc" or "ghc"
    path: Optional[str]
    missing: str = ""              # why it is not available

    def stats_rts_flags(self, stats_file: str) -> List[str]:
        """RTS flags that make a program write its statistics to stats_file."""
        if self.name == "ghc":
            return ["-t" + stats_file, "--machine-readable"]
        return ["-s" + stats_file]


def find_lzc(repo: str, explicit: Optional[str] = None) -> Compiler:
    """lzc from --lzc, else $LZC, else build/lzc of the repository."""
    cand = explicit or os.environ.get("LZC") or os.path.join(repo, "build", "lzc")
    if os.path.isfile(cand) and os.access(cand, os.X_OK):
        return Compiler("lzc", os.path.abspath(cand))
    return Compiler("lzc", None, "lzc not found at %s (build it, or set $LZC or --lzc)" % cand)


def find_ghc(explicit: Optional[str] = None) -> Compiler:
    """ghc from --ghc, else the one on $PATH."""
    cand = explicit or shutil.which("ghc")
    if cand and os.access(cand, os.X_OK):
        return Compiler("ghc", os.path.abspath(cand))
    return Compiler("ghc", None, "ghc not installed")


def tool_version(comp: Compiler) -> str:
    if not comp.path:
        return "(none)"
    try:
        p = subprocess.run([comp.path, "--version"], capture_output=True, text=True,
                           timeout=30)
        return (p.stdout.strip().splitlines() or ["?"])[0]
    except (OSError, subprocess.SubprocessError):
        return "?"


# --------------------------------------------------------------------------------
# Building


@dataclass
class BuildResult:
    exe: Optional[str]
    seconds: float = 0.0
    failure: Optional[str] = None
    log: str = ""


def first_error(log: str, limit: int = 110) -> str:
    """The most telling line of a compiler's output: the first error, with the
    message line that follows it in GHC's layout."""
    lines = [l.rstrip() for l in log.splitlines() if l.strip()]
    for i, l in enumerate(lines):
        if re.search(r"\berror\b", l, re.IGNORECASE):
            msg = l
            # GHC layout: "file:l:c: error:" then an indented message line.
            if l.endswith("error:") and i + 1 < len(lines):
                msg = l.strip() + " " + lines[i + 1].strip().lstrip("•").strip()
            return shorten(msg, limit)
    return shorten(lines[0], limit) if lines else "(no output)"


def shorten(s: str, limit: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."


def copy_as_haskell(src_dir: str, dst_dir: str, only: Optional[str] = None) -> None:
    """Copy the .lz sources (all under src_dir, or just the file `only`) to dst_dir as
    .hs files, keeping the module directory structure, for GHC."""
    os.makedirs(dst_dir, exist_ok=True)
    if only:
        shutil.copyfile(only, os.path.join(dst_dir, os.path.basename(only)[:-3] + ".hs"))
        return
    for root, _dirs, files in os.walk(src_dir):
        for f in files:
            if f.endswith(".lz"):
                rel = os.path.relpath(os.path.join(root, f), src_dir)
                out = os.path.join(dst_dir, rel[:-3] + ".hs")
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copyfile(os.path.join(root, f), out)


def build(comp: Compiler, main_src: str, flags: List[str], build_dir: str,
          timeout: float, whole_dir: bool = True) -> BuildResult:
    """Compile main_src (an .lz file; its directory holds the other modules when
    whole_dir) with comp and flags into build_dir/prog."""
    if not comp.path:
        return BuildResult(None, failure="not built: " + comp.missing)
    shutil.rmtree(build_dir, ignore_errors=True)
    os.makedirs(build_dir)
    exe = os.path.join(build_dir, "prog")
    if comp.name == "ghc":
        src = os.path.join(build_dir, "src")
        copy_as_haskell(os.path.dirname(main_src), src, None if whole_dir else main_src)
        main_hs = os.path.join(src, os.path.basename(main_src)[:-3] + ".hs")
        cmd = [comp.path] + flags + ["-outputdir", os.path.join(build_dir, "o"),
                                     "-i" + src, main_hs, "-o", exe]
    else:
        cmd = [comp.path] + flags + [main_src, "-o", exe]
    log_path = os.path.join(build_dir, "build.log")
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, start_new_session=True)
        log = p.stdout.decode("utf-8", "replace")
        rc = p.returncode
    except subprocess.TimeoutExpired as e:
        log = (e.output or b"").decode("utf-8", "replace")
        rc = None
    except OSError as e:
        log, rc = str(e), -1
    secs = time.perf_counter() - start
    with open(log_path, "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + log)
    if rc is None:
        return BuildResult(None, secs, "build timeout (>%g s)" % timeout, log)
    if rc != 0 or not os.path.isfile(exe):
        what = "build failed"
        if comp.name == "lzc" and rc == 2:
            what = "build failed (not implemented)"
        elif rc is not None and rc < 0:
            what = "compiler crashed (%s)" % signal_name(-rc)
        return BuildResult(None, secs, "%s: %s" % (what, first_error(log)), log)
    return BuildResult(exe, secs, None, log)


# --------------------------------------------------------------------------------
# Running


@dataclass
class RunResult:
    elapsed: float
    stdout: bytes = b""
    stderr: bytes = b""
    failure: Optional[str] = None
    cpu: Optional[float] = None            # user + system seconds
    stats: Dict[str, float] = field(default_factory=dict)


def signal_name(n: int) -> str:
    try:
        return signal.Signals(n).name
    except ValueError:
        return "signal %d" % n


def run(cmd: List[str], timeout: float, work_dir: str, stats_file: Optional[str] = None,
        tag: str = "run") -> RunResult:
    """Run cmd once (stdin empty), its output captured in files under work_dir."""
    os.makedirs(work_dir, exist_ok=True)
    out_path = os.path.join(work_dir, tag + ".stdout")
    err_path = os.path.join(work_dir, tag + ".stderr")
    if stats_file and os.path.exists(stats_file):
        os.unlink(stats_file)
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        try:
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                 start_new_session=True)
        except OSError as e:
            return RunResult(0.0, failure="cannot run: %s" % e)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                pass
        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _pid, status, ru = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        elapsed = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)   # Popen must not wait again
    with open(out_path, "rb") as f:
        stdout = f.read()
    with open(err_path, "rb") as f:
        stderr = f.read()
    res = RunResult(elapsed, stdout, stderr, cpu=ru.ru_utime + ru.ru_stime)
    rc = p.returncode
    if timed_out.is_set():
        res.failure = "timeout (>%g s)" % timeout
    elif rc < 0:
        res.failure = "crashed (%s)" % signal_name(-rc)
    elif rc != 0:
        msg = stderr.decode("utf-8", "replace").strip().splitlines()
        res.failure = shorten("exit %d: %s" % (rc, msg[0] if msg else "(no message)"), 110)
    if stats_file and os.path.exists(stats_file):
        with open(stats_file, "r", errors="replace") as f:
            res.stats = parse_rts_stats(f.read())
    return res


def compare_output(got: bytes, expected: bytes) -> Optional[str]:
    """None when equal, else a short description of the first difference."""
    if got == expected:
        return None
    def lines(b):
        ls = b.decode("utf-8", "replace").split("\n")
        return ls[:-1] if ls[-1] == "" else ls
    g, e = lines(got), lines(expected)
    if g == e:
        return "wrong output (final newline)"
    for i in range(max(len(g), len(e))):
        gl = g[i] if i < len(g) else "<end of output>"
        el = e[i] if i < len(e) else "<end of output>"
        if gl != el:
            return "wrong output (line %d: got %s, expected %s)" % (
                i + 1, shorten(repr(gl), 40), shorten(repr(el), 40))
    return "wrong output"


# --------------------------------------------------------------------------------
# Runtime statistics

_HUMAN = [
    ("alloc", r"([\d,]+) bytes allocated in the heap"),
    ("copied", r"([\d,]+) bytes copied during GC"),
    ("maxres", r"([\d,]+) bytes maximum residency"),
    ("mut_cpu", r"MUT\s+time\s+([\d.]+)s"),
    ("gc_cpu", r"GC\s+time\s+([\d.]+)s"),
    ("total_cpu", r"Total\s+time\s+([\d.]+)s"),
    ("total_wall", r"Total\s+time\s+[\d.]+s\s+\(\s*([\d.]+)s elapsed\)"),
    ("init_cpu", r"INIT\s+time\s+([\d.]+)s"),
    ("init_wall", r"INIT\s+time\s+[\d.]+s\s+\(\s*([\d.]+)s elapsed\)"),
    ("mut_wall", r"MUT\s+time\s+[\d.]+s\s+\(\s*([\d.]+)s elapsed\)"),
    ("gc_wall", r"GC\s+time\s+[\d.]+s\s+\(\s*([\d.]+)s elapsed\)"),
    ("exit_wall", r"EXIT\s+time\s+[\d.]+s\s+\(\s*([\d.]+)s elapsed\)"),
]

_MACHINE = {
    "bytes allocated": "alloc",
    "bytes copied": "copied",
    "max_bytes_used": "maxres",
    "num_GCs": "gcs",
    "mutator_cpu_seconds": "mut_cpu",
    "GC_cpu_seconds": "gc_cpu",
    "total_cpu_seconds": "total_cpu",
    "total_wall_seconds": "total_wall",
}


def parse_rts_stats(text: str) -> Dict[str, float]:
    """Allocation, maximum residency and times from an RTS statistics file, in either
    GHC's machine-readable form (`-t --machine-readable`: a list of string pairs) or
    the human `-s` summary (GHC's layout, which Lz's runtime follows). Keys: alloc,
    copied, maxres, gcs, mut_cpu, gc_cpu, total_cpu, total_wall (and from the human
    form init_cpu, init_wall, mut_wall, gc_wall, exit_wall); missing ones absent."""
    out: Dict[str, float] = {}
    pairs = re.findall(r'\("([^"]*)",\s*"([^"]*)"\)', text)
    if pairs:
        for k, v in pairs:
            if k in _MACHINE:
                try:
                    out[_MACHINE[k]] = float(v)
                except ValueError:
                    pass
        return out
    for key, rx in _HUMAN:
        m = re.search(rx, text)
        if m:
            out[key] = float(m.group(1).replace(",", ""))
    m = re.search(r"Gen\s+1\s+(\d+) colls", text)
    if m:
        g0 = re.search(r"Gen\s+0\s+(\d+) colls", text)
        out["gcs"] = float(m.group(1)) + (float(g0.group(1)) if g0 else 0.0)
    return out


# --------------------------------------------------------------------------------
# Core speeds


def core_speeds(loops: int = 2000000, tries: int = 3) -> Dict[int, float]:
    """Seconds a fixed busy loop takes pinned to each core this process may use (the
    best of `tries`). On a virtual machine one core can run at half speed for minutes
    while the host is busy; then no -N2 speedup can reach 2, and the table should say
    so. Empty where affinity cannot be set."""
    try:
        allowed = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return {}
    speeds: Dict[int, float] = {}
    try:
        for cpu in allowed:
            os.sched_setaffinity(0, {cpu})
            best = None
            for _ in range(tries):
                t0 = time.perf_counter()
                acc = 0
                for i in range(loops):
                    acc = (acc + i * i) & 0xFFFF
                dt = time.perf_counter() - t0
                best = dt if best is None else min(best, dt)
            speeds[cpu] = best
    except OSError:
        return {}
    finally:
        try:
            os.sched_setaffinity(0, set(allowed))
        except OSError:
            pass
    return speeds

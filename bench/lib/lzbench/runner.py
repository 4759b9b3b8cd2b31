"""The benchmark loop: build every program in every configuration, check its output,
then time it k times at each -N value, never stopping for a failure.

A *configuration* is a label, a compiler, its build flags and the RTS flags it runs
with (a function of N; N is None for sequential suites). Two configurations with the
same compiler and build flags share one build. Timed runs are interleaved (run i of
every configuration, then run i+1) so that a change of machine load during a long
run affects all configurations alike.

The result for one program (ProgramResult) keeps every build, every check and every
run (a Series per configuration and N); report.py's columns are functions of it.
"""

import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

from . import measure
from .measure import BuildResult, Compiler, RunResult
from .steady import SteadyGate
from .suite import Program

REDO = 3  # a timed run is made at most 1 + REDO times while the host's speed changes


@dataclass
class Config:
    label: str
    compiler: Compiler
    build_flags: List[str]
    rts_flags: Callable[[Optional[int]], List[str]] = lambda n: [] if n is None else ["-N%d" % n]
    # A recording configuration: record(path) are the RTS flags that make the run
    # write its log to path (one log per run, kept under runs/); log_stats(path), when
    # given, measures a recorded log (size, events) into the run's stats.
    record: Optional[Callable[[str], List[str]]] = None
    log_stats: Optional[Callable[[str], Dict[str, float]]] = None
    # A replaying configuration: replays = the label of the recording configuration
    # whose log of the same round (check run, timed run i, same N) this one replays;
    # replay(path) are its RTS flags (replacing rts_flags: the log gives -N). It runs
    # without the program's arguments (the log restores them) and only after that
    # recording succeeded; exit status 3 (divergence) is that run's failure.
    replays: Optional[str] = None
    replay: Optional[Callable[[str], List[str]]] = None
    # Timed at this N only (a build without capabilities: the vanilla way).
    only_n: Optional[int] = None


@dataclass
class Series:
    """k runs of one program in one configuration at one N."""
    runs: List[RunResult] = field(default_factory=list)
    failure: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.failure is None and bool(self.runs)

    @property
    def times(self) -> List[float]:
        return [r.elapsed for r in self.runs]

    def median(self) -> float:
        return statistics.median(self.times)

    def min(self) -> float:
        return min(self.times)

    def max(self) -> float:
        return max(self.times)

    def stat(self, key: str) -> Optional[float]:
        """Median over the runs of an RTS statistic ('alloc', 'maxres', ...) or of
        'cpu' (user + system seconds, from the operating system); None when never
        reported."""
        if key == "cpu":
            vals = [getattr(r, key) for r in self.runs if getattr(r, key) is not None]
        else:
            vals = [r.stats[key] for r in self.runs if key in r.stats]
        return statistics.median(vals) if vals else None


@dataclass
class ProgramResult:
    program: Program
    builds: Dict[str, BuildResult] = field(default_factory=dict)    # by config label
    checks: Dict[str, Optional[str]] = field(default_factory=dict)  # failure or None
    series: Dict[Tuple[str, Optional[int]], Series] = field(default_factory=dict)

    def failure(self, label: str, n: Optional[int] = None) -> Optional[str]:
        """Why configuration `label` has no measurement at N=n (None when it has)."""
        b = self.builds.get(label)
        if b is None:
            return "not run"
        if b.failure:
            return b.failure
        if self.checks.get(label):
            return self.checks[label]
        s = self.series.get((label, n))
        if s is not None and s.failure:
            return s.failure
        return None

    def get(self, label: str, n: Optional[int]) -> Optional[Series]:
        s = self.series.get((label, n))
        return s if s is not None and s.ok and self.failure(label, n) is None else None

    def all_failures(self) -> List[Tuple[str, Optional[int], str]]:
        out = []
        for label, b in self.builds.items():
            if b.failure or self.checks.get(label):
                out.append((label, None, b.failure or self.checks[label]))
        for (label, n), s in self.series.items():
            if s.failure and not (self.builds[label].failure or self.checks.get(label)):
                out.append((label, n, s.failure))
        return out


class Progress:
    """One status line on stderr: rewritten in place on a terminal, else one line
    per update (so that logs show the progress too)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled
        self.tty = sys.stderr.isatty()
        self.width = 0

    def show(self, text: str, transient: bool = False) -> None:
        """transient: about to be replaced by a fuller line (not logged off a tty)."""
        if not self.enabled or (transient and not self.tty):
            return
        if self.tty:
            pad = max(0, self.width - len(text))
            sys.stderr.write("\r" + text + " " * pad)
            self.width = len(text)
        else:
            sys.stderr.write(text + "\n")
        sys.stderr.flush()

    def done(self) -> None:
        if self.enabled and self.tty and self.width:
            sys.stderr.write("\r" + " " * self.width + "\r")
            sys.stderr.flush()
            self.width = 0


def n_text(n: Optional[int]) -> str:
    return "" if n is None else " -N%d" % n


class Runner:
    def __init__(self, configs: List[Config], ns: List[Optional[int]], runs: int,
                 size: str, out_dir: str, timeout: float, build_timeout: float,
                 check_only: bool = False, progress: Optional[Progress] = None,
                 gate: Optional[SteadyGate] = None):
        self.configs = configs
        self.ns = ns
        self.runs = runs
        self.size = size
        self.out_dir = os.path.abspath(out_dir)
        self.timeout = timeout
        self.build_timeout = build_timeout
        self.check_only = check_only
        self.progress = progress or Progress()
        self.gate = gate  # None: runs are timed whatever the host's speed (steady.py)

    # -- one program ------------------------------------------------------------

    def build_dir(self, prog: Program, cfg: Config) -> str:
        key = cfg.compiler.name + "".join(f.replace("-", "_") for f in cfg.build_flags)
        return os.path.join(self.out_dir, "build", key, prog.name)

    def command(self, exe: str, prog: Program, cfg: Config, n: Optional[int],
                stats_file: str, log: Optional[str] = None) -> List[str]:
        stats = cfg.compiler.stats_rts_flags(stats_file)
        if cfg.replays:
            return [exe, "+RTS"] + cfg.replay(log) + stats + ["-RTS"]
        rts = cfg.rts_flags(n) + (cfg.record(log) if cfg.record else []) + stats
        return [exe] + prog.args[self.size] + ["+RTS"] + rts + ["-RTS"]

    def run_once(self, prog: Program, cfg: Config, n: Optional[int], tag: str,
                 round_: int = 0) -> RunResult:
        """One run; round_ names it among the rounds of one N (0: the check run), so
        that a replaying configuration finds the log its recorder wrote in that round."""
        exe = self.builds_cache[self.build_dir(prog, cfg)].exe
        work = os.path.join(self.out_dir, "runs", prog.name, cfg.label)
        stats = os.path.join(work, tag + ".stats")
        os.makedirs(work, exist_ok=True)
        log = None
        if cfg.replays:
            log = self.logs.get((prog.name, cfg.replays, n, round_))
            if log is None:
                return RunResult(0.0, failure="no recording (%s failed in this round)"
                                 % cfg.replays)
        elif cfg.record:
            log = self.log_path(prog, cfg, n, round_)
            if os.path.exists(log):
                os.unlink(log)
        r = measure.run(self.command(exe, prog, cfg, n, stats, log), self.timeout, work,
                        stats, tag)
        if cfg.replays and r.failure and r.failure.startswith("exit 3:"):
            r.failure = "replay diverged (exit 3)" + r.failure[len("exit 3"):]
        return r

    def timed_run(self, prog: Program, cfg: Config, n: Optional[int], round_: int) -> RunResult:
        """A timed run, made again (up to REDO times) if the steady-host gate saw a core
        slow down during it."""
        for attempt in range(REDO + 1):
            before = self.gate.before_run() if self.gate else {}
            r = self.run_once(prog, cfg, n, "run", round_)
            if r.failure or not self.gate or self.gate.after_run(before, attempt < REDO):
                break
            self.progress.show("%s  %s%s  run %d made again: a core slowed during it (%.2fs)"
                               % (prog.name, cfg.label, n_text(n), round_, r.elapsed))
        return r

    def log_path(self, prog: Program, cfg: Config, n: Optional[int], round_: int) -> str:
        """Where a recording configuration's run writes its log: runs/PROG/LABEL/
        check-N2.lzr, run1-N2.lzr, ..."""
        name = "check" if round_ == 0 else "run%d" % round_
        return os.path.join(self.out_dir, "runs", prog.name, cfg.label,
                            "%s%s.lzr" % (name, n_text(n).replace(" ", "")))

    def recorded(self, prog: Program, cfg: Config, n: Optional[int], round_: int,
                 r: RunResult) -> None:
        """A run of a recording configuration passed: its log may be replayed and is
        measured."""
        if not cfg.record:
            return
        log = self.log_path(prog, cfg, n, round_)
        if not os.path.isfile(log):
            r.failure = "no log written (%s)" % os.path.basename(log)
            return
        self.logs[(prog.name, cfg.label, n, round_)] = log
        if cfg.log_stats:
            r.stats.update(cfg.log_stats(log))

    def bench_program(self, prog: Program, index: int, total: int) -> ProgramResult:
        res = ProgramResult(prog)
        head = "[%d/%d] %s" % (index, total, prog.name)
        expected = None
        exp_path = prog.expected.get(self.size)
        if exp_path and os.path.isfile(exp_path):
            with open(exp_path, "rb") as f:
                expected = f.read()
        for cfg in self.configs:
            bdir = self.build_dir(prog, cfg)
            if bdir not in self.builds_cache:
                self.progress.show("%s  building with %s" % (head, cfg.compiler.name))
                self.builds_cache[bdir] = measure.build(
                    cfg.compiler, prog.main_src, cfg.build_flags, bdir, self.build_timeout,
                    prog.whole_dir)
            res.builds[cfg.label] = self.builds_cache[bdir]
        live = [c for c in self.configs if not res.builds[c.label].failure]
        # Check run: once, at the first N; a wrong output means no timing.
        for cfg in live:
            self.progress.show("%s  %s%s  checking output" % (head, cfg.label, n_text(self.ns[0])))
            r = self.run_once(prog, cfg, self.ns[0], "check")
            why = r.failure
            if why is None:
                if expected is None:
                    why = "no expected output (%s)" % os.path.relpath(exp_path or "?")
                else:
                    why = measure.compare_output(r.stdout, expected)
            if why is None:
                self.recorded(prog, cfg, self.ns[0], 0, r)
                why = r.failure
            res.checks[cfg.label] = why
        live = [c for c in live if not res.checks[c.label]]
        if self.check_only:
            return res
        # Runs interleave over N as over configurations (run 1 of every N and
        # configuration, then run 2, ...): this host's speed changes in phases of
        # minutes, and a phase that fell on the -N1 block alone made speedups of 2.4.
        at = {n: [c for c in live if c.only_n is None or c.only_n == n] for n in self.ns}
        for n in self.ns:
            for cfg in at[n]:
                res.series[(cfg.label, n)] = Series()
        if self.gate:
            # logged when a wait begins and every 30 s of it (not only on a terminal)
            self.gate.on_wait = lambda speed, secs: self.progress.show(
                "%s  waiting for the cores (the slowest at %.2f of its speed, %.0f s)"
                % (head, speed, secs), secs % 30 != 0)
        for i in range(self.runs):
            for n in self.ns:
                for cfg in at[n]:
                    s = res.series[(cfg.label, n)]
                    if s.failure:
                        continue
                    self.progress.show("%s  %s%s  run %d of %d" % (head, cfg.label, n_text(n),
                                                                   i + 1, self.runs), True)
                    r = self.timed_run(prog, cfg, n, i + 1)
                    why = r.failure or measure.compare_output(r.stdout, expected)
                    if not why:
                        self.recorded(prog, cfg, n, i + 1, r)
                        why = r.failure
                    if why:
                        s.failure = "%s (run %d%s)" % (why, i + 1, n_text(n))
                        continue
                    s.runs.append(r)
                    self.progress.show("%s  %s%s  run %d of %d  %.2fs" % (
                        head, cfg.label, n_text(n), i + 1, self.runs, r.elapsed))
        return res

    # -- the suite -----------------------------------------------------------------

    def run_all(self, progs: List[Program]) -> List[ProgramResult]:
        self.builds_cache: Dict[str, BuildResult] = {}
        self.logs: Dict[Tuple[str, str, Optional[int], int], str] = {}
        started = time.time()
        results = []
        for i, p in enumerate(progs, 1):
            if self.size not in p.args:
                raise SystemExit("%s has no arguments for size %r" % (p.name, self.size))
            results.append(self.bench_program(p, i, len(progs)))
        self.progress.done()
        self.elapsed = time.time() - started
        return results

    def update_expected(self, progs: List[Program], cfg: Config) -> int:
        """Build with cfg (GHC) and store each program's output as its expected output.
        Returns the number of failures."""
        self.builds_cache = {}
        self.logs = {}
        failures = 0
        for i, p in enumerate(progs, 1):
            head = "[%d/%d] %s" % (i, len(progs), p.name)
            self.progress.show("%s  building with %s" % (head, cfg.compiler.name))
            bdir = self.build_dir(p, cfg)
            b = measure.build(cfg.compiler, p.main_src, cfg.build_flags, bdir,
                              self.build_timeout, p.whole_dir)
            self.builds_cache[bdir] = b
            if b.failure:
                print("%s: %s" % (p.name, b.failure))
                failures += 1
                continue
            self.progress.show("%s  running %s" % (head, " ".join(p.args[self.size])))
            r = self.run_once(p, cfg, self.ns[0], "expected")
            if r.failure:
                print("%s: %s" % (p.name, r.failure))
                failures += 1
                continue
            with open(p.expected[self.size], "wb") as f:
                f.write(r.stdout)
            self.progress.done()
            print("%-14s %6.2fs  -> %s" % (p.name, r.elapsed, os.path.relpath(p.expected[self.size])))
        self.progress.done()
        return failures

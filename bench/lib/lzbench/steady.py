"""A gate that times runs only while every core of this host runs at its full speed.

The virtual machines we measure on slow down one core or both for minutes at a time
(a busy host): a busy loop pinned to a core then takes 1.5 to 2 times as long, and a
program run in such a phase makes -N2 speedups of 2.4 or 1.2 that say nothing about
the program. The core-speed check before and after a whole table only says afterwards
that it happened. So, with the gate on (the runners' default), before each timed run
the runner probes every core at once (a short busy loop pinned to each, in parallel)
and waits while any core is below `threshold` of the best speed it has probed on that
core; after the run it probes again, and a run during which a core slowed is
discarded and made again. What it did goes into the table's header (lines()): runs
redone, seconds waited, and the runs it had to keep slow (it stops waiting after
`max_wait` seconds for one run and `max_total` in all, so a host that stays slow
makes a late table, not an endless one).

A gate that starts in a slow phase would take the slow speed for the best one, so the
best probe times are remembered between runs of the runner (`memory`, a JSON file in
the runner's output folder, keyed by host, processor, Python and probe).
"""

import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from typing import Callable, Dict, List, Optional

# One probe: the best of three short loops, pinned to one core (~20 ms each when the
# core is fast). A separate process per core, so that the cores are probed at once.
PROBE = ("import os,time\n"
         "os.sched_setaffinity(0,{%d})\n"
         "best=9.0\n"
         "for _ in range(3):\n"
         " t=time.perf_counter();a=0\n"
         " for i in range(200000): a=(a+i*i)&0xFFFF\n"
         " best=min(best,time.perf_counter()-t)\n"
         "print(best)\n")


def probe_cores(cpus: List[int]) -> Dict[int, float]:
    """Seconds the probe loop took on each core, all probed at the same time."""
    procs = {c: subprocess.Popen([sys.executable, "-c", PROBE % c], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL) for c in cpus}
    out = {}
    for c, p in procs.items():
        text = p.communicate()[0]
        try:
            out[c] = float(text)
        except ValueError:
            pass
    return out


class SteadyGate:
    def __init__(self, threshold: float = 0.85, max_wait: float = 120.0,
                 max_total: float = 900.0, pause: float = 2.0,
                 probe: Optional[Callable[[List[int]], Dict[int, float]]] = None,
                 cpus: Optional[List[int]] = None,
                 sleep: Callable[[float], None] = time.sleep,
                 memory: Optional[str] = None):
        self.threshold = threshold
        self.max_wait = max_wait
        self.max_total = max_total
        self.pause = pause
        self.probe_fn = probe or probe_cores
        self.sleep = sleep
        if cpus is None:
            try:
                cpus = sorted(os.sched_getaffinity(0))
            except (AttributeError, OSError):
                cpus = []
        self.cpus = cpus
        self.best: Dict[int, float] = {}
        self.memory = memory
        self.remembered = False  # best times from an earlier run of the runner
        self.redone = 0       # runs discarded because a core slowed during them
        self.kept_slow = 0    # runs made although a core stayed slow (waited too long)
        self.waited = 0.0
        self.probes = 0
        self.kept_probes: List[Dict[int, float]] = []  # the probes around kept runs
        self.fresh: Optional[Dict[int, float]] = None  # a probe taken just after a run
        self.on_wait: Optional[Callable[[float, float], None]] = None  # (speed, seconds)

    @property
    def enabled(self) -> bool:
        return self.threshold > 0 and len(self.cpus) > 0

    def probe(self) -> Dict[int, float]:
        """Probe the cores; remember each one's best time."""
        t = self.probe_fn(self.cpus)
        self.probes += 1
        for c, s in t.items():
            if s > 0 and (c not in self.best or s < self.best[c]):
                self.best[c] = s
        return t

    def speed(self, t: Dict[int, float]) -> float:
        """The slowest core's speed in probe t, relative to its best (1.0: full)."""
        rel = [self.best[c] / s for c, s in t.items() if s > 0 and c in self.best]
        return min(rel) if rel else 1.0

    def start(self, probes: int = 3) -> None:
        """The best times remembered from earlier runs, and a few probes before the
        first run, so that 'best' means something."""
        if not self.enabled:
            return
        for c, t in self.load().items():
            if c in self.cpus and t > 0:
                self.best[c] = t
                self.remembered = True
        for i in range(probes):
            if i:
                self.sleep(0.5)
            self.probe()

    def key(self) -> str:
        model = ""
        try:
            with open("/proc/cpuinfo") as f:
                model = next((ln for ln in f if ln.startswith("model name")), "")
        except OSError:
            pass
        text = "\n".join([platform.node(), model, sys.version, PROBE])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def load(self) -> Dict[int, float]:
        if not self.memory:
            return {}
        try:
            with open(self.memory) as f:
                data = json.load(f)
            if data.get("key") != self.key():
                return {}
            return {int(c): float(t) for c, t in data.get("best", {}).items()}
        except (OSError, ValueError, AttributeError, TypeError):
            return {}  # none yet, or unreadable: start afresh

    def save(self) -> None:
        """Remember the best probe times for the next run of the runner."""
        if not self.memory or not self.best:
            return
        try:
            os.makedirs(os.path.dirname(os.path.abspath(self.memory)), exist_ok=True)
            tmp = self.memory + ".tmp"
            with open(tmp, "w") as f:
                json.dump({"key": self.key(), "best": self.best}, f)
            os.replace(tmp, self.memory)
        except OSError:
            pass

    def before_run(self) -> Dict[int, float]:
        """Wait until every core probes at full speed (or until waiting is over); the
        probe it last took."""
        if not self.enabled:
            return {}
        slept = 0.0
        while True:
            t, self.fresh = (self.fresh or self.probe()), None
            if (self.speed(t) >= self.threshold or slept >= self.max_wait
                    or self.waited >= self.max_total):
                return t
            if self.on_wait:
                self.on_wait(self.speed(t), slept)
            self.sleep(self.pause)
            slept += self.pause
            self.waited += self.pause

    def after_run(self, before: Dict[int, float], may_redo: bool) -> bool:
        """Keep the run just made? False: a core slowed during it; make it again. (A run
        that began slow, because the gate stopped waiting, is kept: waiting is over.)"""
        if not self.enabled:
            return True
        t = self.probe()
        self.fresh = t  # the next run's first probe
        began_fast = self.speed(before) >= self.threshold
        if began_fast and self.speed(t) < self.threshold and may_redo:
            self.redone += 1
            return False
        if not began_fast or self.speed(t) < self.threshold:
            self.kept_slow += 1
        self.kept_probes += [before, t]
        return True

    @property
    def accepted(self) -> int:
        """Runs kept (each with the probes before and after it)."""
        return len(self.kept_probes) // 2

    def kept_below_final(self) -> int:
        """Probes around kept runs below the threshold of the best speeds known at the
        end (a core's best may have been found only after a run was kept)."""
        return sum(1 for t in self.kept_probes if self.speed(t) < self.threshold)

    def lines(self) -> List[str]:
        if not self.enabled:
            return ["steady-host gate: off"]
        lines = ["steady-host gate: every timed run waited until a busy loop pinned to each "
                 "core ran at %.2f or more of that core's best speed, and was made again if "
                 "a core fell below it during the run: %d run(s) kept, %d redone, %.0f s "
                 "waited, %d probes; best speeds %s" % (
                     self.threshold, self.accepted, self.redone, self.waited, self.probes,
                     "remembered from earlier runs and probed" if self.remembered
                     else "probed in this run only")]
        late = self.kept_below_final()
        if self.kept_slow or late:
            lines.append("warning: %d run(s) kept with a core below %.2f of its speed (the "
                         "gate stopped waiting), and %d probe(s) around kept runs below it "
                         "by the best speeds found later: the host was busy (not evidence)"
                         % (self.kept_slow, self.threshold, late))
        return lines

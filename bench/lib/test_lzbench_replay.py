"""Tests of the record/replay side of the benchmark library (issue 6): recording and
replaying configurations, the event counter, the median/worst summary, and the replay
part of bench/nofib-mini/run. Stdlib only, fake compilers as in test_lzbench.py:

    python3 -m unittest discover -s bench/lib -v
"""

import importlib.machinery
import importlib.util
import os
import shutil
import struct
import tempfile
import unittest

from lzbench import eventlog, report
from lzbench.measure import Compiler
from lzbench.runner import Config, Progress, Runner
from lzbench.suite import load_suite
from test_lzbench import FAKE_CC, write

HERE = os.path.dirname(os.path.abspath(__file__))

# A fake -replay program. Recording: writes a new log (a serial number) and appends it to
# recorded.txt. Replaying: appends the log it was given to replayed.txt; a log whose
# program is "diverge" makes the replay fail like the real one (exit 3).
FAKE_PROG = (r'-- run: dir=%s; rec=""; rpl=""; for a in "$@"; do case "$a" in '
             r'--record=*) rec="${a#--record=}" ;; --replay=*) rpl="${a#--replay=}" ;; '
             r'esac; done; '
             r'if [ -n "$rec" ]; then k=$(cat "$dir/serial" 2>/dev/null || echo 0); '
             r'k=$((k+1)); echo $k > "$dir/serial"; echo "%s $k" > "$rec"; '
             r'echo "%s $k" >> "$dir/recorded.txt"; fi; '
             r'if [ -n "$rpl" ]; then cat "$rpl" >> "$dir/replayed.txt"; '
             r'case "$(cat "$rpl")" in diverge*) '
             r'echo "prog: replay diverged at event #7 (capability 1)" >&2; exit 3 ;; esac; '
             r'fi; echo 42' + "\n")


def load_run_script():
    """bench/nofib-mini/run as a module (it has no .py suffix)."""
    path = os.path.join(os.path.dirname(HERE), "nofib-mini", "run")
    loader = importlib.machinery.SourceFileLoader("nofib_run", path)
    spec = importlib.util.spec_from_loader("nofib_run", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class ReplayLoopTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.cc = os.path.join(self.dir, "fakecc")
        write(self.cc, FAKE_CC, 0o755)
        for name in ("good", "diverge"):
            write(os.path.join(self.dir, name, "Main.lz"), FAKE_PROG % (self.dir, name, name))
            write(os.path.join(self.dir, name, name + ".fast.stdout"), "42\n")
        write(os.path.join(self.dir, "suite.txt"), "good dir=good fast=1\ndiverge dir=diverge fast=1\n")
        self.progs = load_suite(os.path.join(self.dir, "suite.txt"), "{dir}/{name}.{size}.stdout")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def lines(self, name):
        with open(os.path.join(self.dir, name)) as f:
            return f.read().split("\n")[:-1]

    def test_record_then_replay(self):
        cc = Compiler("lzc", self.cc)
        cfgs = [Config("lzc", cc, ["-O2", "-threaded"]),
                Config("rec", cc, ["-O2", "-replay"], record=lambda p: ["--record=" + p],
                       log_stats=lambda p: {"log_bytes": float(os.path.getsize(p))}),
                Config("rpl", cc, ["-O2", "-replay"], replays="rec",
                       replay=lambda p: ["--replay=" + p])]
        runner = Runner(cfgs, [1, 2], 3, "fast", os.path.join(self.dir, "out"), 10, 10,
                        False, Progress(False))
        good, div = runner.run_all(self.progs)
        # rec and rpl share one build; every replay replayed the recording just before.
        self.assertIs(good.builds["rec"], good.builds["rpl"])
        rec, rpl = self.lines("recorded.txt"), self.lines("replayed.txt")
        self.assertEqual(rec[:7], ["good %d" % k for k in range(1, 8)])   # check + 2 x 3
        self.assertEqual(rpl[:7], rec[:7])
        self.assertEqual(len(good.get("rpl", 2).runs), 3)
        self.assertEqual(good.get("rec", 2).stat("log_bytes"), len("good 5\n"))
        # A diverging replay fails its cell (at the check: no timing), not the runner,
        # and leaves the recording's cells alone.
        self.assertTrue(div.failure("rpl").startswith("replay diverged (exit 3): prog: "))
        self.assertIsNone(div.failure("rec", 2))
        self.assertEqual(len(div.get("rec", 2).runs), 3)
        self.assertEqual(report.failure_kind(div.failure("rpl")), "replay diverged")
        self.assertEqual(rpl[7:], ["diverge 8"])      # replayed once (the check), then not
        # Logs are kept, one per run.
        logs = sorted(os.listdir(os.path.join(self.dir, "out", "runs", "good", "rec")))
        self.assertIn("check-N1.lzr", logs)
        self.assertIn("run3-N2.lzr", logs)

    def test_no_recording(self):
        """A replay whose recording failed in that round is that cell's failure."""
        cc = Compiler("lzc", self.cc)
        cfgs = [Config("rec", cc, ["-replay"], record=lambda p: []),   # writes no log
                Config("rpl", cc, ["-replay"], replays="rec",
                       replay=lambda p: ["--replay=" + p])]
        runner = Runner(cfgs, [2], 1, "fast", os.path.join(self.dir, "out"), 10, 10,
                        False, Progress(False))
        good = runner.run_all(self.progs[:1])[0]
        self.assertTrue(good.failure("rec").startswith("no log written"))
        self.assertTrue(good.failure("rpl").startswith("no recording"))


def event_log(decls, events, end=True):
    """An event log: decls = [(type, size or -1)], events = [(type, payload bytes)]."""
    out = b"hdrbhetb"
    for t, size in decls:
        out += b"etb\0" + struct.pack(">HhI", t, size, 1) + b"x" + struct.pack(">I", 0) + b"ete\0"
    out += b"hetehdredatb"
    sizes = dict(decls)
    for t, payload in events:
        out += struct.pack(">HQ", t, 123)
        if sizes[t] < 0:
            out += struct.pack(">H", len(payload))
        out += payload
    return out + (b"\xff\xff" if end else b"")


class EventCountTest(unittest.TestCase):
    DECLS = [(0, 4), (18, 14), (1900, -1)]
    EVENTS = [(18, b"b" * 14), (0, b"tttt"), (1900, b"hello"), (0, b"uuuu"), (1900, b"")]

    def test_count(self):
        c = eventlog.count_events(event_log(self.DECLS, self.EVENTS))
        self.assertEqual((c.events, c.block_markers), (4, 1))
        self.assertEqual(c.by_type, {0: 2, 1900: 2})
        self.assertEqual(c.data_bytes, 5 * 10 + 14 + 4 * 2 + 2 + 5 + 2)

    def test_no_end_marker(self):
        c = eventlog.count_events(event_log(self.DECLS, self.EVENTS, end=False))
        self.assertEqual(c.events, 4)

    def test_bad(self):
        good = event_log(self.DECLS, self.EVENTS)
        with self.assertRaisesRegex(eventlog.EventLogError, "offset 0"):
            eventlog.count_events(b"not a log")
        with self.assertRaisesRegex(eventlog.EventLogError, "cut short"):
            eventlog.count_events(good[:-4])
        undeclared = event_log(self.DECLS, []) [:-2] + struct.pack(">HQ", 7, 0) + b"\xff\xff"
        with self.assertRaisesRegex(eventlog.EventLogError, "undeclared type 7"):
            eventlog.count_events(undeclared)


class PhaseStatsTest(unittest.TestCase):
    def test_phases(self):
        from lzbench import measure
        from test_lzbench import HUMAN
        s = measure.parse_rts_stats(HUMAN + "  INIT    time    0.006s  (  0.026s elapsed)\n"
                                            "  EXIT    time    0.002s  (  0.005s elapsed)\n")
        self.assertAlmostEqual(s["init_cpu"], 0.006)
        self.assertAlmostEqual(s["init_wall"], 0.026)
        self.assertAlmostEqual(s["mut_wall"], 1.6)
        self.assertAlmostEqual(s["gc_wall"], 0.26)
        self.assertAlmostEqual(s["exit_wall"], 0.005)


class ReplayReportTest(unittest.TestCase):
    """The replay columns and summary of bench/nofib-mini/run on made-up results."""

    def test_summary(self):
        run = load_run_script()
        from lzbench.measure import RunResult
        from lzbench.runner import ProgramResult, Series
        from lzbench.suite import Program
        from lzbench.measure import BuildResult
        results = []
        # (lzc time, rec time, rpl time, log bytes, events)
        for name, (t0, t1, t2, size, ev) in {"a": (1.0, 1.02, 2.0, 3000, 1000),
                                            "b": (1.0, 1.04, 4.0, 9000, 1000),
                                            "c": (1.0, 1.20, 1.0, 1000, 1000)}.items():
            r = ProgramResult(Program(name, "/x", False))
            for lab, t in (("lzc", t0), ("rec", t1), ("rpl", t2)):
                r.builds[lab] = BuildResult("/x/prog")
                r.checks[lab] = None
                stats = {"log_bytes": size, "log_events": ev, "log_bpe": size / ev,
                         "log_header": 500.0, "log_data_bpe": (size - 500) / ev}
                r.series[(lab, 2)] = Series([RunResult(t, cpu=t / 2,
                                                       stats=dict(stats) if lab == "rec" else {})])
            results.append(r)
        lines = run.replay_summary(results, [2])
        self.assertEqual(lines[0], "Summary -N2:")
        self.assertEqual(lines[1], "- record overhead: median +4.0 %, worst +20.0 % (c), "
                                   "3 of 3 programs, target missed")
        self.assertTrue(lines[2].startswith("- record overhead in CPU time: median +4.0 %"))
        self.assertEqual(lines[3], "- replay/record: median 1.96, worst 3.85 (b), "
                                   "3 of 3 programs, target missed")
        self.assertTrue(lines[4].startswith("- log B/event: median 3.00, worst 9.00 (b)"))
        self.assertTrue(lines[5].startswith("- log B/event without the header frame: "
                                            "median 2.50"))
        # a alone is within the targets.
        lines = run.replay_summary(results[:1], [2])
        self.assertTrue(lines[1].endswith("target met"))
        self.assertTrue(lines[4].endswith("target met"))
        tables = report.make_tables(results, run.replay_columns(), [2])
        self.assertEqual(tables[0].rows[2][1].text, "1.200")
        self.assertEqual(tables[0].summary[1], "1.04")          # median overhead


if __name__ == "__main__":
    unittest.main()

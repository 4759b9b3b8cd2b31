"""Tests of the benchmark runners' library (bench/lib/lzbench), stdlib unittest only:

    python3 -m unittest discover -s bench/lib -v

They use tiny fake compilers (shell scripts that "compile" a program into a script
printing what the source's first comment line says), so they run in seconds and need
neither lzc nor GHC: statistics parsing, output comparison, suite files, failure
detection (exit status, signals, timeouts, wrong output, build errors), the run loop
and the tables.
"""

import os
import shutil
import stat
import tempfile
import textwrap
import unittest

from lzbench import measure, report
from lzbench.measure import Compiler
from lzbench.runner import Config, Progress, Runner
from lzbench.suite import SuiteError, load_suite, select

GHC_MACHINE = ''' [("bytes allocated", "386424")
 ,("num_GCs", "3")
 ,("max_bytes_used", "56632")
 ,("mutator_cpu_seconds", "0.120")
 ,("GC_cpu_seconds", "0.010")
 ,("total_wall_seconds", "0.150")
 ]
'''

HUMAN = '''     1,234,567,890 bytes allocated in the heap
                 0 bytes copied during GC
        45,678,912 bytes maximum residency (12 sample(s))
                 0 bytes maximum slop
  Gen  0         0 colls,     0 par    0.000s   0.000s     0.0000s    0.0000s
  Gen  1        12 colls,     0 par    0.250s   0.260s     0.0217s    0.0500s

  MUT     time    1.500s  (  1.600s elapsed)
  GC      time    0.250s  (  0.260s elapsed)
  Total   time    1.760s  (  1.870s elapsed)
'''

# A fake compiler: `fakecc [flags] SRC -o EXE` writes EXE, a shell script whose body
# is the text after "-- run:" on the first line of SRC (or fails if SRC says so).
FAKE_CC = r'''#!/bin/sh
out=""; src=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift 2 ;;
    -*) shift ;;
    *) src="$1"; shift ;;
  esac
done
case "$src" in *.hs) ;; *) ;; esac
line=$(head -n 1 "$src")
case "$line" in
  *"compile error"*) echo "$src:1:1: error:"; echo "    • Variable not in scope: foo"; exit 1 ;;
esac
body=${line#*-- run: }
printf '#!/bin/sh\n%s\n' "$body" > "$out"
chmod +x "$out"
'''


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    if mode:
        os.chmod(path, mode)


class StatsTest(unittest.TestCase):
    def test_machine_readable(self):
        s = measure.parse_rts_stats(GHC_MACHINE)
        self.assertEqual(s["alloc"], 386424)
        self.assertEqual(s["maxres"], 56632)
        self.assertEqual(s["gcs"], 3)
        self.assertAlmostEqual(s["mut_cpu"], 0.12)

    def test_human(self):
        s = measure.parse_rts_stats(HUMAN)
        self.assertEqual(s["alloc"], 1234567890)
        self.assertEqual(s["maxres"], 45678912)
        self.assertEqual(s["gcs"], 12)
        self.assertAlmostEqual(s["total_cpu"], 1.76)
        self.assertAlmostEqual(s["total_wall"], 1.87)

    def test_garbage(self):
        self.assertEqual(measure.parse_rts_stats("nothing here\n"), {})


class OutputTest(unittest.TestCase):
    def test_equal(self):
        self.assertIsNone(measure.compare_output(b"a\nb\n", b"a\nb\n"))

    def test_line(self):
        why = measure.compare_output(b"a\nX\n", b"a\nb\n")
        self.assertIn("line 2", why)
        self.assertTrue(why.startswith("wrong output"))

    def test_missing_line(self):
        why = measure.compare_output(b"a\n", b"a\nb\n")
        self.assertIn("end of output", why)

    def test_failure_kind(self):
        self.assertEqual(report.failure_kind("build failed: x.lz:1:1: error: y"), "build failed")
        self.assertEqual(report.failure_kind("crashed (SIGSEGV)"), "crashed")
        self.assertEqual(report.failure_kind("timeout (>3 s)"), "timeout")

    def test_first_error(self):
        log = "[1 of 1] Compiling Main\nMain.hs:3:1: error:\n    • Not in scope: foo\n"
        self.assertEqual(measure.first_error(log), "Main.hs:3:1: error: Not in scope: foo")


class SuiteTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_parse(self):
        p = os.path.join(self.dir, "suite.txt")
        write(p, textwrap.dedent('''\
            # comment
            a   dir=pa   fast="1 2"  norm="-2.0 'x y'"
            b   src=b.lz default=7
            '''))
        progs = load_suite(p, "{dir}/{name}.{size}.stdout")
        self.assertEqual([x.name for x in progs], ["a", "b"])
        self.assertEqual(progs[0].args["norm"], ["-2.0", "x y"])
        self.assertEqual(progs[0].main_src, os.path.join(self.dir, "pa", "Main.lz"))
        self.assertTrue(progs[0].whole_dir)
        self.assertFalse(progs[1].whole_dir)
        self.assertEqual(progs[0].expected["fast"], os.path.join(self.dir, "pa", "a.fast.stdout"))
        self.assertEqual(progs[1].expected["default"], os.path.join(self.dir, ".", "b.default.stdout"))
        self.assertEqual([x.name for x in select(progs, "b")], ["b"])
        with self.assertRaises(SuiteError):
            select(progs, "b,zz")

    def test_errors(self):
        p = os.path.join(self.dir, "suite.txt")
        for bad in ("x fast=1\n", "x dir=d junk\n", "x dir=d\nx dir=e\n", 'x dir=d fast="1\n'):
            write(p, bad)
            with self.assertRaises(SuiteError, msg=bad):
                load_suite(p, "{name}")


class RunTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_ok_and_stats(self):
        st = os.path.join(self.dir, "s.txt")
        script = os.path.join(self.dir, "p.sh")
        write(script, "#!/bin/sh\necho hi\ncat > %s <<'E'\n%sE\n" % (st, HUMAN), 0o755)
        r = measure.run([script], 10, self.dir, None)
        self.assertIsNone(r.failure)
        self.assertEqual(r.stdout, b"hi\n")
        r = measure.run([script], 10, self.dir, st)
        self.assertEqual(r.stats.get("alloc"), 1234567890)
        self.assertGreater(r.elapsed, 0)

    def test_exit_status(self):
        r = measure.run(["sh", "-c", "echo 'prog: boom' >&2; exit 3"], 10, self.dir)
        self.assertEqual(r.failure, "exit 3: prog: boom")

    def test_signal(self):
        r = measure.run(["sh", "-c", "kill -SEGV $$"], 10, self.dir)
        self.assertEqual(r.failure, "crashed (SIGSEGV)")

    def test_timeout(self):
        r = measure.run(["sh", "-c", "sleep 20; echo late"], 0.3, self.dir)
        self.assertTrue(r.failure.startswith("timeout"))
        self.assertLess(r.elapsed, 10)

    def test_missing_compiler(self):
        b = measure.build(Compiler("lzc", None, "lzc not found"), "/x/Main.lz", [],
                          os.path.join(self.dir, "b"), 10)
        self.assertEqual(b.failure, "not built: lzc not found")


class LoopTest(unittest.TestCase):
    """The whole runner on a three-program suite built by the fake compiler."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.cc = os.path.join(self.dir, "fakecc")
        write(self.cc, FAKE_CC, 0o755)
        write(os.path.join(self.dir, "good", "Main.lz"), "-- run: echo \"$1\"\n")
        write(os.path.join(self.dir, "good", "good.fast.stdout"), "42\n")
        write(os.path.join(self.dir, "wrong", "Main.lz"), "-- run: echo 41\n")
        write(os.path.join(self.dir, "wrong", "wrong.fast.stdout"), "42\n")
        write(os.path.join(self.dir, "broken", "Main.lz"), "-- compile error\n")
        write(os.path.join(self.dir, "broken", "broken.fast.stdout"), "42\n")
        write(os.path.join(self.dir, "suite.txt"),
              "good dir=good fast=42\nwrong dir=wrong fast=1\nbroken dir=broken fast=1\n")
        self.progs = load_suite(os.path.join(self.dir, "suite.txt"), "{dir}/{name}.{size}.stdout")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def runner(self, check_only=False):
        cfgs = [Config("lzc", Compiler("lzc", self.cc), ["-O2"]),
                Config("ghc", Compiler("ghc", self.cc), ["-O2"])]
        return Runner(cfgs, [1, 2], 2, "fast", os.path.join(self.dir, "out"), 10, 10,
                      check_only, Progress(False))

    def test_loop(self):
        results = self.runner().run_all(self.progs)
        good, wrong, broken = results
        self.assertIsNone(good.failure("lzc", 1))
        self.assertEqual(len(good.get("lzc", 2).runs), 2)
        self.assertTrue(wrong.failure("lzc").startswith("wrong output (line 1"))
        self.assertTrue(broken.failure("ghc").startswith("build failed: "))
        self.assertIn("Variable not in scope", broken.failure("ghc"))
        self.assertEqual(len(report.failures_text(results)), 4)

        cols = [report.time_col("lzc", "lzc -N{n}"), report.time_col("ghc", "ghc -N{n}"),
                report.ratio_col("lzc", "ghc", "lzc/ghc -N{n}"),
                report.speedup_col("lzc", "lzc speedup -N{n}", 1),
                report.status_col(["lzc", "ghc"])]
        tables = report.make_tables(results, cols, [1, 2])
        self.assertEqual([t.title for t in tables], ["time", "speedup"])
        self.assertEqual(tables[0].headers[:4], ["program", "lzc -N1", "ghc -N1", "lzc/ghc -N1"])
        self.assertEqual(tables[0].rows[1][1].text, "wrong output")
        self.assertEqual(tables[0].rows[2][-1].text, "lzc: build failed; ghc: build failed")
        self.assertNotEqual(tables[0].summary[3], "")        # geometric mean of good's ratio
        text = report.render_text(tables)
        self.assertIn("geo. mean", text)
        csv_text = report.raw_csv(results, ["lzc", "ghc"], [1, 2])
        self.assertEqual(len(csv_text.strip().splitlines()), 1 + 3 * 2 * 2)
        paths = report.write_outputs(os.path.join(self.dir, "res"), "t", ["x"], tables,
                                     results, cols, ["lzc", "ghc"], [1, 2])
        self.assertTrue(all(os.path.getsize(p) > 0 for p in paths))

    def test_steady_gate_redoes_runs(self):
        # good is timed 2 runs x 2 N x 2 compilers = 8 times; the probe after its first
        # run finds a core slow, so that run is made again (9 runs, 1 redone).
        from lzbench.steady import SteadyGate
        fast, slow = {0: 1.0, 1: 1.0}, {0: 1.0, 1: 2.0}
        script = [fast, fast, slow] + [fast] * 40
        gate = SteadyGate(0.85, probe=lambda cpus: script.pop(0), cpus=[0, 1],
                          sleep=lambda s: None)
        runner = self.runner()
        runner.gate = gate
        gate.start(1)
        good = runner.run_all(self.progs[:1])[0]
        self.assertEqual(len(good.get("lzc", 1).runs), 2)
        self.assertEqual((gate.accepted, gate.redone, gate.kept_slow), (8, 1, 0))
        self.assertIn("8 run(s) kept, 1 redone", gate.lines()[0])

    def test_check_only(self):
        results = self.runner(check_only=True).run_all(self.progs)
        self.assertEqual(results[0].series, {})
        self.assertIsNone(results[0].failure("lzc"))
        self.assertIsNotNone(results[1].failure("lzc"))


class CoreSpeedTest(unittest.TestCase):
    def test_equal_cores_no_warning(self):
        lines = report.core_speed_lines({0: 0.10, 1: 0.105}, {0: 0.10, 1: 0.10})
        self.assertEqual(len(lines), 1)
        self.assertIn("before cpu0 1.00, cpu1 0.95", lines[0])

    def test_slow_core_caps_the_speedup(self):
        lines = report.core_speed_lines({0: 0.10, 1: 0.20}, {0: 0.10, 1: 0.10})
        self.assertIn("before cpu0 1.00, cpu1 0.50; after cpu0 1.00, cpu1 1.00", lines[0])
        self.assertIn("caps an -N2 speedup at 1.50", lines[1])

    def test_no_affinity_no_lines(self):
        self.assertEqual(report.core_speed_lines({}, {0: 0.1}), [])

    def test_superlinear_speedup_is_flagged(self):
        from lzbench.measure import BuildResult, RunResult
        from lzbench.runner import ProgramResult, Series
        from lzbench.suite import Program

        def result(t1, t2):
            r = ProgramResult(Program("p", "/p/Main.lz", False))
            r.builds["lzc"] = BuildResult("/p/exe")
            r.series[("lzc", 1)] = Series([RunResult(t1)])
            r.series[("lzc", 2)] = Series([RunResult(t2)])
            return r
        self.assertEqual(report.superlinear_lines([result(1.0, 0.52)], ["lzc"], [1, 2]), [])
        lines = report.superlinear_lines([result(1.0, 0.40)], ["lzc"], [1, 2])
        self.assertEqual(len(lines), 1)
        self.assertIn("p lzc -N2 is 2.50 times faster than -N1", lines[0])

    def test_speedup_of_medians_and_of_fastest_runs(self):
        from lzbench.measure import BuildResult, RunResult
        from lzbench.runner import ProgramResult, Series
        from lzbench.suite import Program

        r = ProgramResult(Program("p", "/p/Main.lz", False))
        r.builds["lzc"] = BuildResult("/p/exe")
        r.series[("lzc", 1)] = Series([RunResult(t) for t in (1.0, 1.1, 1.2)])
        r.series[("lzc", 2)] = Series([RunResult(t) for t in (0.5, 0.6, 0.7)])
        cols = [report.speedup_col("lzc", "lzc speedup -N{n}", 1),
                report.speedup_col("lzc", "lzc fastest -N{n}", 1, "speedup_fastest",
                                   fastest=True)]
        tables = report.make_tables([r], cols, [1, 2])
        self.assertEqual([t.title for t in tables], ["speedup", "speedup_fastest"])
        self.assertEqual(tables[0].rows[0][1].text, "1.83")  # 1.1 / 0.6
        self.assertEqual(tables[1].rows[0][1].text, "2.00")  # 1.0 / 0.5

    def test_measures_every_allowed_core(self):
        speeds = measure.core_speeds(loops=1000, tries=1)
        if speeds:
            self.assertEqual(set(speeds), set(os.sched_getaffinity(0)))
            self.assertTrue(all(t > 0 for t in speeds.values()))


if __name__ == "__main__":
    unittest.main()


class SteadyGateTest(unittest.TestCase):
    """The steady-host gate (steady.py) with a scripted probe: no real waiting."""

    def gate(self, probes, **kw):
        from lzbench.steady import SteadyGate
        script = list(probes)
        slept = []
        g = SteadyGate(0.85, probe=lambda cpus: script.pop(0), cpus=[0, 1],
                       sleep=slept.append, **kw)
        return g, script, slept

    def test_waits_for_a_slow_core(self):
        fast, slow = {0: 1.0, 1: 1.0}, {0: 1.0, 1: 1.6}
        g, script, slept = self.gate([fast, slow, slow, fast, fast])
        g.start(1)
        before = g.before_run()
        self.assertEqual(before, fast)
        self.assertEqual(len(slept), 2)          # two probes found cpu1 slow
        self.assertTrue(g.after_run(before, True))
        self.assertEqual((g.accepted, g.redone, g.kept_slow), (1, 0, 0))
        self.assertEqual(script, [])

    def test_redoes_a_run_a_core_slowed_in(self):
        fast, slow = {0: 1.0, 1: 1.0}, {0: 1.3, 1: 1.0}
        g, script, slept = self.gate([fast, fast, slow, fast, fast])
        g.start(1)
        before = g.before_run()
        self.assertFalse(g.after_run(before, True))   # cpu0 slowed during the run
        before = g.before_run()                        # waits past the slow probe
        self.assertEqual(len(slept), 1)
        self.assertTrue(g.after_run(before, True))
        self.assertEqual((g.accepted, g.redone), (1, 1))
        self.assertIn("1 redone", g.lines()[0])

    def test_stops_waiting_and_says_so(self):
        slow = {0: 2.0, 1: 1.0}
        g, script, slept = self.gate([{0: 1.0, 1: 1.0}] + [slow] * 10, max_wait=4, pause=2)
        g.start(1)
        before = g.before_run()
        self.assertEqual(len(slept), 2)               # 4 s at 2 s a pause
        self.assertTrue(g.after_run(before, True))     # began slow: kept, not redone
        self.assertEqual(g.kept_slow, 1)
        self.assertTrue(any(line.startswith("warning:") for line in g.lines()))

    def test_a_later_best_speed_flags_earlier_runs(self):
        g, script, slept = self.gate([{0: 1.5, 1: 1.5}] * 3 + [{0: 1.0, 1: 1.0}])
        g.start(1)
        self.assertTrue(g.after_run(g.before_run(), True))
        g.probe()                                      # the cores were faster all along
        self.assertEqual(g.kept_below_final(), 2)
        self.assertTrue(any("found later" in line for line in g.lines()))

    def test_remembers_the_best_speeds(self):
        # A later run of the runner that starts in a slow phase still waits for the
        # speed an earlier run saw; a file from another host or probe is ignored.
        from lzbench.steady import SteadyGate
        d = tempfile.mkdtemp()
        try:
            mem = os.path.join(d, "out", "steady-best.json")
            first = SteadyGate(0.85, probe=lambda cpus: {0: 1.0, 1: 1.0}, cpus=[0, 1],
                               sleep=lambda s: None, memory=mem)
            first.start(1)
            first.save()
            script = [{0: 1.5, 1: 1.5}] * 2 + [{0: 1.0, 1: 1.05}]
            slept = []
            later = SteadyGate(0.85, probe=lambda cpus: script.pop(0), cpus=[0, 1],
                               sleep=slept.append, memory=mem)
            later.start(1)
            self.assertEqual(later.before_run(), {0: 1.0, 1: 1.05})
            self.assertEqual(len(slept), 1)
            self.assertIn("remembered", later.lines()[0])
            with open(mem, "w") as f:
                f.write('{"key": "another host", "best": {"0": 0.1, "1": 0.1}}')
            self.assertEqual(later.load(), {})
            with open(mem, "w") as f:
                f.write("not json")
            self.assertEqual(later.load(), {})
        finally:
            shutil.rmtree(d)

    def test_off(self):
        from lzbench.steady import SteadyGate
        g = SteadyGate(0, probe=lambda cpus: self.fail("probed"), cpus=[0, 1])
        self.assertEqual(g.before_run(), {})
        self.assertTrue(g.after_run({}, True))
        self.assertEqual(g.lines(), ["steady-host gate: off"])

    def test_real_probe(self):
        from lzbench.steady import probe_cores
        t = probe_cores([sorted(os.sched_getaffinity(0))[0]])
        self.assertEqual(len(t), 1)
        self.assertGreater(list(t.values())[0], 0)

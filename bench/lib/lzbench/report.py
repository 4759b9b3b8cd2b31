"""Tables of benchmark results, in the style of nofib-analyse, as text, Markdown and CSV.

A table is a list of Columns. A column has a header and a function from one
program's results (and an N, for columns repeated per -N value) to a Cell: the text
shown and, when there is one, the number behind it (written to CSV and used by the
summary row: geometric mean, maximum). Columns with the same `group` form one table
(each table starts with the program name), so a wide report can print as a few
readable tables. The constructors below (time_col, ratio_col, ...) cover what the
runners need; a new column is one more entry in a runner's list.

Failures are shown in the cell by their kind ("build failed", "crashed", "timeout",
"wrong output"...) and listed in full below the tables.
"""

import csv
import io
import math
import os
import platform
import statistics
import subprocess
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from .runner import ProgramResult, Series


@dataclass
class Cell:
    text: str
    number: Optional[float] = None


@dataclass
class Column:
    header: str                                  # "{n}" is replaced by N in per-N columns
    cell: Callable[[ProgramResult, Optional[int]], Cell]
    per_n: str = ""                              # "" once; "all" every N; "rest" all but the first
    summary: Optional[str] = None                # "geomean" or "max"
    group: str = ""


# ------------------------------------------------------------------------------------
# Formatting


def fmt_secs(x: float) -> str:
    return "%.0f" % x if x >= 1000 else "%#.3g" % x


def fmt_bytes(x: Optional[float]) -> str:
    if x is None:
        return "-"
    for unit, k in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if x >= k:
            return "%.3g %s" % (x / k, unit)
    return "%d B" % x


def failure_kind(reason: str) -> str:
    """'build failed: Main.lz:3:1: error: ...' -> 'build failed'."""
    for sep in (":", " ("):
        i = reason.find(sep)
        if i > 0:
            reason = reason[:i]
    return reason.strip()


def fail_cell(res: ProgramResult, label: str, n: Optional[int]) -> Optional[Cell]:
    why = res.failure(label, n)
    if why:
        return Cell(failure_kind(why))
    if res.get(label, n) is None:
        return Cell("-")
    return None


# ------------------------------------------------------------------------------------
# Column constructors


def time_col(label: str, header: str, group: str = "time", per_n: str = "all") -> Column:
    """Median elapsed seconds with min-max."""
    def cell(res, n):
        bad = fail_cell(res, label, n)
        if bad:
            return bad
        s = res.get(label, n)
        text = "%s (%s–%s)" % (fmt_secs(s.median()), fmt_secs(s.min()), fmt_secs(s.max()))
        if len(s.runs) == 1:
            text = fmt_secs(s.median())
        return Cell(text, s.median())
    return Column(header, cell, per_n, None, group)


def ratio_col(num: str, den: str, header: str, group: str = "time", per_n: str = "all",
              value: Callable[[Series], Optional[float]] = lambda s: s.median(),
              fmt: str = "%.2f", summary: str = "geomean") -> Column:
    """value(num) / value(den), geometric mean (or `summary`) in the summary row."""
    def cell(res, n):
        a, b = res.get(num, n), res.get(den, n)
        if a is None or b is None:
            return Cell("-")
        va, vb = value(a), value(b)
        if va is None or vb is None or vb <= 0:
            return Cell("-")
        return Cell(fmt % (va / vb), va / vb)
    return Column(header, cell, per_n, summary, group)


def speedup_col(label: str, header: str, base_n: Optional[int], group: str = "speedup",
                fastest: bool = False) -> Column:
    """T(base N) / T(N): how much faster more capabilities make one configuration; of the
    median runs, or of the fastest ones (`fastest`: the runs the host disturbed least)."""
    def cell(res, n):
        a, b = res.get(label, base_n), res.get(label, n)
        if a is None or b is None:
            bad = fail_cell(res, label, n) or fail_cell(res, label, base_n)
            return bad or Cell("-")
        sp = a.min() / b.min() if fastest else a.median() / b.median()
        return Cell("%.2f" % sp, sp)
    return Column(header, cell, "rest", "geomean", group)


def stat_col(label: str, key: str, header: str, at_n: Optional[int], group: str = "memory",
             fmt: Callable[[Optional[float]], str] = fmt_bytes, per_n: str = "") -> Column:
    """A statistic of the runs (median; see Series.stat) at N=at_n, or at every N when
    per_n is "all"."""
    def cell(res, n):
        s = res.get(label, n if per_n else at_n)
        if s is None:
            return Cell("-")     # the time column says why
        v = s.stat(key)
        return Cell(fmt(v), v)
    return Column(header, cell, per_n, None, group)


def fmt_cpu(x: Optional[float]) -> str:
    return "-" if x is None else fmt_secs(x)


def compile_col(label: str, header: str, group: str = "build") -> Column:
    """Seconds the build took (also shown when it failed), maximum in the summary."""
    def cell(res, n):
        b = res.builds.get(label)
        if b is None or b.exe is None:
            return Cell("-")     # a failed build's time means little
        return Cell("%.2f" % b.seconds, b.seconds)
    return Column(header, cell, "", "max", group)


def status_col(labels: List[str], header: str = "status", group: str = "time") -> Column:
    """'ok', or the kinds of failure per configuration."""
    def cell(res, n):
        bad = []
        for label in labels:
            kinds = sorted({failure_kind(w) for (l, _n, w) in res.all_failures() if l == label})
            if kinds:
                bad.append("%s: %s" % (label, ", ".join(kinds)))
        return Cell("; ".join(bad) if bad else "ok")
    return Column(header, cell, "", None, group)


# ------------------------------------------------------------------------------------
# Tables


def expand(columns: List[Column], ns: List[Optional[int]]) -> List[Tuple[str, Column, Optional[int]]]:
    """One (header, column, N) per printed column. Consecutive per-N columns of a
    group are ordered by N first: lzc -N1, ghc -N1, lzc/ghc -N1, lzc -N2, ..."""
    out = []
    i = 0
    while i < len(columns):
        c = columns[i]
        if c.per_n == "":
            out.append((c.header, c, None))
            i += 1
            continue
        j = i
        while (j < len(columns) and columns[j].per_n == c.per_n
               and columns[j].group == c.group):
            j += 1
        for n in (ns if c.per_n == "all" else ns[1:]):
            for d in columns[i:j]:
                out.append((d.header.replace("{n}", "" if n is None else str(n)), d, n))
        i = j
    return out


def summarize(kind: Optional[str], nums: List[float]) -> str:
    nums = [x for x in nums if x is not None and x > 0]
    if not kind or not nums:
        return ""
    if kind == "geomean":
        return "%.2f" % math.exp(sum(math.log(x) for x in nums) / len(nums))
    if kind == "max":
        return "%.2f" % max(nums)
    if kind == "median":
        return "%.2f" % statistics.median(nums)
    return ""


def median_and_worst(results: List[ProgramResult], col: Column,
                     n: Optional[int]) -> Optional[Tuple[float, float, str, int, int]]:
    """Over the programs: (median, maximum, the program with the maximum, programs
    with a number, programs) of a column's numbers at N=n; None when none has one."""
    vals = []
    for r in results:
        c = col.cell(r, n)
        if c.number is not None:
            vals.append((c.number, r.program.name))
    if not vals:
        return None
    worst = max(vals)
    return (statistics.median(v for v, _ in vals), worst[0], worst[1], len(vals),
            len(results))


@dataclass
class Table:
    title: str
    headers: List[str]
    rows: List[List[Cell]]
    summary: Optional[List[str]]


def make_tables(results: List[ProgramResult], columns: List[Column],
                ns: List[Optional[int]]) -> List[Table]:
    cols = expand(columns, ns)
    groups: List[str] = []
    for _h, c, _n in cols:
        if c.group not in groups:
            groups.append(c.group)
    tables = []
    for g in groups:
        mine = [(h, c, n) for (h, c, n) in cols if c.group == g]
        rows = [[Cell(r.program.name)] + [c.cell(r, n) for (_h, c, n) in mine] for r in results]
        summ = None
        kinds = sorted({c.summary for (_h, c, _n) in mine if c.summary})
        if kinds:
            label = " / ".join({"geomean": "geo. mean", "max": "maximum",
                                "median": "median"}[k] for k in kinds)
            summ = [label] + [
                summarize(c.summary, [row[i + 1].number for row in rows])
                for i, (_h, c, _n) in enumerate(mine)]
        tables.append(Table(g, ["program"] + [h for (h, _c, _n) in mine], rows, summ))
    return tables


GROUP_TITLES = {
    "time": "Elapsed time, seconds: median (min–max) of the runs; ratio of medians",
    "speedup": "Speedup over the first -N (median elapsed time)",
    "speedup_fastest": "Speedup over the first -N, fastest run at each -N (the runs the host "
                       "disturbed least; targets use the medians above)",
    "memory": "Allocation and maximum residency (median of the runs)",
    "cpu": "CPU time (user + system), seconds, median of the runs",
    "build": "Build",
    "replay": "Record and replay (lzc -replay): rec/lzc = record overhead, rpl/rec = replay "
              "time over record time (medians); compressed log bytes per event, of the whole "
              "file and without its header frame (median of the runs)",
}


def render_text(tables: List[Table]) -> str:
    out = []
    for t in tables:
        body = [[c.text for c in r] for r in t.rows]
        grid = [t.headers] + body + ([t.summary] if t.summary else [])
        widths = [max(len(row[i]) for row in grid) for i in range(len(t.headers))]

        def line(row):
            cells = [row[0].ljust(widths[0])] + [row[i].rjust(widths[i])
                                                 for i in range(1, len(row))]
            return "  ".join(cells).rstrip()
        rule = "-" * len(line(["-" * w for w in widths]))
        out.append(GROUP_TITLES.get(t.title, t.title))
        out.append(rule)
        out.append(line(t.headers))
        out.append(rule)
        out.extend(line(r) for r in body)
        if t.summary:
            out.append(rule)
            out.append(line(t.summary))
        out.append(rule)
        out.append("")
    return "\n".join(out)


def render_markdown(tables: List[Table]) -> str:
    out = []
    for t in tables:
        out.append("### " + GROUP_TITLES.get(t.title, t.title))
        out.append("")
        out.append("| " + " | ".join(t.headers) + " |")
        out.append("|" + "|".join(["---"] + ["---:"] * (len(t.headers) - 1)) + "|")
        for r in t.rows:
            out.append("| " + " | ".join(c.text.replace("|", "\\|") for c in r) + " |")
        if t.summary:
            out.append("| " + " | ".join("**%s**" % s if s else "" for s in t.summary) + " |")
        out.append("")
    return "\n".join(out)


def table_csv(results: List[ProgramResult], columns: List[Column],
              ns: List[Optional[int]]) -> str:
    """The table with numbers rather than text (text where there is no number)."""
    cols = expand(columns, ns)
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["program"] + [h for (h, _c, _n) in cols])
    for r in results:
        row = [r.program.name]
        for (_h, c, n) in cols:
            cell = c.cell(r, n)
            row.append("%.6g" % cell.number if cell.number is not None else cell.text)
        w.writerow(row)
    return buf.getvalue()


RAW_FIELDS = ["program", "config", "N", "status", "reason", "runs", "median_s", "min_s",
              "max_s", "times_s", "cpu_s", "alloc_bytes", "maxres_bytes", "gcs", "build_s"]


def raw_csv(results: List[ProgramResult], labels: List[str], ns: List[Optional[int]],
            extra_stats: Tuple[str, ...] = ()) -> str:
    """One line per program, configuration and N with every measurement (and the
    medians of the run statistics extra_stats, e.g. a recorded log's size)."""
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(RAW_FIELDS + list(extra_stats))

    def num(x, f="%.6g"):
        return "" if x is None else f % x
    for r in results:
        for label in labels:
            b = r.builds.get(label)
            for n in ns:
                why = r.failure(label, n)
                s = r.series.get((label, n))
                runs = s.runs if s else []
                ok = s is not None and s.ok and not why
                w.writerow([
                    r.program.name, label, "" if n is None else n,
                    "ok" if ok else ("fail" if why else "not timed"), why or "", len(runs),
                    num(s.median() if runs else None, "%.4f"),
                    num(s.min() if runs else None, "%.4f"),
                    num(s.max() if runs else None, "%.4f"),
                    " ".join("%.4f" % t for t in (s.times if runs else [])),
                    num(s.stat("cpu") if runs else None, "%.4f"),
                    num(s.stat("alloc") if runs else None, "%d"),
                    num(s.stat("maxres") if runs else None, "%d"),
                    num(s.stat("gcs") if runs else None, "%d"),
                    num(b.seconds if b else None, "%.3f")]
                    + [num(s.stat(k) if runs else None) for k in extra_stats])
    return buf.getvalue()


def failures_text(results: List[ProgramResult]) -> List[str]:
    lines = []
    for r in results:
        for label, n, why in r.all_failures():
            lines.append("%s, %s%s: %s" % (r.program.name, label,
                                            "" if n is None else " -N%d" % n, why))
    return lines


def machine_info(tools: List[Tuple[str, str]]) -> List[str]:
    """Where and when the measurement was made (for RESULTS.md)."""
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            for l in f:
                if l.startswith("model name"):
                    cpu = l.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = "?"
    try:
        with open("/proc/meminfo") as f:
            kb = int(f.readline().split()[1])
            mem = "%.1f GB" % (kb / 1e6)
    except (OSError, ValueError, IndexError):
        pass
    try:
        load = "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        load = "?"
    lines = [
        "date: " + time.strftime("%Y-%m-%d %H:%M %Z"),
        "machine: %s, %d cores (%s), %s RAM, %s %s" % (
            platform.node(), os.cpu_count() or 0, cpu, mem, platform.system(),
            platform.release()),
        "load average at the end: " + load,
    ]
    lines += ["%s: %s" % (name, ver) for name, ver in tools]
    return lines


def git_describe(repo: str) -> str:
    """The source version being measured, when known (read only, never changes it)."""
    try:
        head = open(os.path.join(repo, ".git", "HEAD")).read().strip()
        if head.startswith("ref: "):
            ref = os.path.join(repo, ".git", head[5:])
            if os.path.exists(ref):
                return open(ref).read().strip()[:12]
            return head[5:]
        return head[:12]
    except OSError:
        return "?"


def write_outputs(out_dir: str, title: str, header_lines: List[str], tables: List[Table],
                  results: List[ProgramResult], columns: List[Column], labels: List[str],
                  ns: List[Optional[int]], notes: Optional[List[str]] = None,
                  extra_stats: Tuple[str, ...] = ()) -> List[str]:
    """results.md, table.txt, table.csv and results.csv in out_dir; returns their paths.
    notes: lines printed after the tables (a summary); extra_stats: see raw_csv."""
    os.makedirs(out_dir, exist_ok=True)
    fails = failures_text(results)
    md = ["# " + title, ""] + ["- " + l for l in header_lines] + [""] + [render_markdown(tables)]
    if notes:
        md += notes + [""]
    if fails:
        md += ["### Failures", ""] + ["- " + f for f in fails] + [""]
    paths = {
        "results.md": "\n".join(md),
        "table.txt": "\n".join(header_lines) + "\n\n" + render_text(tables)
                     + ("\n".join(notes) + "\n\n" if notes else "")
                     + ("\nFailures:\n" + "\n".join("  " + f for f in fails) + "\n" if fails else ""),
        "table.csv": table_csv(results, columns, ns),
        "results.csv": raw_csv(results, labels, ns, extra_stats),
    }
    written = []
    for name, text in paths.items():
        p = os.path.join(out_dir, name)
        with open(p, "w") as f:
            f.write(text)
        written.append(p)
    return written


def core_speed_lines(before: Dict[int, float], after: Dict[int, float]) -> List[str]:
    """Each core's speed relative to the fastest, measured before and after the timed
    runs, and a warning when they differ enough to cap the -N speedups."""
    if not before or not after:
        return []
    fastest = min(list(before.values()) + list(after.values()))

    def rel(s: Dict[int, float]) -> str:
        return ", ".join("cpu%d %.2f" % (c, fastest / t) for c, t in sorted(s.items()))

    lines = ["core speed (busy loop pinned to each core; 1.00 = fastest): before %s; "
             "after %s" % (rel(before), rel(after))]
    worst = max(list(before.values()) + list(after.values()))
    if worst > 1.15 * fastest:
        lines.append("warning: the cores ran at different speeds (a busy host?): a core "
                     "at %.2f of the fastest caps an -N2 speedup at %.2f"
                     % (fastest / worst, 1 + fastest / worst))
    return lines


def superlinear_lines(results: List[ProgramResult], labels: List[str],
                      ns: List[Optional[int]]) -> List[str]:
    """A warning for every speedup above its N (5 % slack): on an idle machine N
    capabilities cannot run a program more than N times faster, so such a speedup means
    the machine's speed changed between the runs at different N, which the core-speed
    check before and after the runs can miss."""
    base = ns[0] if ns else None
    lines = []
    for res in results:
        for lab in labels:
            a = res.get(lab, base)
            for n in ns[1:]:
                b = res.get(lab, n)
                if a is None or b is None or not base or not n:
                    continue
                sp = a.median() / b.median()
                if sp > 1.05 * n / base:
                    lines.append("warning: %s %s -N%d is %.2f times faster than -N%d: the "
                                 "machine's speed changed during the runs (not evidence)"
                                 % (res.program.name, lab, n, sp, base))
    return lines


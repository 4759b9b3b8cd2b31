"""profcheck.py — a reader and checker of GHC's cost-centre profile layout (.prof text and
the -pj JSON form), used by tests/prof/run.py on both GHC's own profiles
(tests/prof/ghc/) and ours, so "ours parses like GHC's" is tested, not assumed.

parse_prof(text) checks the layout line by line (header, flat table, tree) and returns
{'ticks', 'processors', 'alloc', 'flat': [rows], 'tree': root node}; each tree node is
{'label', 'module', 'src', 'no', 'entries', 'time', 'alloc', 'itime', 'ialloc',
'children'}. Any deviation raises LayoutError with the line number. parse_json(text)
checks GHC's JSON keys and returns the decoded object.
"""
import json
import re


class LayoutError(Exception):
    pass


HEAD1 = re.compile(r"^\t\w{3} \w{3} [ \d]\d \d\d:\d\d \d{4} Time and Allocation Profiling Report  \(Final\)$")
CMDLINE = re.compile(r"^\t   \S+ \+RTS.* -RTS.*$")
TIME = re.compile(r"^\ttotal time  = +(\d+\.\d\d) secs   \((\d+) ticks @ (\d+) us, (\d+) processors?\)$")
ALLOC = re.compile(r"^\ttotal alloc = +([\d,]+) bytes  \(excludes profiling overheads\)$")
FLAT_HEAD = re.compile(r"^COST CENTRE +MODULE +SRC +%time %alloc$")
FLAT_ROW = re.compile(r"^(\S+) +(\S+) +(\S.*?) +(\d+\.\d) +(\d+\.\d)$")
TREE_HEAD1 = re.compile(r"^ +individual +inherited$")
TREE_HEAD2 = re.compile(r"^COST CENTRE +MODULE +SRC +no\. +entries  %time %alloc   %time %alloc$")
TREE_ROW = re.compile(r"^( *)(\S+) +(\S+) +(\S.*?) +(\d+) +(\d+) +(\d+\.\d) +(\d+\.\d) +(\d+\.\d) +(\d+\.\d)$")


def _fail(n, msg, line):
    raise LayoutError("line %d: %s: %r" % (n + 1, msg, line))


def parse_prof(text):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    i = 0

    def expect(rx, what):
        nonlocal i
        if i >= len(lines):
            raise LayoutError("end of file where %s was expected" % what)
        m = rx.match(lines[i])
        if not m:
            _fail(i, "expected " + what, lines[i])
        i += 1
        return m

    def blank():
        nonlocal i
        if i >= len(lines) or lines[i] != "":
            _fail(i, "expected a blank line", lines[i] if i < len(lines) else "<eof>")
        i += 1

    expect(HEAD1, "the report title")
    blank()
    expect(CMDLINE, "the command line")
    blank()
    replay = None
    if i < len(lines) and lines[i].startswith("\t(profile of a replay of "):
        replay = lines[i]
        i += 1
        blank()
    t = expect(TIME, "total time")
    a = expect(ALLOC, "total alloc")
    blank()
    expect(FLAT_HEAD, "the flat table's header")
    blank()
    flat = []
    while i < len(lines) and lines[i] != "":
        m = FLAT_ROW.match(lines[i])
        if not m:
            _fail(i, "bad flat-table row", lines[i])
        flat.append({"label": m.group(1), "module": m.group(2), "src": m.group(3),
                     "time": float(m.group(4)), "alloc": float(m.group(5))})
        i += 1
    for x, y in zip(flat, flat[1:]):
        if x["time"] < y["time"]:
            raise LayoutError("flat table not sorted by %%time: %s before %s" % (x["label"], y["label"]))
    blank()
    blank()
    expect(TREE_HEAD1, "the individual/inherited header")
    expect(TREE_HEAD2, "the tree's column header")
    blank()
    root = None
    path = []
    while i < len(lines):
        m = TREE_ROW.match(lines[i])
        if not m:
            _fail(i, "bad tree row", lines[i])
        depth = len(m.group(1))
        node = {"label": m.group(2), "module": m.group(3), "src": m.group(4), "no": int(m.group(5)),
                "entries": int(m.group(6)), "time": float(m.group(7)), "alloc": float(m.group(8)),
                "itime": float(m.group(9)), "ialloc": float(m.group(10)), "children": []}
        if node["itime"] + 0.05 < node["time"] or node["ialloc"] + 0.05 < node["alloc"]:
            _fail(i, "inherited cost below individual cost", lines[i])
        if root is None:
            if depth != 0 or node["label"] != "MAIN":
                _fail(i, "the tree must start with MAIN at depth 0", lines[i])
            root = node
        else:
            if depth < 1 or depth > len(path):
                _fail(i, "indentation jumps", lines[i])
            path[depth - 1]["children"].append(node)
            del path[depth:]
        path.append(node)
        i += 1
    if root is None:
        raise LayoutError("no tree")
    return {"ticks": int(t.group(2)), "tick_us": int(t.group(3)), "processors": int(t.group(4)),
            "alloc": int(a.group(1).replace(",", "")), "flat": flat, "tree": root,
            "replay": replay, "seconds": float(t.group(1))}


def paths(node, prefix=()):
    """(labels from below MAIN, node) for every node of the tree."""
    p = prefix + (node["label"],) if prefix or node["label"] != "MAIN" else ()
    if p:
        yield p, node
    for c in node["children"]:
        yield from paths(c, p)


JSON_KEYS = ["program", "arguments", "rts_arguments", "end_time", "initial_capabilities", "total_time",
             "total_ticks", "tick_interval", "total_alloc", "cost_centres", "profile"]


def parse_json(text):
    d = json.loads(text)
    for k in JSON_KEYS:
        if k not in d:
            raise LayoutError("JSON profile without key %r" % k)
    for cc in d["cost_centres"]:
        for k in ("id", "label", "module", "src_loc", "is_caf"):
            if k not in cc:
                raise LayoutError("cost centre without key %r" % k)

    def walk(n):
        for k in ("id", "entries", "alloc", "ticks", "children"):
            if k not in n:
                raise LayoutError("profile node without key %r" % k)
        for c in n["children"]:
            walk(c)

    walk(d["profile"])
    return d

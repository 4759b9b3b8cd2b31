"""Suite files: which programs a benchmark suite has, and their arguments per size.

A suite file has one program per line, `#` comments and blank lines ignored:

    # name   where               arguments per size
    parfib   dir=parfib          fast="37 20"   norm="41 25"
    coins3   dir=coins           fast="3 450"   norm="3 700"
    nfib     src=nfib.lz         default="32"

`dir=D` means the program is D/Main.lz (other modules beside it), `src=F` a single
file. Each other `key="args"` gives the command-line arguments for size `key`. Lines
are split like a shell would (shlex), so arguments may be quoted. The expected output
of a program at a size is a file whose name the suite's runner chooses (a pattern
with {dir}, {name} and {size}).
"""

import os
import shlex
from dataclasses import dataclass, field
from typing import Dict, List


class SuiteError(Exception):
    pass


@dataclass
class Program:
    name: str
    main_src: str                  # absolute path of the main .lz file
    whole_dir: bool                # the program is every .lz file in its directory
    args: Dict[str, List[str]] = field(default_factory=dict)
    expected: Dict[str, str] = field(default_factory=dict)   # size -> file path

    @property
    def src_dir(self) -> str:
        return os.path.dirname(self.main_src)


def load_suite(path: str, expected_pattern: str) -> List[Program]:
    """Read a suite file; paths are relative to its directory."""
    base = os.path.dirname(os.path.abspath(path))
    progs: List[Program] = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
            if not line:
                continue
            try:
                words = shlex.split(line)
            except ValueError as e:
                raise SuiteError("%s:%d: %s" % (path, lineno, e))
            name, kv = words[0], {}
            for w in words[1:]:
                if "=" not in w:
                    raise SuiteError("%s:%d: expected key=value, got %r" % (path, lineno, w))
                k, v = w.split("=", 1)
                kv[k] = v
            if "dir" in kv:
                d = kv.pop("dir")
                main, whole = os.path.join(base, d, "Main.lz"), True
                rel_dir = d
            elif "src" in kv:
                s = kv.pop("src")
                main, whole = os.path.join(base, s), False
                rel_dir = os.path.dirname(s) or "."
            else:
                raise SuiteError("%s:%d: %s has neither dir= nor src=" % (path, lineno, name))
            if any(p.name == name for p in progs):
                raise SuiteError("%s:%d: program %s listed twice" % (path, lineno, name))
            prog = Program(name, main, whole)
            for size, args in kv.items():
                prog.args[size] = shlex.split(args)
                prog.expected[size] = os.path.join(
                    base, expected_pattern.format(dir=rel_dir, name=name, size=size))
            progs.append(prog)
    return progs


def select(progs: List[Program], only: str) -> List[Program]:
    """The programs named in a comma-separated list (all when empty)."""
    if not only:
        return progs
    wanted = [w.strip() for w in only.split(",") if w.strip()]
    names = {p.name for p in progs}
    unknown = [w for w in wanted if w not in names]
    if unknown:
        raise SuiteError("unknown program(s): %s (have: %s)"
                         % (", ".join(unknown), ", ".join(p.name for p in progs)))
    return [p for p in progs if p.name in wanted]

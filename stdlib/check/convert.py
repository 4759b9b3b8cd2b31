#!/usr/bin/env python3
"""convert.py - turn the Lz standard library (and Lz test programs) into Haskell
that GHC compiles against LzShim.hs, so that the library can be type-checked and
its behaviour compared with GHC's own base (check.sh drives this).

    convert.py lib STDLIB_DIR OUT_DIR      every stdlib module -> OUT_DIR/LzLib/...
    convert.py prog PROG.hs OUT.hs         a test program using the converted Prelude

What changes:
  - every stdlib module M is renamed LzLib.M (so it cannot clash with base);
  - RebindableSyntax, so literals, do and if use the Lz.Base classes;
  - `foreign import prim "NAME" v :: T` becomes `v :: T; v = LzShim.prim_NAME`;
  - in Lz.Base, the declarations of the types GHC already has (Int#, Integer,
    Bool, Char, Int, Double, Ordering, Ratio, ...) are replaced by LzShim's;
  - a test program's `main` becomes `lzMain`, run by LzRun.runLz.
"""
import os
import re
import sys

DROP_IN_BASE = [
    r"^data Int#\s*$", r"^data Double#\s*$", r"^data Char#\s*$", r"^data Addr#\s*$",
    r"^data World#\s*$", r"^data MutVar# a\s*$", r"^data Array# a\s*$", r"^data MutableArray# a\s*$", r"^data Integer\s*$",
    r"^data Bool = False \| True\s*$", r"^data Ordering = LT \| EQ \| GT\s*$",
    r"^data Char = C# Char#\s*$", r"^data Int = I# Int#\s*$", r"^data Double = D# Double#\s*$",
    r"^data Ratio a = !a :% !a\s*$", r"^infixl 7\s+:%\s*$",
]
FOREIGN = re.compile(r'^foreign import prim "([^"]+)" (\S+) :: (.*)$')


def stdlib_modules(root):
    mods = []
    for d, _, files in os.walk(root):
        if os.path.abspath(d).startswith(os.path.abspath(os.path.join(root, "check"))):
            continue
        for f in files:
            if f.endswith(".lz"):
                rel = os.path.relpath(os.path.join(d, f), root)[:-3]
                mods.append(rel.replace(os.sep, "."))
    return sorted(mods)


def rename_modules(text, mods):
    # module headers and imports: `module M`, `import M`, `import qualified M`
    names = sorted(mods, key=len, reverse=True)
    alt = "|".join(re.escape(m) for m in names)
    text = re.sub(r"^(module\s+)(" + alt + r")\b(?![.\w])", r"\1LzLib.\2", text, flags=re.M)
    text = re.sub(r"^(import\s+(?:qualified\s+)?)(" + alt + r")\b(?![.\w])", r"\1LzLib.\2", text,
                  flags=re.M)
    return text


def add_import(text, imp):
    lines = text.split("\n")
    for i, l in enumerate(lines):
        if l.startswith("import "):
            lines.insert(i, imp)
            return "\n".join(lines)
    # no imports: after the module header (which ends with `where`)
    for i, l in enumerate(lines):
        if l.startswith("module "):
            j = i
            while not re.search(r"\bwhere\s*$", lines[j]):
                j += 1
            lines.insert(j + 1, imp)
            return "\n".join(lines)
    lines.insert(0, imp)
    return "\n".join(lines)


def convert_lib_file(text, mod, mods):
    out = []
    for line in text.split("\n"):
        if mod == "Lz.Base" and any(re.match(p, line) for p in DROP_IN_BASE):
            out.append("-- (LzShim) " + line)
            continue
        m = FOREIGN.match(line)
        if m:
            name, var, ty = m.groups()
            if var == "realWorld#":
                out.append("-- (LzShim) " + line)
            else:
                out.append(f"{var} :: {ty}")
                out.append(f"{var} = LzShim.prim_{name}")
            continue
        out.append(line)
    text = "{-# LANGUAGE RebindableSyntax #-}\n" + "\n".join(out)
    text = rename_modules(text, mods)
    if mod == "Lz.Base":
        # the types LzShim provides must be exported as if Lz.Base defined them
        text = text.replace("module LzLib.Lz.Base where",
                            "module LzLib.Lz.Base (module LzLib.Lz.Base, module LzShim) where", 1)
        text = add_import(text, "import LzShim\nimport qualified LzShim")
    else:
        text = add_import(text, "import LzShim (ifThenElse)\nimport qualified LzShim")
    return text


def lib(root, outdir):
    mods = stdlib_modules(root)
    for mod in mods:
        src = os.path.join(root, *mod.split(".")) + ".lz"
        dst = os.path.join(outdir, "LzLib", *mod.split(".")) + ".hs"
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(src) as f:
            text = f.read()
        with open(dst, "w") as f:
            f.write(convert_lib_file(text, mod, mods))
    print(" ".join("LzLib." + m for m in mods))


def prog(root, src, dst):
    mods = stdlib_modules(root)
    with open(src) as f:
        text = f.read()
    text = rename_modules(text, mods)
    if not re.search(r"^import\s+LzLib\.Prelude\b", text, flags=re.M):
        text = add_import(text, "import LzLib.Prelude")
    text = add_import(text, "import LzShim (ifThenElse)\nimport qualified LzRun")
    text = re.sub(r"^main(\s*(::|=))", r"lzMain\1", text, flags=re.M)
    text = re.sub(r"^(module\s+Main\s*\(\s*)main(\s*\))", r"\1main\2", text, flags=re.M)
    text = "{-# LANGUAGE RebindableSyntax #-}\n" + text
    text += "\n\nmain :: LzRun.GhcIO ()\nmain = LzRun.runLz lzMain\n"
    with open(dst, "w") as f:
        f.write(text)


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.argv[1] == "lib":
        lib(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "prog":
        prog(os.path.dirname(here), sys.argv[2], sys.argv[3])

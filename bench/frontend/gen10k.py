#!/usr/bin/env python3
"""Generate a large (~10,000 line) valid Lz / Haskell 2010 program for
front-end benchmarks (lexer, layout, parser, renamer, type checker).

    python3 bench/frontend/gen10k.py [-n LINES] [-s SEED] [-o OUT.lz]

Default: about 10,000 lines to stdout, seed 1.  The output is deterministic
for a given seed and size.  It uses only Tier-1 constructs: many small
functions (with and without type signatures), data types with deriving,
enumerations with Enum/Bounded, records, type classes with default methods
and instances, where clauses, case, guards, let, lambdas, list
comprehensions, operator sections, and a `main` that calls a sample of the
generated functions (so the program also runs, printing ~100 lines).
"""
import argparse
import random
import sys


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.out = []
        self.calls = []  # expressions printed by main

    def emit(self, s=""):
        self.out.extend(s.split("\n"))

    def unit(self, i):
        r = self.r
        T = f"Shape{i}"
        E = f"Colour{i}"
        R = f"Rec{i}"
        C = f"Measure{i}"
        ncols = r.randint(3, 7)
        cols = [f"C{i}x{k}" for k in range(ncols)]
        k1, k2, k3 = r.randint(1, 9), r.randint(2, 11), r.randint(1, 50)

        # -- an enumeration
        self.emit(f"-- unit {i} " + "-" * 60)
        self.emit(f"data {E} = " + " | ".join(cols))
        self.emit("  deriving (Eq, Ord, Show, Enum, Bounded)")
        self.emit("")
        # -- an algebraic type
        self.emit(f"data {T}")
        self.emit(f"  = Circle{i} Double")
        self.emit(f"  | Rect{i} Double Double")
        self.emit(f"  | Poly{i} [(Double, Double)]")
        self.emit(f"  | Tagged{i} {E} {T}")
        self.emit("  deriving (Eq, Show)")
        self.emit("")
        # -- a record
        self.emit(f"data {R} = {R}")
        self.emit(f"  {{ name{i} :: String")
        self.emit(f"  , count{i} :: Int")
        self.emit(f"  , colour{i} :: {E}")
        self.emit(f"  , weights{i} :: [Int]")
        self.emit("  } deriving (Eq, Ord, Show)")
        self.emit("")
        # -- a class with a default method and instances
        self.emit(f"class {C} a where")
        self.emit(f"  measure{i} :: a -> Double")
        self.emit(f"  label{i} :: a -> String")
        self.emit(f"  label{i} x = \"m=\" ++ show (measure{i} x)")
        self.emit("")
        self.emit(f"instance {C} {T} where")
        self.emit(f"  measure{i} (Circle{i} r) = 3 * r * r")
        self.emit(f"  measure{i} (Rect{i} w h) = w * h")
        self.emit(f"  measure{i} (Poly{i} ps) = abs (sum [x1 * y2 - x2 * y1 | ((x1, y1), (x2, y2)) <- zip ps (drop 1 ps ++ take 1 ps)]) / 2")
        self.emit(f"  measure{i} (Tagged{i} _ s) = measure{i} s")
        self.emit("")
        self.emit(f"instance {C} {R} where")
        self.emit(f"  measure{i} rec = fromIntegral (count{i} rec * sum (weights{i} rec))")
        self.emit(f"  label{i} rec = name{i} rec ++ \"/\" ++ show (colour{i} rec)")
        self.emit("")
        # -- functions with signatures, guards, where
        self.emit(f"classify{i} :: Int -> String")
        self.emit(f"classify{i} n")
        self.emit(f"  | n < {k1} = \"low\"")
        self.emit(f"  | n < {k1 * k2} = \"mid\" ++ suffix")
        self.emit("  | otherwise = \"high\" ++ suffix")
        self.emit("  where")
        self.emit(f"    suffix = if even n then \"-even\" else \"-odd\"")
        self.emit("")
        self.emit(f"step{i} :: Int -> Int")
        self.emit(f"step{i} x = case x `mod` {k2} of")
        self.emit(f"  0 -> x `div` {k2}")
        self.emit(f"  1 -> x * {k1} + 1")
        self.emit(f"  r | r > {k2 // 2} -> x - r")
        self.emit(f"    | otherwise -> x + r")
        self.emit("")
        # -- without a signature (inferred)
        self.emit(f"chain{i} n = takeWhile (> 1) (take 40 (iterate step{i} n))")
        self.emit("")
        self.emit(f"scoreAll{i} xs = sum [w * c | (w, c) <- zip xs (cycle [1 .. {k3}]), odd (w + c)]")
        self.emit("")
        self.emit(f"paint{i} :: Int -> {E}")
        self.emit(f"paint{i} n = toEnum (n `mod` {ncols})")
        self.emit("")
        self.emit(f"mkRec{i} :: Int -> {R}")
        self.emit(f"mkRec{i} n = {R} {{ name{i} = \"r\" ++ show n, count{i} = n, colour{i} = paint{i} n, weights{i} = [n .. n + {k1}] }}")
        self.emit("")
        self.emit(f"bump{i} :: {R} -> {R}")
        self.emit(f"bump{i} rec = rec {{ count{i} = count{i} rec + 1, weights{i} = map (* 2) (weights{i} rec) }}")
        self.emit("")
        self.emit(f"shapes{i} :: [{T}]")
        self.emit(f"shapes{i} =")
        self.emit(f"  [ Circle{i} {r.randint(1, 9)}.5")
        self.emit(f"  , Rect{i} {r.randint(1, 9)} {r.randint(1, 9)}")
        self.emit(f"  , Poly{i} [(0, 0), ({r.randint(1, 9)}, 0), (0, {r.randint(1, 9)})]")
        self.emit(f"  , Tagged{i} (paint{i} {r.randint(0, 9)}) (Rect{i} 2 {r.randint(1, 5)})")
        self.emit("  ]")
        self.emit("")
        self.emit(f"summary{i} = (total, best, map label{i} shapes{i})")
        self.emit("  where")
        self.emit(f"    total = sum (map measure{i} shapes{i})")
        self.emit(f"    best = maximum [(measure{i} s, n) | (s, n) <- zip shapes{i} [0 :: Int ..]]")
        self.emit("")
        self.emit(f"histogram{i} :: [Int] -> [({E}, Int)]")
        self.emit(f"histogram{i} xs = [(c, length [x | x <- xs, paint{i} x == c]) | c <- [minBound .. maxBound]]")
        self.emit("")
        self.emit(f"fold{i} :: [Int] -> (Int, Int)")
        self.emit(f"fold{i} = foldr (\\x (a, b) -> let y = x * {k1} in if y > b then (a + 1, y) else (a, b)) (0, 0)")
        self.emit("")
        self.emit(f"pipeline{i} :: Int -> Maybe Int")
        self.emit(f"pipeline{i} n = do")
        self.emit(f"  a <- if n > 0 then Just (n * {k2}) else Nothing")
        self.emit(f"  let b = a + {k3}")
        self.emit(f"  c <- lookup (b `mod` 5) (zip [0 ..] [10, 20, 30, 40, 50])")
        self.emit("  return (b + c)")
        self.emit("")
        self.calls += [
            f"classify{i} {r.randint(0, 100)}",
            f"chain{i} {r.randint(2, 500)}",
            f"scoreAll{i} [1 .. {r.randint(5, 30)}]",
            f"bump{i} (mkRec{i} {r.randint(1, 20)})",
            f"summary{i}",
            f"histogram{i} [1 .. {r.randint(5, 40)}]",
            f"fold{i} [{r.randint(1, 9)}, {r.randint(1, 9)}, {r.randint(1, 9)}, {r.randint(1, 9)}]",
            f"pipeline{i} {r.randint(-3, 30)}",
            f"label{i} (mkRec{i} {r.randint(1, 9)})",
            f"map measure{i} shapes{i}",
            f"[minBound .. maxBound :: {E}]",
        ]

    def generate(self, target_lines):
        self.emit("-- Generated by bench/frontend/gen10k.py: a large valid Lz program.")
        self.emit("module Main (main) where")
        self.emit("")
        self.emit("import Control.Monad (forM_, when)")
        self.emit("")
        i = 0
        while len(self.out) < target_lines - 40:
            self.unit(i)
            i += 1
        sample = self.r.sample(self.calls, min(100, len(self.calls)))
        self.emit("main :: IO ()")
        self.emit("main = do")
        self.emit(f"  putStrLn \"units: {i}\"")
        for c in sample:
            self.emit(f"  print ({c})")
        self.emit("  forM_ [1 .. 3 :: Int] $ \\k -> when (odd k) (print (classify0 k))")
        return "\n".join(self.out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--lines", type=int, default=10000)
    ap.add_argument("-s", "--seed", type=int, default=1)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    text = Gen(a.seed).generate(a.lines)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()

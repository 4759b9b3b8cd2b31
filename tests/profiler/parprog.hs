-- parprog.hs — a small parallel program compiled by GHC (-O1 -threaded -eventlog, with
-- the `parallel` package) whose event logs are lzprof's test data (run-tests.sh; the
-- committed fixtures fixtures/*.eventlog were made by it, see fixtures/README).
-- Three phases with different spark shapes: a divide-and-conquer fib whose sparks get
-- converted or stolen (rpar/rseq in the Eval monad, so -O1 cannot evaluate them first),
-- a parMap of medium-sized fibs (converted), a parMap over many tiny work items (small sparks: a granularity verdict), and sparks
-- of thunks the main thread then demands itself (fizzled).
import Control.Parallel (par, pseq)
import Control.Parallel.Strategies (parMap, rdeepseq, rpar, rseq, runEval)
import System.Environment (getArgs)

fib :: Int -> Integer
fib n = if n < 2 then 1 else fib (n - 1) + fib (n - 2)

pfib :: Int -> Integer
pfib n
  | n < 18 = fib n
  | otherwise = runEval $ do
      a <- rpar (pfib (n - 1))
      b <- rseq (pfib (n - 2))
      return (a + b)

coarse :: Int -> Integer
coarse n = sum (parMap rdeepseq fib (replicate n 19 ++ [10 .. 20]))

fizzles :: Int -> Integer
fizzles k = go 0 [1 .. k]
  where
    go acc [] = acc
    go acc (i : is) = let x = fib (10 + i `mod` 5) in x `par` (x `pseq` go (acc + x) is)

main :: IO ()
main = do
  args <- getArgs
  let n = case args of [s] -> read s; _ -> 24
  print (pfib n)
  print (coarse n)
  print (sum (parMap rdeepseq (\i -> fib (i `mod` 7)) [1 .. 40 * n]))
  print (fizzles (10 * n))

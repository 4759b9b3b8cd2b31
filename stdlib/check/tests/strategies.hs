import Control.Parallel
import Control.Parallel.Strategies
import Control.DeepSeq hiding (rwhnf)
import qualified Control.DeepSeq as D

-- Control.Parallel, Control.Parallel.Strategies and Control.DeepSeq: results
-- and strictness (what is evaluated, and when) are those of the sequential
-- reading, which is what GHC's -threaded runtime shows to a program.
fib :: Int -> Integer
fib n = if n < 2 then toInteger n else fib (n - 1) + fib (n - 2)

data T = T Int [Int]

instance NFData T where
  rnf (T a b) = rnf a `seq` rnf b

main :: IO ()
main = do
  let xs = map fib (enumFromTo 10 20)
  print (xs `using` parList rseq)
  print (parMap rdeepseq (\n -> [n, n * 2]) (enumFromTo 1 (5 :: Int)))
  print (map fib (enumFromTo 1 15) `using` parListChunk 4 rdeepseq)
  print (withStrategy (parBuffer 3 rseq) (map (* 3) (enumFromTo 1 (20 :: Int))))
  print (take 5 (withStrategy (parBuffer 2 rdeepseq) (map (* 3) (iterate (+ 1) (1 :: Int)))))
  print (take 5 (withStrategy (evalBuffer 2 rseq) (map (* 3) (iterate (+ 1) (1 :: Int)))))
  print ((fib 15, fib 16) `using` parTuple2 rseq rseq)
  print ((fib 5, "x", 'c') `using` evalTuple3 rseq r0 rdeepseq)
  print (runEval (do a <- rpar (fib 12); b <- rseq (fib 13); return (a + b)))
  print (runEval (fmap (+ 1) (rseq (41 :: Int))), runEval (pure (*) <*> rpar (6 :: Int) <*> rseq 7))
  r <- (map (* 2) (enumFromTo 1 (4 :: Int))) `usingIO` parList rseq
  print r
  print (let a = fib 18; b = fib 19 in a `par` b `pseq` a + b)
  -- laziness: r0, rpar and rparWith r0 evaluate nothing
  print (length ([undefined, undefined] `using` parList r0 :: [Int]))
  print (length ([undefined, undefined] `using` evalList r0 :: [Int]))
  print (length ([undefined, 1] `using` parList rseq :: [Int]))
  print (fst ((1 :: Int, undefined :: Int) `using` parTuple2 rseq rpar))
  print (case rpar (undefined :: Int) of _ -> "rpar is lazy")
  print ((undefined :: Int) `par` "par is lazy in its first argument")
  print (take 3 (runEval (evalListN 3 rseq (enumFromTo 1 (10 :: Int) ++ undefined))))
  print (evalListNth 2 rseq [undefined, undefined, 3 :: Int] `seq` "nth", length (runEval (evalListNth 2 rseq [undefined, undefined, 3 :: Int])))
  print (((+ 1) $| rseq) (41 :: Int), ((* 2) $|| rdeepseq) (21 :: Int), ((+ 1) .| rseq) (* 2) (5 :: Int), ((* 2) -|| rseq) (+ 1) (5 :: Int))
  print (withStrategy (rseq `dot` rpar) 'z', rwhnf 'w' `seq` "rwhnf")
  -- DeepSeq
  print (force [Just (1 :: Int), Nothing], [1, 2, 3 :: Int] `deepseq` "deepseq", length $!! "abc")
  print (rnf (T 1 [2, 3]), rnf ('a', "b", 1.5 :: Double, True, (), LT, Right 3 :: Either Int Int))
  v <- (+ 1) <$!!> return (41 :: Int)
  print (v, D.rwhnf [undefined :: Int], rnf (Left 'x' :: Either Char Int))
  print (rnf (Just [1, 2 :: Integer]), rnf ((1, 2, 3, 4, 5, 6, 7) :: (Int, Int, Int, Int, Int, Int, Int)))

-- ghc-par.hs — a small parallel program compiled by GHC itself: its event log is the
-- reference the checker's invariants are tested on (check-synthetic.sh). Sparks that
-- get converted or fizzle; threads that block on an MVar and wake. Compiled -O0.
import Control.Concurrent (forkIO, newEmptyMVar, putMVar, takeMVar)
import Debug.Trace (traceEventIO, traceMarkerIO)
import GHC.Conc (labelThread, myThreadId, par, pseq)
import System.Environment (getArgs)

pfib :: Int -> Int
pfib n
  | n < 20 = sfib n
  | otherwise = a `par` (b `pseq` (a + b + 1))
  where
    a = pfib (n - 1)
    b = pfib (n - 2)

sfib :: Int -> Int
sfib n = if n < 2 then 1 else sfib (n - 1) + sfib (n - 2) + 1

main :: IO ()
main = do
  args <- getArgs
  let n = case args of [s] -> read s; _ -> 22
  me <- myThreadId
  labelThread me "main"
  traceMarkerIO "start"
  mv <- newEmptyMVar
  _ <- forkIO (putMVar mv $! pfib (n - 2))
  traceEventIO "forked"
  let x = pfib n
  y <- x `pseq` takeMVar mv
  print (x, y)

-- check-eventlog.hs — check event logs with GHC's own reader (the ghc-events library).
--
-- Usage: check-eventlog [-q] LOG...   exit status 0 when every log passes.
--
-- Each log is parsed with ghc-events (GHC.RTS.Events.Incremental.readEventLog, which
-- also reports an error in the middle of the events) and must satisfy what GHC's own
-- logs satisfy:
--   * it parses without error and ends with EVENT_DATA_END;
--   * per capability (and for the global blocks), timestamps never decrease in the
--     order the events appear in the file (GHC's own logs: except GC_END, see
--     checkTimes);
--   * every RUN_THREAD names a thread whose CREATE_THREAD came earlier in time;
--   * on each capability RUN_THREAD and STOP_THREAD alternate, and a STOP_THREAD
--     stops the thread that is running there;
--   * every capability that has events was created (CAP_CREATE);
--   * spark counters add up: over the last SPARK_COUNTERS of every capability,
--     created = converted + GC'd + fizzled + remaining (GHC's accounting: a spark
--     created on one capability may be converted, i.e. run or stolen, on another);
--     when the log has one event per spark (+RTS -lf), their numbers match the
--     counters: creates, duds, overflows and fizzles exactly, runs + steals =
--     converted, and SPARK_GC events at most the GC'd count (GHC counts sparks it
--     drops in bulk without an event).
-- It prints a summary: events per type, capabilities, time span.
module Main (main) where

import Control.Monad (forM_, unless, when)
import qualified Data.ByteString.Lazy as BL
import Data.List (foldl', sortOn)
import qualified Data.Map.Strict as M
import Data.Maybe (fromMaybe, mapMaybe)
import qualified Data.Text as T
import Data.Word (Word64)
import GHC.RTS.Events
import GHC.RTS.Events.Incremental (readEventLog)
import System.Environment (getArgs)
import System.Exit (exitFailure, exitSuccess)
import System.IO (hPutStrLn, stderr)

main :: IO ()
main = do
  argv <- getArgs
  let quiet = "-q" `elem` argv
      files = filter (/= "-q") argv
  when (null files) $ do
    hPutStrLn stderr "usage: check-eventlog [-q] LOG..."
    exitFailure
  oks <- mapM (checkFile quiet) files
  if and oks then exitSuccess else exitFailure

checkFile :: Bool -> FilePath -> IO Bool
checkFile quiet path = do
  bytes <- BL.readFile path
  case readEventLog bytes of
    Left err -> failed path ["cannot read the header: " ++ err]
    Right (EventLog (Header ets) (Data evs), mErr) -> do
      let ended = BL.length bytes >= 2 && BL.drop (BL.length bytes - 2) bytes == BL.pack [0xff, 0xff]
          errs = concat
            [ maybe [] (\e -> ["parse error: " ++ e]) mErr
            , ["the log does not end with EVENT_DATA_END (truncated?)" | not ended]
            , limit "timestamps" (checkTimes (fromGhc evs) evs)
            , limit "threads" (checkCreated evs)
            , limit "run/stop" (checkRunStop evs)
            , limit "capabilities" (checkCaps evs)
            , checkSparks evs
            ]
      unless quiet $ summary path ets evs
      if null errs
        then putStrLn (path ++ ": OK (" ++ show (length evs) ++ " events)") >> return True
        else failed path errs

-- Was the log written by GHC's runtime (RTS identifier "GHC-<version> <way>")?
fromGhc :: [Event] -> Bool
fromGhc evs = or [T.isPrefixOf (T.pack "GHC-") i | RtsIdentifier _ i <- map evSpec evs]

failed :: FilePath -> [String] -> IO Bool
failed path errs = do
  putStrLn (path ++ ": FAILED")
  forM_ errs $ \e -> putStrLn ("  " ++ e)
  return False

-- At most 10 messages of one check, and how many more there were.
limit :: String -> [String] -> [String]
limit what es = case splitAt 10 es of
  (shown, []) -> shown
  (shown, rest) -> shown ++ [what ++ ": " ++ show (length rest) ++ " more"]

capName :: Maybe Int -> String
capName = maybe "global blocks" (\c -> "cap " ++ show c)

-- Per capability, in file order, timestamps do not decrease. In GHC's own logs one
-- event is exempt: GHC posts GC_END after the GC statistics but stamped with the end
-- time it measured before them (traceEventGcEndAtT).
checkTimes :: Bool -> [Event] -> [String]
checkTimes ghc = go M.empty
  where
    go _ [] = []
    go seen (e : es)
      | ghc, EndGC <- evSpec e = go seen es
      | otherwise =
      let c = evCap e
          rest = go (M.insert c e seen) es
      in case M.lookup c seen of
           Just p | evTime e < evTime p ->
             (capName c ++ ": time goes back from " ++ show (evTime p) ++ " ns ("
              ++ evName p ++ ") to " ++ show (evTime e) ++ " ns (" ++ evName e ++ ")") : rest
           _ -> rest

evName :: Event -> String
evName e = case evSpec e of
  UnknownEvent r -> "type " ++ show r
  s -> takeWhile (/= ' ') (show s)

-- Every RUN_THREAD follows (in time) a CREATE_THREAD of that thread.
checkCreated :: [Event] -> [String]
checkCreated evs = mapMaybe check evs
  where
    created = foldl' note M.empty evs
    note m e = case evSpec e of
      CreateThread t -> M.insertWith min t (evTime e) m
      _ -> m
    check e = case evSpec e of
      RunThread t -> case M.lookup t created of
        Nothing -> Just ("thread " ++ show t ++ " runs (" ++ capName (evCap e) ++ ", "
                         ++ show (evTime e) ++ " ns) but is never created")
        Just tc | tc > evTime e ->
          Just ("thread " ++ show t ++ " runs at " ++ show (evTime e)
                ++ " ns, before its creation at " ++ show tc ++ " ns")
        _ -> Nothing
      _ -> Nothing

-- On each capability, runs and stops alternate and match.
checkRunStop :: [Event] -> [String]
checkRunStop = go M.empty
  where
    go _ [] = []
    go running (e : es) = case evSpec e of
      RunThread t -> case M.lookup c running of
        Just (Just u) -> report ("runs thread " ++ show t ++ " while thread " ++ show u
                              ++ " is running") : go (M.insert c (Just t) running) es
        _ -> go (M.insert c (Just t) running) es
      StopThread t _ -> case M.lookup c running of
        Just (Just u) | u == t -> go (M.insert c Nothing running) es
        other -> report ("stops thread " ++ show t ++ " but "
                      ++ maybe "no thread" (("thread " ++) . show) (fromMaybe Nothing other)
                      ++ " is running") : go (M.insert c Nothing running) es
      _ -> go running es
      where
        c = evCap e
        report s = capName c ++ " at " ++ show (evTime e) ++ " ns: " ++ s

-- Events come only from capabilities that were created.
checkCaps :: [Event] -> [String]
checkCaps evs =
  [ "events on cap " ++ show c ++ ", which is never created (CAP_CREATE)"
  | c <- M.keys used, not (M.member c created) ]
  where
    used = M.fromList [(c, ()) | Just c <- map evCap evs]
    created = M.fromList ([(cap s, ()) | e <- evs, let s = evSpec e, isCapCreate s]
                          ++ [(c, ()) | e <- evs, Startup n <- [evSpec e], c <- [0 .. n - 1]])
    isCapCreate CapCreate {} = True
    isCapCreate _ = False

-- Summed spark counters (fields in the order of the event's payload).
data Sparks = Sparks { crt, dud, ovf, cnv, gcd', fiz, remn :: !Word64 }

checkSparks :: [Event] -> [String]
checkSparks evs
  | M.null lastCounters = ["one event per spark but no SPARK_COUNTERS" | perSpark > 0]
  | otherwise =
      [ "spark counters do not add up: created " ++ show (crt s) ++ " /= converted "
        ++ show (cnv s) ++ " + GC'd " ++ show (gcd' s) ++ " + fizzled " ++ show (fiz s)
        ++ " + remaining " ++ show (remn s)
      | crt s /= cnv s + gcd' s + fiz s + remn s ]
      ++ (if perSpark == 0 then [] else
           concat [ same "SPARK_CREATE" nCreate (crt s), same "SPARK_DUD" nDud (dud s)
                  , same "SPARK_OVERFLOW" nOvf (ovf s)
                  , same "SPARK_RUN + SPARK_STEAL" (nRun + nSteal) (cnv s)
                  , same "SPARK_FIZZLE" nFiz (fiz s)
                  , [ "SPARK_GC events: " ++ show nGc ++ " > GC'd " ++ show (gcd' s)
                    | nGc > gcd' s ] ])
  where
    lastCounters = foldl' note M.empty evs
    note m e = case evSpec e of
      c@SparkCounters {} ->
        M.insert (evCap e) (Sparks (sparksCreated c) (sparksDud c) (sparksOverflowed c)
                                   (sparksConverted c) (sparksGCd c) (sparksFizzled c)
                                   (sparksRemaining c)) m
      _ -> m
    s = M.foldl' add (Sparks 0 0 0 0 0 0 0) lastCounters
    add (Sparks a b c d e f g) (Sparks a' b' c' d' e' f' g') =
      Sparks (a + a') (b + b') (c + c') (d + d') (e + e') (f + f') (g + g')
    kinds = M.fromListWith (+) [(k, 1 :: Word64) | e <- evs, Just k <- [sparkKind (evSpec e)]]
    n k = M.findWithDefault 0 k kinds
    [nCreate, nDud, nOvf, nRun, nSteal, nFiz, nGc] = map n [0 .. 6 :: Int]
    perSpark = sum (M.elems kinds)
    same what k expected =
      [ what ++ " events: " ++ show k ++ ", counters say " ++ show expected | k /= expected ]
    sparkKind x = case x of
      SparkCreate -> Just 0
      SparkDud -> Just 1
      SparkOverflow -> Just 2
      SparkRun -> Just 3
      SparkSteal {} -> Just 4
      SparkFizzle -> Just 5
      SparkGC -> Just 6
      _ -> Nothing

summary :: FilePath -> [EventType] -> [Event] -> IO ()
summary path ets evs = do
  let descs = M.fromList [(fromIntegral (num t), T.unpack (desc t)) | t <- ets] :: M.Map Int String
      label e = case evSpec e of
        UnknownEvent r -> "type " ++ show r ++ " (" ++ M.findWithDefault "?" (fromIntegral r) descs ++ ")"
        _ -> evName e
      counts = M.fromListWith (+) [(label e, 1 :: Int) | e <- evs]
      caps = M.keys (M.fromList [(c, ()) | Just c <- map evCap evs])
      times = map evTime evs
  putStrLn (path ++ ": " ++ show (length ets) ++ " event types declared, "
            ++ show (length evs) ++ " events, capabilities " ++ show caps
            ++ (if null times then "" else ", " ++ show (fromIntegral (maximum times - minimum times) / 1e9 :: Double) ++ " s"))
  forM_ (sortOn (negate . snd) (M.toList counts)) $ \(n, k) ->
    putStrLn ("  " ++ pad 10 (show k) ++ " " ++ n)
  where
    pad n s = replicate (n - length s) ' ' ++ s

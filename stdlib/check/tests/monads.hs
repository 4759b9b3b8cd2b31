import Control.Monad
import Control.Applicative
import Data.IORef
import Debug.Trace
main :: IO ()
main = do
  r <- newIORef (0 :: Int)
  forM_ [1 .. 10 :: Int] $ \i -> modifyIORef r (+ i)
  readIORef r >>= print
  modifyIORef' r (* 2)
  v <- atomicModifyIORef' r (\x -> (x + 1, x * 10))
  readIORef r >>= \x -> print (v, x)
  u <- newIORef (undefined :: Int)
  writeIORef u 5
  readIORef u >>= print
  print (r == r, r == u)
  xs <- mapM (\x -> return (x * 2)) [1, 2, 3 :: Int]
  print xs
  ys <- forM [1, 2, 3 :: Int] (return . negate)
  print ys
  zs <- replicateM 2 (return 'x')
  print zs
  replicateM_ 3 (putStr "r")
  putStrLn ""
  when True (putStrLn "when")
  unless True (putStrLn "unless")
  n <- foldM (\a b -> do { putStrLn (show a ++ "+" ++ show b); return (a + b) }) 0 [1, 2, 3 :: Int]
  print n
  zipWithM_ (\a b -> print (a, b)) [1, 2 :: Int] "ab"
  ws <- zipWithM (\a b -> return (a * b)) [1, 2, 3] [4, 5, 6 :: Int]
  print ws
  print (replicateM 2 "ab", sequence [Just 1, Just (2 :: Int)], sequence [Just 1, Nothing :: Maybe Int], join [[1, 2], [3 :: Int]])
  print (filterM (const [True, False]) [1, 2, 3 :: Int], mapM (\x -> if x > 0 then Just x else Nothing) [1, 2, -3 :: Int])
  print (liftM (+ 1) (Just (2 :: Int)), liftM2 (+) (Just 1) (Just (2 :: Int)), ap [(+ 1), (* 2)] [10, 20 :: Int], void (Just 'x'))
  print ((>=>) (\x -> Just (x + 1)) (\y -> Just (y * 2)) (3 :: Int), msum [Nothing, Just 1, Just (2 :: Int)], mfilter even (Just (4 :: Int)))
  print (guard True :: Maybe (), guard False :: [()], Just 1 <|> Just (2 :: Int), Nothing <|> Just (3 :: Int), [1, 2] <|> [3 :: Int], empty :: Maybe Int)
  print (pure 5 :: [Int], (+) <$> Just 3 <*> Just (4 :: Int), Just 'a' *> Just (2 :: Int), Just (1 :: Int) <* Just 'b', (3 :: Int) <$ Just 'x')
  print (liftA2 (,) [1, 2 :: Int] "ab", [(+ 1), (+ 2)] <*> [10, 20 :: Int], [1, 2 :: Int] >>= \x -> [x, x * 10], concat <$> mapM (\x -> [[x], [x + 1]]) [1, 2 :: Int])
  print ((Right 3 :: Either String Int) >>= (\x -> Left (show x) :: Either String Int), fmap (+ 1) (Left "e" :: Either String Int), either length negate (Right 4 :: Either String Int))
  print (optional (Just 'a'), optional (Nothing :: Maybe Char), liftA3 (,,) (Just 'a') (Just 'b') (Just 'c'), Just (4 :: Int) <**> Just (+ 3))
  print (mapAndUnzipM (\x -> Just (x, x * 2)) [1, 2 :: Int], sequence_ [Just 'a', Just 'b'], traverse (\x -> [x, x + 1]) [1, 10 :: Int])
  print (foldMap (\x -> [x, x]) [1, 2 :: Int], mconcat ["ab", "cd"], mempty :: String, Just [1 :: Int] <> Nothing <> Just [2], compare 1 (2 :: Int) <> GT)
  print (sequenceA [Just 'a', Just 'b'], (<$!>) (+ 1) (Just (1 :: Int)), (=<<) (\x -> [x, x]) "ab", ("a", [1 :: Int]) <> ("b", [2]))
  let t = trace "tracing!" (5 :: Int)
  print (t + t)
  traceM "traceM here"
  traceIO "traceIO here"
  print (traceShow (1 :: Int, 'x') 'y', traceShowId (7 :: Int))
  forever (do { x <- readIORef r; when (x > 300) (ioError (userError "stop")); writeIORef r (x * 2) })

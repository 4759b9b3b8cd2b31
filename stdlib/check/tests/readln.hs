main :: IO ()
main = do
  n <- readLn :: IO Int
  xs <- mapM (const (fmap read getLine)) [1 .. n] :: IO [Double]
  print (sum xs)
  ws <- fmap (map read . words) getLine :: IO [Integer]
  print (product ws)

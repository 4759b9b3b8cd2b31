-- The golden "hello" program (with the types that defaulting would pick:
-- the GHC-based check cannot default Lz's classes).
main :: IO ()
main = do
  putStrLn "Hello, Lz!"
  putStr "no newline here, "
  putStrLn "then a newline"
  print (42 :: Integer)
  print (-7 :: Integer)
  print 'x'
  print "a string"
  print True
  print ()
  print [1, 2, 3 :: Integer]
  print (Just "maybe")
  putStrLn (show (3.5 :: Double) ++ " and " ++ show (10 :: Int))

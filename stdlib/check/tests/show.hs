import Data.Ratio
main :: IO ()
main = do
  print (minBound :: Int, maxBound :: Int)
  print [minBound, -1, 0, 1, maxBound :: Int]
  print (showsPrec 11 (-5 :: Int) "", showsPrec 6 (-5 :: Int) "", showsPrec 7 (-5 :: Integer) "")
  print (2 ^ (64 :: Int) :: Integer, negate (2 ^ (100 :: Int)) :: Integer)
  print (Just (-3 :: Int), Left (-2.5) :: Either Double Int, [Just (Right 'x') :: Maybe (Either Int Char)])
  print (3 % 4 :: Rational, (-3) % 4 :: Rational, Just (5 % (-10) :: Rational))
  print (show "a\nb\"", show '\'', show '\DEL', show "\1234\&5", show "\SOH", show "\SO\&H", show '"')
  print (show "\200\&1", show "tab\there", show "\0", show '\0', show "\127\128\255\256")
  print "\1114111 unicode \233\955"
  putStrLn "unicode out: \233\955\8364\128512"
  print ((1 :: Int, 'a'), (1 :: Int, 2 :: Int, 3 :: Int), (1 :: Int, 2 :: Int, 3 :: Int, 'x'), (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 'y'))
  print ((-1 :: Int, -2 :: Integer, -3.5 :: Double, 'a', "b", True), (1 :: Int, 2 :: Int, 3 :: Int, 4 :: Int, 5 :: Int, 6 :: Int, 7 :: Int))
  print (LT, EQ, GT, [False, True])
  print ([] :: [Int], "", [[1, 2], [3 :: Int]], ["ab", "c"])
  print (Just Nothing :: Maybe (Maybe Int), Just (Just (-1 :: Int)))
  print (minBound :: (Bool, Ordering), maxBound :: ((), Char))
  print (showParen True (showString "x") "", shows (12 :: Int) "!", showString "abc" "def")

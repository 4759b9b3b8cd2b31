-- Numeric's formatRealFloat FFGeneric Nothing must be exactly GHC's show for
-- Double: it is the reference for the runtime's showDouble#.
import Numeric (showFloat)
main :: IO ()
main = do
  let gen :: Int -> Integer -> [Double]
      gen 0 _ = []
      gen n s = let s' = (s * 6364136223846793005 + 1442695040888963407) `mod` (2 ^ (64 :: Int))
                    m = s' `div` (2 ^ (11 :: Int))
                    e = fromInteger (s' `mod` 2100) - 1100 :: Int
                    x = encodeFloat m (e - 53) :: Double
                in x : gen (n - 1) s'
      xs = gen 3000 42 ++ [fromIntegral k / 10 | k <- [0 .. 200 :: Int]] ++ [10 ^^ k | k <- [-330 .. 310 :: Int]]
             ++ [2 ^^ k | k <- [-1080 .. 1030 :: Int]] ++ [5e-324, 1.7976931348623157e308, 9007199254740993, 0.1, 1e23, 9.999999999999999e22]
      bad = [x | x <- xs, showFloat x "" /= show x]
  print (length xs, length bad, take 5 bad)

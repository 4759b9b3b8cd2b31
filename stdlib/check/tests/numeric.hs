import Numeric
import Data.Ratio
main :: IO ()
main = do
  let ints = [7, -7, 0, 13, -13, 1, -1] :: [Int]
  print [((a, b), a `div` b, a `mod` b, a `quot` b, a `rem` b, divMod a b, quotRem a b) | a <- ints, b <- [3, -3, 1, -1, 5]]
  let igs = [7, -7, 0, 2 ^ (70 :: Int), -(2 ^ (70 :: Int)) + 5] :: [Integer]
  print [(a, b, a `div` b, a `mod` b, a `quot` b, a `rem` b) | a <- igs, b <- [3, -3, 2 ^ (65 :: Int)]]
  print ((minBound :: Int) `rem` (-1), (minBound :: Int) `mod` (-1), abs (minBound :: Int), negate (minBound :: Int), signum (minBound :: Int))
  print (gcd 12 18 :: Int, gcd 0 0 :: Int, lcm 4 6 :: Int, lcm 0 5 :: Int, gcd (-12) 18 :: Integer, lcm (-4) 6 :: Integer)
  print (2 ^ (10 :: Int) :: Int, 2 ^ (63 :: Int) :: Int, 3 ^ (40 :: Int) :: Integer, (-2) ^ (3 :: Integer) :: Int)
  print (even (4 :: Int), odd (4 :: Int), even (-3 :: Integer), subtract 3 (10 :: Int))
  print (fromIntegral (300 :: Int) :: Integer, fromIntegral (2 ^ (64 :: Int) + 5 :: Integer) :: Int, toInteger (maxBound :: Int) + 1)
  print (fromInteger (2 ^ (64 :: Int) + 5) :: Int, fromIntegral (-1 :: Int) :: Double)
  print (3 % 4 + 1 % 4 :: Rational, (3 % 4) * (2 % 3) :: Rational, recip (3 % 4 :: Rational), numerator (6 % 8 :: Rational), denominator (6 % (-8) :: Rational))
  print (properFraction (7 % 2 :: Rational) :: (Int, Rational), round (5 % 2 :: Rational) :: Int, round (7 % 2 :: Rational) :: Int, floor (-1 % 2 :: Rational) :: Int)
  print (truncate (-7 % 2 :: Rational) :: Int, ceiling (-7 % 2 :: Rational) :: Int, compare (1 % 3) (1 % 2 :: Rational), toRational (3 % 4 :: Rational))
  print (enumFromTo (1 % 2) (5 % 2) :: [Rational], fromRational (3 % 8) :: Rational, realToFrac (1.25 :: Double) :: Rational)
  print (showHex (255 :: Int) "", showOct (8 :: Int) "", showInt (1234 :: Integer) "", showIntAtBase 2 (\d -> toEnum (d + 48)) (10 :: Int) "")
  print (showSigned showInt 7 (-5 :: Int) "", showSigned showInt 0 (-5 :: Int) "")
  let xs = [0, 0.1, 0.25, 0.5, 1.5, 2.5, 123.456, 1e-4, 1e7, 1.0e21, 0.125, -3.75, 5e-324, 1 / 0, 0 / 0, -0.0] :: [Double]
  print [showFFloat (Just 2) x "" | x <- xs]
  print [showFFloat (Just 0) x "" | x <- xs]
  print [showFFloat Nothing x "" | x <- xs]
  print [showEFloat (Just 3) x "" | x <- xs]
  print [showEFloat (Just 0) x "" | x <- xs]
  print [showEFloat Nothing x "" | x <- xs]
  print [showGFloat (Just 2) x "" | x <- xs]
  print [showFloat x "" | x <- xs]
  print [showFFloatAlt (Just 0) x "" | x <- [1.0, 2.5 :: Double]]
  print [floatToDigits 10 x | x <- take 13 xs]
  print [floatToDigits 2 x | x <- [0.1, 8, 5e-324 :: Double]]
  print (readHex "ff rest" :: [(Int, String)], readOct "17" :: [(Integer, String)], readDec "12a" :: [(Int, String)])
  print (readSigned readDec "-12 x" :: [(Int, String)], readFloat "1.5e2x" :: [(Double, String)], lexDigits "123abc")
  print (approxRational (3.14159 :: Double) 0.001, approxRational (0.333 :: Double) 0.01)

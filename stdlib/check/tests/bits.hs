import Data.Bits
main :: IO ()
main = do
  let xs = [0, 1, -1, 5, -5, 12345, minBound, maxBound] :: [Int]
  print [(x .&. 12, x .|. 3, xor x 10, complement x, popCount x, testBit x 2) | x <- xs]
  print [(shiftL x 3, shiftR x 2, shift x (-1), shift x 70, shift x (-70), rotate x 5, rotateR x 1) | x <- xs]
  print [(countLeadingZeros x, countTrailingZeros x, finiteBitSize x) | x <- xs]
  print (bit 5 :: Int, setBit (0 :: Int) 63, clearBit (-1 :: Int) 0, complementBit (5 :: Int) 1, zeroBits :: Int)
  let is = [0, 1, -1, 2 ^ (70 :: Int), -(2 ^ (70 :: Int)) + 3, 12345] :: [Integer]
  print [(x .&. 12, x .|. 3, xor x 10, complement x, popCount x, testBit x 70) | x <- is]
  print [(shiftL x 3, shiftR x 2, shift x (-100), bit 70 .|. x) | x <- is]
  print (bitSizeMaybe (0 :: Integer), bitSizeMaybe (0 :: Int), isSigned (0 :: Int), True .&. False, popCount True)

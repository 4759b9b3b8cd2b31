-- Generates rts_integer_table.txt, GHC's results for the runtime's Integer primops
-- (checked by test_rts_integer.c). Each line: "op a b result" (decimal Integers; for
-- toDouble/encodeDouble the result is the Double's bits in hex, for toInt an Int).
-- Run:  runghc rts_integer_gen.hs > rts_integer_table.txt
import Data.Bits
import GHC.Float (castDoubleToWord64)
import Numeric (showHex)

vals :: [Integer]
vals = [ 0, 1, -1, 2, -2, 7, -7, 10, 255, -256, 2^31, 2^62, 2^63 - 1, -(2^63), 2^63
       , -(2^63) - 1, 2^64 - 1, 2^64, -(2^64), 3^40, -(3^40), 10^30, -(10^30) + 7
       , 2^200 + 1, -(5^90), 12345678901234567890123, 2^53 + 1, 2^1100 + 12345 ]

hex :: Double -> String
hex d = let s = showHex (castDoubleToWord64 d) "" in replicate (16 - length s) '0' ++ s

line :: String -> Integer -> Integer -> String -> String
line op a b r = op ++ " " ++ show a ++ " " ++ show b ++ " " ++ r

main :: IO ()
main = do
  let pairs = [ (a, b) | a <- vals, b <- vals ]
  mapM_ putStrLn $
    [ line "add" a b (show (a + b)) | (a, b) <- pairs ] ++
    [ line "sub" a b (show (a - b)) | (a, b) <- pairs ] ++
    [ line "mul" a b (show (a * b)) | (a, b) <- pairs ] ++
    concat [ [ line "quot" a b (show (a `quot` b)), line "rem" a b (show (a `rem` b))
             , line "div" a b (show (a `div` b)), line "mod" a b (show (a `mod` b)) ]
           | (a, b) <- pairs, b /= 0 ] ++
    [ line "gcd" a b (show (gcd a b)) | (a, b) <- pairs ] ++
    [ line "compare" a b (show (fromEnum (compare a b) - 1)) | (a, b) <- pairs ] ++
    [ line "and" a b (show (a .&. b)) | (a, b) <- pairs ] ++
    [ line "or" a b (show (a .|. b)) | (a, b) <- pairs ] ++
    [ line "xor" a b (show (a `xor` b)) | (a, b) <- pairs ] ++
    [ line "shl" a n (show (shiftL a (fromIntegral n))) | a <- vals, n <- [0, 1, 5, 62, 63, 64, 100] ] ++
    [ line "shr" a n (show (shiftR a (fromIntegral n))) | a <- vals, n <- [0, 1, 5, 62, 63, 64, 100] ] ++
    [ line "negate" a 0 (show (negate a)) | a <- vals ] ++
    [ line "abs" a 0 (show (abs a)) | a <- vals ] ++
    [ line "toInt" a 0 (show (fromInteger a :: Int)) | a <- vals ] ++
    [ line "log2" a 0 (show (integerLog2' a)) | a <- vals, a > 0 ] ++
    [ line "toDouble" a 0 (hex (fromInteger a)) | a <- vals ] ++
    [ line "encode" a e (hex (encodeFloat a (fromIntegral e))) | a <- vals, e <- [0, 1, -1, -60, 40, -1100, -1200, 970, -1074] ]
  where integerLog2' n = length (takeWhile (<= n) (iterate (*2) 1)) - 1

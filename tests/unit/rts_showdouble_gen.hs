-- Generates rts_showdouble_table.txt: one line per Double, "<16 hex digits of its bits>
-- <show x>", printed by GHC (the oracle for the runtime's showDouble#, checked by
-- test_rts_double.c). Run:  runghc rts_showdouble_gen.hs > rts_showdouble_table.txt
-- Inputs: special values, powers of two and ten, boundaries between the fixed and
-- exponent notations, subnormals, shortest-digit edge cases, small integers and
-- decimals, and pseudo-random bit patterns (a fixed LCG, so the table is reproducible).
import Data.Bits
import Data.Word
import GHC.Float (castDoubleToWord64, castWord64ToDouble)
import Numeric (showHex)

hex :: Word64 -> String
hex w = let s = showHex w "" in replicate (16 - length s) '0' ++ s

lcg :: Word64 -> Word64
lcg x = x * 6364136223846793005 + 1442695040888963407

randoms :: Int -> Word64 -> [Word64]
randoms n seed = take n (tail (iterate lcg seed))

specials :: [Double]
specials =
  [ 0, -0, 1, -1, 0.1, 0.2, 0.3, 1/3, 2/3, 1e7, 1e8, 9999999, 12345678, 1234567.0, 0.1e-1
  , 5.0e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308
  , 4.9406564584124654e-324, 1e23, 8.41e21, 5e-310, 9007199254740992, 9007199254740993
  , 123456789012345678, 0.5, 0.25, 0.125, 100, 1000, 1e21, 1e22, 3.14159, 2.718281828459045
  , 1/0, -1/0, 0/0, 299792458, 6.02214076e23, 1.602176634e-19, 0.000123, 1234.5678
  , 9.999999999999999e22, 7.0e-2, 0.07, 0.7, 7, 70, 7e6, 7e7, 7e8 ]

main :: IO ()
main = do
  let ds = specials
        ++ [ 2 ^^ e | e <- [-1074 .. 1023 :: Int] ]
        ++ [ 10 ^^ e | e <- [-323 .. 308 :: Int] ]
        ++ [ fromIntegral n | n <- [0 .. 300 :: Int] ]
        ++ [ fromIntegral n / 100 | n <- [0 .. 1000 :: Int] ]
        ++ [ fromIntegral n / 7 | n <- [1 .. 300 :: Int] ]
        ++ [ castWord64ToDouble w | w <- [1 .. 200] ]              -- smallest subnormals
        ++ [ castWord64ToDouble (fromIntegral (0x0010000000000000 + w)) | w <- [-100 .. 100 :: Int] ]
        ++ [ castWord64ToDouble (w .&. 0x800fffffffffffff)
           | w <- randoms 1000 7 ]                                  -- random subnormals
        ++ [ castWord64ToDouble w | w <- randoms 5000 42 ]        -- random bit patterns
        ++ [ castWord64ToDouble ((w .&. 0x800fffffffffffff) .|. (shiftL e 52))
           | (w, e) <- zip (randoms 2000 99) (cycle [1000 .. 1100]) ] -- near 1
        ++ [ castWord64ToDouble (shiftL e 52) | e <- [0 .. 2047] ]  -- mantissa = 2^52 cases
        ++ [ negate (castWord64ToDouble w) | w <- randoms 1000 5 ]
  mapM_ (\d -> putStrLn (hex (castDoubleToWord64 d) ++ " " ++ show d)) ds

{-# LANGUAGE MagicHash, UnboxedTuples #-}
-- LzShim: the primitives of core-ir/primops.def, implemented with GHC, so that
-- the Lz standard library can be compiled and tested by GHC (see check.sh).
--
-- convert.py turns each `foreign import prim "NAME" var :: T` of the stdlib
-- into `var = LzShim.prim_NAME`, and replaces the declarations of the types
-- that GHC already has (Int#, Integer, Bool, Char, Int, Double, Ordering,
-- Ratio, ...) with these. Every prim_ function does what the runtime must do,
-- so this file is also an executable statement of the primops' semantics.
module LzShim
  ( Int#, Double#, Char#, Addr#, World#, MutVar#, Integer
  , Bool(..), Char(..), Int(..), Double(..), Ordering(..), Ratio(..)
  , ifThenElse, realWorld#
  , module LzShim
  ) where

import GHC.Exts (Int#, Double#, Char#, Addr#, State#, RealWorld, Int(..), Double(..), Char(..),
                 realWorld#, isTrue#, Ptr(..))
import qualified GHC.Exts as E
import GHC.Real (Ratio(..))
import GHC.IO (IO(..), unIO, unsafePerformIO)
import qualified GHC.Num.Integer as NI
import Foreign.C.String (peekCString)
import Foreign.Marshal.Array (newArray0)
import Data.IORef
import Data.Bits ((.&.), (.|.), xor, shiftL, shiftR, popCount, countLeadingZeros, countTrailingZeros, complement)
import qualified Data.Map as M
import System.IO
import System.Exit
import System.Environment
import Data.Char (ord, chr)
import Data.Word (Word8)
import Unsafe.Coerce (unsafeCoerce)

type World# = State# RealWorld
type MutVar# a = E.MutVar# RealWorld a
type Array# a = E.Array# a
type MutableArray# a = E.MutableArray# RealWorld a

ifThenElse :: Bool -> a -> a -> a
ifThenElse True t _ = t
ifThenElse False _ e = e

b2i :: Bool -> Int#
b2i True = 1#
b2i False = 0#

-- Int#
prim_intAdd#, prim_intSub#, prim_intMul#, prim_intQuot#, prim_intRem# :: Int# -> Int# -> Int#
prim_intAdd# a b = a E.+# b
prim_intSub# a b = a E.-# b
prim_intMul# a b = a E.*# b
prim_intQuot# a b = E.quotInt# a b
prim_intRem# a b = E.remInt# a b
prim_intNegate# :: Int# -> Int#
prim_intNegate# a = E.negateInt# a
prim_intEq#, prim_intNe#, prim_intLt#, prim_intLe#, prim_intGt#, prim_intGe# :: Int# -> Int# -> Int#
prim_intEq# a b = a E.==# b
prim_intNe# a b = a E./=# b
prim_intLt# a b = a E.<# b
prim_intLe# a b = a E.<=# b
prim_intGt# a b = a E.># b
prim_intGe# a b = a E.>=# b
prim_intAnd#, prim_intOr#, prim_intXor#, prim_intShl#, prim_intShra#, prim_intShrl# :: Int# -> Int# -> Int#
prim_intAnd# a b = E.andI# a b
prim_intOr# a b = E.orI# a b
prim_intXor# a b = E.xorI# a b
prim_intShl# a b = E.uncheckedIShiftL# a b
prim_intShra# a b = E.uncheckedIShiftRA# a b
prim_intShrl# a b = E.uncheckedIShiftRL# a b
prim_intNot#, prim_intPopCount#, prim_intClz#, prim_intCtz# :: Int# -> Int#
prim_intNot# a = E.notI# a
prim_intPopCount# a = case popCount (I# a) of I# r -> r
prim_intClz# a = case countLeadingZeros (I# a) of I# r -> r
prim_intCtz# a = case countTrailingZeros (I# a) of I# r -> r
prim_int2Double# :: Int# -> Double#
prim_int2Double# a = E.int2Double# a
prim_chr# :: Int# -> Char#
prim_chr# a = E.chr# a
prim_ord# :: Char# -> Int#
prim_ord# a = E.ord# a

-- Double#
prim_doubleAdd#, prim_doubleSub#, prim_doubleMul#, prim_doubleDiv#, prim_doublePow# :: Double# -> Double# -> Double#
prim_doubleAdd# a b = a E.+## b
prim_doubleSub# a b = a E.-## b
prim_doubleMul# a b = a E.*## b
prim_doubleDiv# a b = a E./## b
prim_doublePow# a b = a E.**## b
prim_doubleNegate#, prim_doubleFabs# :: Double# -> Double#
prim_doubleNegate# a = E.negateDouble# a
prim_doubleFabs# a = E.fabsDouble# a
prim_doubleEq#, prim_doubleNe#, prim_doubleLt#, prim_doubleLe#, prim_doubleGt#, prim_doubleGe# :: Double# -> Double# -> Int#
prim_doubleEq# a b = a E.==## b
prim_doubleNe# a b = a E./=## b
prim_doubleLt# a b = a E.<## b
prim_doubleLe# a b = a E.<=## b
prim_doubleGt# a b = a E.>## b
prim_doubleGe# a b = a E.>=## b
prim_double2Int# :: Double# -> Int#
prim_double2Int# a = E.double2Int# a
prim_doubleExp#, prim_doubleLog#, prim_doubleSqrt#, prim_doubleSin#, prim_doubleCos#, prim_doubleTan#,
  prim_doubleAsin#, prim_doubleAcos#, prim_doubleAtan#, prim_doubleSinh#, prim_doubleCosh#,
  prim_doubleTanh#, prim_doubleAsinh#, prim_doubleAcosh#, prim_doubleAtanh# :: Double# -> Double#
prim_doubleExp# a = E.expDouble# a
prim_doubleLog# a = E.logDouble# a
prim_doubleSqrt# a = E.sqrtDouble# a
prim_doubleSin# a = E.sinDouble# a
prim_doubleCos# a = E.cosDouble# a
prim_doubleTan# a = E.tanDouble# a
prim_doubleAsin# a = E.asinDouble# a
prim_doubleAcos# a = E.acosDouble# a
prim_doubleAtan# a = E.atanDouble# a
prim_doubleSinh# a = E.sinhDouble# a
prim_doubleCosh# a = E.coshDouble# a
prim_doubleTanh# a = E.tanhDouble# a
prim_doubleAsinh# a = case asinh (D# a) of D# r -> r
prim_doubleAcosh# a = case acosh (D# a) of D# r -> r
prim_doubleAtanh# a = case atanh (D# a) of D# r -> r
prim_doubleIsNaN#, prim_doubleIsInfinite#, prim_doubleIsNegativeZero# :: Double# -> Int#
prim_doubleIsNaN# a = b2i (isNaN (D# a))
prim_doubleIsInfinite# a = b2i (isInfinite (D# a))
prim_doubleIsNegativeZero# a = b2i (isNegativeZero (D# a))
prim_doubleDecodeMantissa#, prim_doubleDecodeExponent# :: Double# -> Int#
prim_doubleDecodeMantissa# a = case decodeFloat (D# a) of (m, _) -> case fromInteger m of I# r -> r
prim_doubleDecodeExponent# a = case decodeFloat (D# a) of (_, I# e) -> e
prim_doubleEncodeInt# :: Int# -> Int# -> Double#
prim_doubleEncodeInt# m e = case encodeFloat (toInteger (I# m)) (I# e) of D# r -> r
prim_showDouble# :: Double# -> Addr#
prim_showDouble# d = cstring (show (D# d))

-- Text to C strings (UTF-8, NUL as C0 80), leaked: fine for tests.
cstring :: String -> Addr#
cstring s = case unsafePerformIO (newArray0 0 (concatMap utf8Bytes s)) of Ptr a -> a

utf8Bytes :: Char -> [Word8]
utf8Bytes c
  | n == 0 = [0xC0, 0x80]
  | n < 0x80 = [fromIntegral n]
  | n < 0x800 = map fromIntegral [0xC0 .|. (n `shiftR` 6), 0x80 .|. (n .&. 63)]
  | n < 0x10000 = map fromIntegral [0xE0 .|. (n `shiftR` 12), 0x80 .|. ((n `shiftR` 6) .&. 63), 0x80 .|. (n .&. 63)]
  | otherwise = map fromIntegral [0xF0 .|. (n `shiftR` 18), 0x80 .|. ((n `shiftR` 12) .&. 63),
                                  0x80 .|. ((n `shiftR` 6) .&. 63), 0x80 .|. (n .&. 63)]
  where n = ord c

-- Integer
prim_integerFromInt# :: Int# -> Integer
prim_integerFromInt# i = toInteger (I# i)
prim_integerToInt# :: Integer -> Int#
prim_integerToInt# n = case fromInteger n of I# r -> r
prim_integerFromDecAddr# :: Addr# -> Integer
prim_integerFromDecAddr# a = read (unsafePerformIO (peekCString (Ptr a)))
prim_integerAdd, prim_integerSub, prim_integerMul, prim_integerQuot, prim_integerRem, prim_integerDiv,
  prim_integerMod, prim_integerGcd, prim_integerAnd, prim_integerOr, prim_integerXor :: Integer -> Integer -> Integer
prim_integerAdd = (+)
prim_integerSub = (-)
prim_integerMul = (*)
prim_integerQuot = quot
prim_integerRem = rem
prim_integerDiv = div
prim_integerMod = mod
prim_integerGcd = gcd
prim_integerAnd = (.&.)
prim_integerOr = (.|.)
prim_integerXor = xor
prim_integerNegate, prim_integerAbs :: Integer -> Integer
prim_integerNegate = negate
prim_integerAbs = abs
prim_integerCompare#, prim_integerEq# :: Integer -> Integer -> Int#
prim_integerCompare# a b = case compare a b of LT -> E.negateInt# 1#; EQ -> 0#; GT -> 1#
prim_integerEq# a b = b2i (a == b)
prim_integerShiftL#, prim_integerShiftR# :: Integer -> Int# -> Integer
prim_integerShiftL# n k = n `shiftL` I# k
prim_integerShiftR# n k = n `shiftR` I# k
prim_integerLog2# :: Integer -> Int#
prim_integerLog2# n = case fromIntegral (NI.integerLog2 n) of I# r -> r
prim_integerToDouble# :: Integer -> Double#
prim_integerToDouble# n = case fromInteger n of D# r -> r
prim_integerEncodeDouble# :: Integer -> Int# -> Double#
prim_integerEncodeDouble# m e = case encodeFloat m (I# e) of D# r -> r
prim_integerShow# :: Integer -> Addr#
prim_integerShow# n = cstring (show n)

-- Addr#
prim_indexCharOffAddr# :: Addr# -> Int# -> Char#
prim_indexCharOffAddr# a i = E.indexCharOffAddr# a i

-- MutVar#
prim_newMutVar# :: a -> World# -> MutVar# a
prim_newMutVar# x s = case E.newMutVar# x s of (# _, v #) -> v
prim_readMutVar# :: MutVar# a -> World# -> a
prim_readMutVar# v s = case E.readMutVar# v s of (# _, x #) -> x
prim_writeMutVar# :: MutVar# a -> a -> World# -> Int#
prim_writeMutVar# v x s = case E.writeMutVar# v x s of _ -> 0#
prim_sameMutVar# :: MutVar# a -> MutVar# a -> Int#
prim_sameMutVar# a b = b2i (isTrue# (E.sameMutVar# a b))

-- Arrays (elements are Lz Boxes; these never look at them)
prim_newArray# :: Int# -> a -> World# -> MutableArray# a
prim_newArray# n x s = case E.newArray# n x s of (# _, m #) -> m
prim_readArray# :: MutableArray# a -> Int# -> World# -> a
prim_readArray# m i s = case E.readArray# m i s of (# _, x #) -> x
prim_writeArray# :: MutableArray# a -> Int# -> a -> World# -> Int#
prim_writeArray# m i x s = case E.writeArray# m i x s of _ -> 0#
prim_unsafeFreezeArray# :: MutableArray# a -> World# -> Array# a
prim_unsafeFreezeArray# m s = case E.unsafeFreezeArray# m s of (# _, a #) -> a
prim_thawArray# :: Array# a -> Int# -> Int# -> World# -> MutableArray# a
prim_thawArray# a off n s = case E.thawArray# a off n s of (# _, m #) -> m
prim_indexArray# :: Array# a -> Int# -> a
prim_indexArray# a i = case E.indexArray# a i of (# x #) -> x
prim_sizeofArray# :: Array# a -> Int#
prim_sizeofArray# a = E.sizeofArray# a
prim_sizeofMutableArray# :: MutableArray# a -> Int#
prim_sizeofMutableArray# m = E.sizeofMutableArray# m

-- Sparks: the sequential meaning (no spark is ever run). The argument is an Lz
-- Box, left alone.
prim_spark# :: b -> World# -> Int#
prim_spark# _ _ = 0#

prim_unsafeCoerce# :: a -> b
prim_unsafeCoerce# x = unsafeCoerce x

-- IO: descriptors are keys of a table of GHC handles.
{-# NOINLINE handles #-}
handles :: IORef (M.Map Int Handle, Int)
handles = unsafePerformIO (newIORef (M.fromList [(0, stdin), (1, stdout), (2, stderr)], 3))

getH :: Int# -> IO Handle
getH fd = do
  (m, _) <- readIORef handles
  case M.lookup (I# fd) m of
    Just h -> return h
    Nothing -> ioError (userError ("bad descriptor " ++ show (I# fd)))

runIO :: IO Int -> World# -> Int#
runIO act s = case unIO act s of (# _, I# r #) -> r

prim_hPutStr# :: Int# -> [Char] -> Int# -> World# -> Int#
prim_hPutStr# fd str n = runIO (do h <- getH fd; hPutStr h (take (I# n) str); return 0)
prim_hGetChar# :: Int# -> World# -> Int#
prim_hGetChar# fd = runIO (do
  h <- getH fd
  closed <- hIsClosed h
  if closed then return (-3) else do
    eof <- hIsEOF h
    if eof then return (-1) else fmap ord (hGetChar h))
prim_hIsEOF# :: Int# -> World# -> Int#
prim_hIsEOF# fd = runIO (do h <- getH fd; e <- hIsEOF h; return (if e then 1 else 0))
prim_hFlush# :: Int# -> World# -> Int#
prim_hFlush# fd = runIO (do h <- getH fd; hFlush h; return 0)
prim_hClose# :: Int# -> World# -> Int#
prim_hClose# fd = runIO (do h <- getH fd; hClose h; return 0)
prim_hSetBufferMode# :: Int# -> Int# -> World# -> Int#
prim_hSetBufferMode# fd m = runIO (do
  h <- getH fd
  hSetBuffering h (case I# m of 0 -> NoBuffering; 1 -> LineBuffering; _ -> BlockBuffering Nothing)
  return 0)
prim_hGetBufferMode# :: Int# -> World# -> Int#
prim_hGetBufferMode# fd = runIO (do
  h <- getH fd
  b <- hGetBuffering h
  return (case b of NoBuffering -> 0; LineBuffering -> 1; BlockBuffering _ -> 2))
prim_openFile# :: [Char] -> Int# -> World# -> Int#
prim_openFile# path mode = runIO (do
  h <- openFile path (case I# mode of 0 -> ReadMode; 1 -> WriteMode; 2 -> AppendMode; _ -> ReadWriteMode)
  (m, next) <- readIORef handles
  writeIORef handles (M.insert next h m, next + 1)
  return next)
prim_argCount# :: World# -> Int#
prim_argCount# = runIO (fmap length getArgs)
prim_argAt# :: Int# -> World# -> Addr#
prim_argAt# i s = case unIO getArgs s of (# _, as #) -> cstring (as !! I# i)
prim_progName# :: World# -> Addr#
prim_progName# s = case unIO getProgName s of (# _, p #) -> cstring p
prim_exit# :: Int# -> World# -> Int#
prim_exit# code = runIO (do
  hFlush stdout
  exitWith (if I# code == 0 then ExitSuccess else ExitFailure (I# code)))
prim_traceString# :: [Char] -> World# -> Int#
prim_traceString# str = runIO (do hPutStr stderr str; return 0)

prim_raiseError# :: [Char] -> a
prim_raiseError# msg = errorWithoutStackTrace msg

prim_dataToTag# :: a -> Int#
prim_dataToTag# x = E.dataToTag# x

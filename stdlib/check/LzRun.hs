{-# LANGUAGE MagicHash, UnboxedTuples #-}
-- LzRun: runs an Lz IO action (Lz.Base.IO, converted by convert.py) as GHC's main.
module LzRun (GhcIO, runLz) where

import qualified GHC.Types as G
import LzLib.Lz.Base (IO(..), IORes(..))
import Prelude hiding (IO)

type GhcIO = G.IO

runLz :: IO a -> G.IO ()
runLz (IO m) = G.IO (\s -> case m s of IORes s' _ -> (# s', () #))

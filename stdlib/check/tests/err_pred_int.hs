import System.IO
import System.Exit
import Data.Char
import Data.Maybe
import Data.List
import Data.Ratio
main :: IO ()
main = print (pred (minBound :: Int))

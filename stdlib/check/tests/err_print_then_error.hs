import System.IO
import System.Exit
import Data.Char
import Data.Maybe
import Data.List
import Data.Ratio
main :: IO ()
main = putStrLn "first" >> print (length [1 .. (10 :: Int)]) >> print (1 `div` (0 :: Int))

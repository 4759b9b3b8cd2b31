import System.IO
import System.Exit
import Data.Char
import Data.Maybe
import Data.List
import Data.Ratio
main :: IO ()
main = putStrLn "bye" >> exitSuccess >> putStrLn "not here"

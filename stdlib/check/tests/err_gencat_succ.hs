import Data.Char

main :: IO ()
main = print (succ NotAssigned)

import Data.Char

main :: IO ()
main = print (pred UppercaseLetter)

import Data.Char

main :: IO ()
main = print (toEnum 30 :: GeneralCategory)

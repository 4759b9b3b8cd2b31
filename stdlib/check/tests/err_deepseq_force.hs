import Control.DeepSeq

main :: IO ()
main = do
  putStrLn "a"
  print (length ([1, undefined] :: [Int]))
  print (force [1, undefined :: Int] `seq` "no")

import Control.Parallel.Strategies

main :: IO ()
main = do
  print (length ([1, 2] `using` parList r0 :: [Int]))
  print (length ([1, error "boom"] `using` parList rdeepseq :: [Int]))

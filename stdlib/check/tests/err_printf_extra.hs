import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "%d\n" (1 :: Int) (2 :: Int)

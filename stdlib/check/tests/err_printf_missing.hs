import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "%d %d\n" (1 :: Int)

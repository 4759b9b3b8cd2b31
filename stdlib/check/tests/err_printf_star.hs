import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "%*d\n" "x" (1 :: Int)

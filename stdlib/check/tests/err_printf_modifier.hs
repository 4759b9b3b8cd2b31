import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "%hs\n" "x"

import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "%c\n" (1114112 :: Int)

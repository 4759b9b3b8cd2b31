import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "%x\n" (-5 :: Integer)

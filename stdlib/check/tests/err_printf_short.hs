import Text.Printf

main :: IO ()
main = do
  printf "before\n"
  printf "abc %" (1 :: Int)

import Data.Array

main :: IO ()
main = do
  let a = listArray (1, 5) [1, 2, 3, 4, 5] :: Array Int Int
      b = listArray ((0, 0), (2, 2)) (replicate 9 1) :: Array (Int, Int) Int
      c = listArray ('a', 'e') (replicate 5 0) :: Array Char Int
      d = listArray (1, 3) [1, 2, 3] :: Array Integer Int
      e = listArray ((0, 0, 0), (1, 1, 1)) (replicate 8 0) :: Array (Int, Int, Int) Int
      g = array (1, 3) [(1, 'x')] :: Array Int Char
      h = listArray (1, 3) [1] :: Array Int Int
  putStrLn "start"
  print (a, b, c, d, e, g ! 1, h ! 1)
  print (g ! 2)

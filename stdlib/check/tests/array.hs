import Data.Array

-- Data.Array: construction, indexing, updates, instances (as t3_array.lz).
fibArr :: Int -> Array Int Integer
fibArr n = a
  where a = listArray (0, n) [f i | i <- enumFromTo 0 n]
        f 0 = 0
        f 1 = 1
        f i = a ! (i - 1) + a ! (i - 2)

lcsLen :: String -> String -> Int
lcsLen xs ys = table ! (0, 0)
  where
    n = length xs
    m = length ys
    xa = listArray (0, n - 1) xs
    ya = listArray (0, m - 1) ys
    table = array ((0, 0), (n, m)) [((i, j), cell i j) | i <- enumFromTo 0 n, j <- enumFromTo 0 m]
    cell i j
      | i == n || j == m = 0
      | xa ! i == ya ! j = 1 + table ! (i + 1, j + 1)
      | otherwise = max (table ! (i + 1, j)) (table ! (i, j + 1))

main :: IO ()
main = do
  let a = listArray (1, 5) [10, 20, 30, 40, 50] :: Array Int Int
  print a
  print (a ! 3, bounds a, elems a)
  print (a // [(2, 99), (4, 0)])
  print (fmap (* 2) a)
  print (fibArr 100 ! 100)
  print (lcsLen "nematode knowledge" "empty bottle")
  let hist = accumArray (+) 0 ('a', 'e') [(c, 1 :: Int) | c <- "abracadabra", c <= 'e']
  print (assocs hist)
  print hist
  let grid = listArray ((0, 0), (2, 2)) (enumFromTo 1 9) :: Array (Int, Int) Int
  print [grid ! (i, i) | i <- enumFromTo 0 2]
  print (sum [grid ! (i, j) | (i, j) <- range ((0, 1), (1, 2))])
  print (indices grid == range (bounds grid))
  print grid
  let cube = listArray ((0, 0, 0), (1, 1, 1)) "abcdefgh" :: Array (Int, Int, Int) Char
  print cube
  print (cube ! (1, 0, 1), rangeSize (bounds cube), index ((0, 0, 0), (1, 1, 1 :: Int)) (1 :: Int, 1 :: Int, 0 :: Int))
  print (Just (listArray (-1, 1) [-1.5, 2, 3] :: Array Int Double))
  print (showsPrec 11 a "", showsPrec 10 a "")
  print (listArray (1, 0) [] :: Array Int Int)
  print (listArray (5, 1) [] :: Array Int Int, bounds (listArray (5, 1) "" :: Array Int Char))
  print (listArray (0, -1) [] == (listArray (5, 1) [] :: Array Int Int))
  print (compare a a, a == a, a < (a // [(5, 51)]), compare (a // [(1, 11)]) a)
  print (compare (listArray (1, 3) [1, 2, 3] :: Array Int Int) (listArray (1, 2) [1, 2]))
  print (ixmap (1, 3) (\i -> i + 1) a)
  print (accum (flip (:)) (listArray (0, 2) (repeat [])) [(0, 'a'), (2, 'b'), (0, 'c')] :: Array Int String)
  print (array (1, 3) [(3, 'c'), (1, 'a'), (2, 'b'), (1, 'z')] :: Array Int Char)
  let b = listArray (False, True) [0, 1] :: Array Bool Integer
  print (b, b ! True)
  let o = listArray (LT, GT) "<=>" :: Array Ordering Char
  print (o ! EQ, elems o)
  let big = listArray (1 :: Integer, 3) [1.5, 2.5, 3.5] :: Array Integer Double
  print big
  print (range ('a', 'e'), inRange (1 :: Int, 5) 6, rangeSize ((1, 1), (3, 4) :: (Int, Int)))
  print (range (((), ()), ((), ())), range (LT, GT), rangeSize (5 :: Int, 1))
  -- laziness: undefined elements are fine if not demanded
  let lz = listArray (0, 2) [1, undefined, 3] :: Array Int Int
  print (lz ! 0 + lz ! 2)
  let lz2 = array (0, 2) [(0, 'x'), (2, 'z')] :: Array Int Char
  print (lz2 ! 0, lz2 ! 2)
  let strict = accumArray (\_ x -> x) 'q' (0, 3) [(1, 'a')] :: Array Int Char
  print strict
  print (read "array (0,2) [(0,'a'),(1,'b'),(2,'c')]" :: Array Int Char)
  print (read " ( array (1,2) [(1,2.5),(2,-1.0)])" :: Array Int Double)
  print (fmap length (listArray (0, 1) ["ab", "cde"] :: Array Int String))
  let big2 = listArray (0, 9999) (enumFromTo 0 9999) :: Array Int Int
  print (sum (elems big2), big2 ! 5000, sum (elems (big2 // [(i, 0) | i <- enumFromTo 0 4999])))

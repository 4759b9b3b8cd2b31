import Data.Complex

-- Data.Complex: arithmetic, polar form, Floating functions, Show (as
-- t3_debug_complex.lz without Debug.Trace).
mandel :: Complex Double -> Int
mandel c = length (takeWhile ((<= 2) . magnitude) (take 30 (iterate (\z -> z * z + c) 0)))

pts :: [Complex Double]
pts = [1 :+ 2, (-1.5) :+ 0.25, 0 :+ 0, 0 :+ (-3), 1e300 :+ 1e300, (-0.0) :+ 1, 3 :+ 4, (-2) :+ (-7)]

main :: IO ()
main = do
  let z = (1 :+ 2) * (3 :+ (-1)) :: Complex Double
  print z
  print (realPart z, imagPart z, magnitude (3 :+ 4 :: Complex Double))
  print (conjugate z, z + 1, z / (0 :+ 1))
  print (mkPolar 1 0 :: Complex Double, mkPolar 2 (pi / 3) :: Complex Double)
  print (cis pi :: Complex Double, polar ((-1) :+ 0 :: Complex Double))
  mapM_ putStrLn [[if mandel (r :+ i) >= 30 then '*' else '.' | r <- map (\k -> -2 + 0.1 * fromIntegral k) (enumFromTo 0 (25 :: Int))] | i <- map (\k -> -1 + 0.2 * fromIntegral k) (enumFromTo 0 (10 :: Int))]
  mapM_ (\p -> print (p, magnitude p, phase p, abs p, signum p, negate p)) pts
  mapM_ (\p -> print (exp p, log p, sqrt p)) pts
  mapM_ (\p -> print (sin p, cos p, tan p)) (take 4 pts)
  mapM_ (\p -> print (sinh p, cosh p, tanh p)) (take 4 pts)
  mapM_ (\p -> print (asin p, acos p, atan p)) (take 4 pts)
  mapM_ (\p -> print (asinh p, acosh p, atanh p)) (take 4 pts)
  print [p ** q | p <- take 4 pts, q <- [0 :+ 0, 2 :+ 0, 0.5 :+ 1, (-1) :+ 0]]
  print ((1 / 0 :+ 0) ** (2 :+ 0) :: Complex Double, (0 :+ 0) ** ((-1) :+ 0) :: Complex Double)
  print [p / q | p <- take 3 pts, q <- [1 :+ 1, 1e-300 :+ 2e-300, 4 :+ 0]]
  print (logBase 2 (8 :+ 0) :: Complex Double, pi :: Complex Double, fromRational 2.5 :: Complex Double)
  print (showsPrec 7 z "", showsPrec 6 z "", Just z, [z])
  print ((-1) :+ (-2) :: Complex Integer, 0.5 :+ (-0.0) :: Complex Double)
  print (read "3.0 :+ (-4.5)" :: Complex Double, read "(1 :+ 2)" :: Complex Int)
  print (fmap (* 2) (1 :+ 2 :: Complex Int), z == z, z == conjugate z)
  print (realToFrac (1.5 :: Double) :: Complex Double, realToFrac (0 / 0 :: Double) :: Complex Double)
  print (sum (map (\k -> cis (fromIntegral k * pi / 8)) (enumFromTo 0 (15 :: Int))) :: Complex Double)

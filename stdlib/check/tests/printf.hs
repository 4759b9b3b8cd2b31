import Text.Printf
import System.IO

-- Text.Printf: every conversion and flag, String and IO results, hPrintf
-- (t3_printf.lz plus GHC's extended syntax).
data Item = Item String Int Double

items :: [Item]
items = [Item "widget" 3 2.5, Item "gadget" 12 10.0, Item "doohickey" 1 99.99]

main :: IO ()
main = do
  printf "%d items\n" (length items)
  mapM_ (\(Item n q p) -> printf "%-10s %4d %8.2f %10.3f\n" n q p (fromIntegral q * p)) items
  printf "total: %.2f\n" (sum [fromIntegral q * p | Item _ q p <- items] :: Double)
  printf "%s has %d chars\n" "hello" (length "hello")
  printf "%5d|%-5d|%05d\n" (42 :: Int) (42 :: Int) (42 :: Int)
  printf "%f %.0f %.3f\n" (3.14159 :: Double) (2.5 :: Double) (1 / 3 :: Double)
  printf "%c%c\n" 'o' 'k'
  printf "%x %X %o\n" (255 :: Int) (255 :: Int) (8 :: Int)
  let s = printf "%d-%d" (1 :: Int) (2 :: Int) :: String
  putStrLn s
  printf "100%%\n"
  -- integers
  mapM_ (\n -> printf "[%d] [%i] [%5d] [%-5d] [%05d] [%+d] [% d] [%.3d] [%8.3d] [%-8.3d|] [%x] [%#x] [%#o] [%b] [%u]\n"
                 n n n n n n n n n n n n n n n) [0, 1, -1, 42, -42, 123456, minBound, maxBound :: Int]
  mapM_ (\n -> printf "[%d] [%+7d] [%x] [%X] [%#X] [%o] [%012d] [%hhx] [%hx] [%lx] [%llx]\n" n n n n n n n n n n n)
        [0, 255, 2 ^ (70 :: Int), 3 ^ (50 :: Int) :: Integer]
  printf "[%hhd] [%hd] [%ld] [%lld] [%Ld] [%hhu]\n" (300 :: Int) (70000 :: Int) (5000000000 :: Int) (7 :: Int) (8 :: Int) (-1 :: Int)
  -- chars and strings
  printf "[%c] [%3c] [%-3c] [%d] [%x] [%v]\n" 'a' 'b' 'c' 'A' 'z' 'q'
  printf "[%s] [%10s] [%-10s] [%.2s] [%6.3s] [%v]\n" "hello" "right" "left" "trunc" "abcdef" "vee"
  printf "[%s]\n" (show [1, 2, 3 :: Int])
  printf "[%5s] [%-5s] [%s]\n" "" "\955x" "\1234\&5"
  -- doubles
  mapM_ (\d -> printf "[%f] [%.2f] [%8.3f] [%-8.1f] [%08.2f] [%+.1f] [% .1f] [%e] [%.3e] [%E] [%g] [%.2g] [%G] [%v] [%#.0f] [%#g]\n"
                 d d d d d d d d d d d d d d d d)
        [0, -0.0, 1, -1, 0.1, 123.456, -9.995, 1e7, 1.5e-3, 1e-10, 6.02214076e23, 2.5, 3.5, 1 / 0, -1 / 0, 0 / 0 :: Double]
  -- star widths
  printf "[%*d] [%-*d] [%.*f] [%*.*f] [%*s]\n" (6 :: Int) (42 :: Int) (6 :: Int) (42 :: Int) (2 :: Int) (3.14159 :: Double)
         (9 :: Int) (3 :: Int) (2.71828 :: Double) (-7 :: Int) "neg"
  -- String result, hPrintf
  let t = printf "%s=%d;" "x" (10 :: Int) ++ printf "%.1f" (0.25 :: Double)
  putStrLn t
  hPrintf stdout "%s %d %c\n" "handle" (7 :: Int) '!'
  hPrintf stderr "to stderr %d\n" (1 :: Int)
  r <- printf "unit result\n" :: IO ()
  print r
  printf "%5.1f%%|%-6s|%3d\n" (99.5 :: Double) "ab" (7 :: Int)
  printf "no args at all\n"

import System.IO
import System.Environment
import Control.Monad
main :: IO ()
main = do
  args <- getArgs
  print args
  name <- getProgName
  print name
  l1 <- getLine
  l2 <- getLine
  print (l1, l2)
  c <- getChar
  print c
  eof <- isEOF
  print eof
  rest <- getContents
  print rest
  print (lines rest)
  writeFile "lzcheck-tmp.txt" "line one\nline two\n\233\955\n"
  appendFile "lzcheck-tmp.txt" "appended\n"
  s <- readFile "lzcheck-tmp.txt"
  putStr s
  print (length s)
  h <- openFile "lzcheck-tmp.txt" ReadMode
  a <- hGetLine h
  b <- hGetLine h
  e1 <- hIsEOF h
  t <- hGetContents h
  print (a, b, e1, t)
  withFile "lzcheck-tmp2.txt" WriteMode (\h2 -> hPutStrLn h2 "via withFile" >> hPrint h2 (42 :: Int))
  readFile "lzcheck-tmp2.txt" >>= putStr
  hPutStrLn stderr "to stderr"
  hPutStr stdout "no newline"
  hFlush stdout
  putChar '\n'
  print (stdout, stderr, stdin, stdout == stdout, stdin == stdout)
  b0 <- hGetBuffering stdout
  hSetBuffering stdout NoBuffering
  b1 <- hGetBuffering stdout
  hSetBuffering stdout LineBuffering
  b2 <- hGetBuffering stdout
  print (b0, b1, b2, [ReadMode, WriteMode, AppendMode, ReadWriteMode], BlockBuffering (Just 4))
  print (userError "x")
  mapM_ print [1, 2, 3 :: Int]
  sequence_ [putStr "a", putStr "b", putStrLn "c"]
  interactLike <- return (map length . lines)
  print (interactLike "ab\ncde\n")
  print (replicate 3000 'x' == concat (replicate 3000 "x"))
  putStrLn (replicate 5000 'y')

main :: IO ()
main = getContents >>= print >> getLine >>= print

main :: IO ()
main = interact (unlines . map (show . (* 2) . (read :: String -> Int)) . lines)

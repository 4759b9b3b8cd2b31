import Data.Either
import Data.Maybe

-- Data.Either and Data.Maybe helpers (as t3_data_maybe.lz), and laziness of
-- partitionEithers.
safeRecip :: Double -> Maybe Double
safeRecip 0 = Nothing
safeRecip x = Just (1 / x)

parseAge :: String -> Either String Int
parseAge s
  | not (null s) && all (`elem` "0123456789") s = Right (read s)
  | otherwise = Left ("not a number: " ++ s)

main :: IO ()
main = do
  let ms = map safeRecip [1, 0, 4, 0, 8]
  print ms
  print (catMaybes ms)
  print (mapMaybe safeRecip [2, 0, 5])
  print (fromMaybe 0 (Just 3) :: Int, fromMaybe 0 Nothing :: Int)
  print (isJust (Just 'x'), isNothing (Just 'x'), fromJust (Just "j"))
  print (maybeToList (Just 1 :: Maybe Int), listToMaybe [9, 8 :: Int], listToMaybe ([] :: [Int]))
  print (maybe "none" show (listToMaybe [1 :: Int]))
  let es = map parseAge ["42", "x1", "7", ""]
  print es
  print (lefts es)
  print (rights es)
  print (partitionEithers es)
  print (either length (* 2) (Left "abc" :: Either String Int), isLeft (head es), isRight (head es))
  print (fromLeft "dflt" (Right 3 :: Either String Int), fromRight 0 (Right 3 :: Either String Int))
  print (fromLeft 'a' (Left 'b' :: Either Char Int), fromRight 'z' (Left 1 :: Either Int Char))
  let inf = cycle [Left 'a', Right (1 :: Int)]
  print (take 3 (fst (partitionEithers inf)), take 3 (snd (partitionEithers inf)))
  print (take 2 (lefts inf), take 2 (rights inf))

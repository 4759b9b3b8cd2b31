import Control.Parallel

main :: IO ()
main = print ((error "first" :: Int) `pseq` (error "second" :: Int))

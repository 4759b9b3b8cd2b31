import Data.Char

-- Data.Char.generalCategory on Latin-1 and the characters Lz knows, and the
-- derived instances of GeneralCategory.
main :: IO ()
main = do
  print (map (generalCategory . chr) (enumFromTo 0 255))
  print [generalCategory (chr c) | c <- [0x391, 0x3A2, 0x3A9, 0x3B1, 0x3C2, 0x3C9, 0x400, 0x410, 0x42F, 0x430, 0x45F,
                                        0x1680, 0x2000, 0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
                                        0xD800, 0xDFFF, 0xE000, 0xF8FF, 0xF0000, 0x10FFFD]]
  print (generalCategory 'a', generalCategory '1', generalCategory ' ')
  print (map fromEnum [UppercaseLetter, Space, NotAssigned], toEnum 17 :: GeneralCategory)
  print (enumFromTo Space Format, enumFrom Surrogate, enumFromThen Control Surrogate)
  print (enumFromThen MathSymbol OtherSymbol, enumFromThenTo NotAssigned PrivateUse Format)
  print (succ Space, pred Space, minBound :: GeneralCategory, maxBound :: GeneralCategory)
  print (Space == Space, Space < Control, compare Format Control, max LowercaseLetter UppercaseLetter)
  print (Just DecimalNumber, [OpenPunctuation, ClosePunctuation])
  print (length (filter (\c -> isPunctuation c == (generalCategory c `elem` [ConnectorPunctuation, DashPunctuation, OpenPunctuation, ClosePunctuation, InitialQuote, FinalQuote, OtherPunctuation])) (map chr (enumFromTo 0 255))))

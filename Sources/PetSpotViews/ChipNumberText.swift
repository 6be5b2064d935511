/// A microchip number as people read it and chip readers print it: 00000-00000-00000, a
/// hyphen after the 5th and the 10th digit only when a digit follows ("123456" is "12345-6").
/// Reports and flow values keep the digits only; this is the `display` of the chip field and
/// what `petspot reports` shows.
public enum ChipNumberText {
    public static func formatted(_ digits: String) -> String {
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && index % 5 == 0 { text.append("-") }
            text.append(digit)
        }
        return text
    }
}

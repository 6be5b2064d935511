/// A microchip number as people read it: 00000-00000-00000, a hyphen after the 5th and the
/// 10th digit only when a digit follows ("123456" is "12345-6"). Reports store digits only.
enum ChipNumberText {
    static func formatted(_ digits: String) -> String {
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index == 5 || index == 10 { out.append("-") }
            out.append(digit)
        }
        return out
    }
}

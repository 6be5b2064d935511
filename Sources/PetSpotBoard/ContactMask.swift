/// The contact details the public sees: enough to recognise an address or a number ("is it
/// the one ending 789?"), not enough to call or write to it. Staff see them whole.
public enum ContactMask {
    /// U+2022 BULLET, one for every hidden digit.
    public static let hidden: Character = "•"
    /// Digits of a phone number left readable at its end.
    public static let shownPhoneDigits = 3
    /// What stands for the hidden rest of an email's local part, whatever its length.
    public static let hiddenLocalPart = "•••"

    /// "+48123456789" → "+••••••••789": a bullet for every digit but the last three; the
    /// leading `+` kept (it tells only that a country code follows). Anything else a stored
    /// number should not hold is dropped, not shown. A number of 3 digits or fewer is all
    /// bullets, never shown whole; one with no digit at all is no number: nil.
    public static func phone(_ stored: String) -> String? {
        let digits = stored.unicodeScalars.compactMap(asciiDigit)
        guard !digits.isEmpty else { return nil }
        let shown = digits.count > shownPhoneDigits ? shownPhoneDigits : 0
        let plus = stored.unicodeScalars.first == "+" ? "+" : ""
        return plus + String(repeating: hidden, count: digits.count - shown) + String(digits.suffix(shown))
    }

    /// "jan.kowalski@example.pl" → "j•••@example.pl": the first character of the local part
    /// (a whole grapheme: an emoji or a letter with its accents), `•••`, `@` and the domain as
    /// stored. A local part of one character is hidden too ("•••@example.pl"), so an address is
    /// never shown whole; text without an `@` is all hidden ("•••").
    public static func email(_ stored: String) -> String {
        // The domain follows the last "@": a quoted local part may hold one, a domain never does.
        guard let at = stored.lastIndex(of: "@") else { return hiddenLocalPart }
        let local = stored[..<at], domain = stored[stored.index(after: at)...]
        let first = local.count > 1 ? local.prefix(1) : ""
        return first + hiddenLocalPart + "@" + domain
    }

    /// A decimal digit of any script as its ASCII digit, as the flow reads digits.
    private static func asciiDigit(_ scalar: Unicode.Scalar) -> Character? {
        guard scalar.properties.numericType == .decimal, let value = scalar.properties.numericValue,
              value >= 0, value <= 9, value == value.rounded()
        else { return nil }
        return Character(Unicode.Scalar(UInt8(ascii: "0") + UInt8(value)))
    }
}

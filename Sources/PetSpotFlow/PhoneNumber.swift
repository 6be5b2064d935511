/// A contact phone number: its digits (7-15, the E.164 maximum) with an optional leading `+`.
///
/// Spaces, dashes, dots and parentheses are how people write numbers ("+48 (12) 345-67-89");
/// they are accepted and dropped. Anything else is refused rather than guessed at.
public struct PhoneNumber: Sendable, Hashable {
    public static let digitCount = 7...15

    public enum Problem: Error, Sendable, Hashable {
        /// A letter or symbol, or a `+` after the first digit.
        case invalidCharacter
        /// Fewer than 7 or more than 15 digits.
        case digitCount
    }

    /// "+48123456789" or "0123456789".
    public let normalized: String

    public init(parsing input: String) throws(Problem) {
        var plus = false
        var digits: [UInt8] = []
        for scalar in input.unicodeScalars {
            if let value = scalar.decimalDigitValue {
                digits.append(UInt8(ascii: "0") + value)
            } else if scalar == "+" && !plus && digits.isEmpty {
                plus = true
            } else if !PhoneNumber.isSeparator(scalar) {
                throw .invalidCharacter
            }
        }
        guard PhoneNumber.digitCount.contains(digits.count) else { throw .digitCount }
        normalized = (plus ? "+" : "") + String(decoding: digits, as: UTF8.self)
    }

    private static func isSeparator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        // Any space (incl. no-break) and any dash (hyphen, en dash) as pasted from documents.
        case .spaceSeparator, .dashPunctuation: true
        default: scalar == "." || scalar == "(" || scalar == ")" || scalar == "\t"
        }
    }
}

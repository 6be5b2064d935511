import PetSpotViews

/// A microchip number as the chip step keeps it: up to 15 ASCII digits, leading zeros kept.
///
/// Normalising never fails: any text is reduced to its decimal digits (in any script), so a
/// person may paste "12345-67890-12345", "٣٣٣" or a number with spaces.
public struct ChipNumber: Sendable, Hashable {
    /// ISO 11784/11785 chips carry 15 digits.
    public static let maxDigits = 15
    /// The largest national ID an ISO 11784 chip can carry: 38 bits.
    public static let maxNationalID = (1 << 38) - 1

    /// ASCII digits only, at most 15; empty means "no chip".
    public let digits: String

    public init(normalizing input: String) {
        var digits: [UInt8] = []
        for scalar in input.unicodeScalars {
            guard let value = scalar.decimalDigitValue else { continue }
            digits.append(UInt8(ascii: "0") + value)
            if digits.count == ChipNumber.maxDigits { break }
        }
        self.digits = String(decoding: digits, as: UTF8.self)
    }

    public var isEmpty: Bool { digits.isEmpty }

    /// `00000-00000-00000`, with a hyphen only where a digit follows it: "123456" → "12345-6".
    public var formatted: String { ChipNumberText.formatted(digits) }

    /// What a person may want to know about the number; never a reason to refuse it.
    public enum Hint: Sendable, Hashable {
        /// 001-899: the first three digits are an ISO 3166 numeric country code.
        case countryCode(String)
        /// 900-998: the first three digits are a manufacturer code.
        case manufacturerCode(String)
        /// 999: a test transponder, not an animal's chip.
        case testTransponder
        /// 000: not assigned to any country or manufacturer.
        case unassignedCode
        /// The last 12 digits exceed `maxNationalID`.
        case nationalIDTooLarge
        /// 1-14 digits: ISO chips have 15, older chips 9 or 10.
        case shorterThanISO
    }

    public var hints: [Hint] {
        guard digits.count == ChipNumber.maxDigits else {
            return digits.isEmpty ? [] : [.shorterThanISO]
        }
        let code = String(digits.prefix(3))
        var hints: [Hint]
        switch Int(code) ?? 0 {
        case 0: hints = [.unassignedCode]
        case 1...899: hints = [.countryCode(code)]
        case 900...998: hints = [.manufacturerCode(code)]
        default: hints = [.testTransponder]
        }
        if let nationalID = Int(digits.suffix(12)), nationalID > ChipNumber.maxNationalID {
            hints.append(.nationalIDTooLarge)
        }
        return hints
    }
}

/// An exact decimal number: sign, significant digits and a power-of-ten exponent.
///
/// Built from a JSON number literal or from a numeric string a person typed, so that rules such
/// as "at most 5 decimals, half away from zero" act on the digits that were sent and no binary
/// floating-point noise reaches a stored value or an answer.
public struct DecimalLiteral: Sendable, Hashable {
    public let isNegative: Bool
    /// Significant digits as ASCII values 0...9, no leading zeros (empty for zero).
    public let digits: [UInt8]
    /// value = digits × 10^exponent
    public let exponent: Int

    /// Parses a JSON number literal (`-12.5e3`). With `lenient`, also what a person types into a
    /// numeric field: surrounding spaces, a leading `+`, a leading or trailing dot (`.5`, `5.`).
    public init?(parsing text: some StringProtocol, lenient: Bool = false) {
        var bytes = Array(text.utf8)
        if lenient {
            while let f = bytes.first, f == 0x20 || f == 0x09 { bytes.removeFirst() }
            while let l = bytes.last, l == 0x20 || l == 0x09 { bytes.removeLast() }
        }
        var i = 0
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        } else if lenient, i < bytes.count, bytes[i] == UInt8(ascii: "+") {
            i += 1
        }
        var mantissa: [UInt8] = []
        var intDigits = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
            mantissa.append(bytes[i] - 0x30)
            intDigits += 1
            i += 1
        }
        if !lenient {
            // JSON: no leading zeros, at least one integer digit.
            if intDigits == 0 || (intDigits > 1 && mantissa[0] == 0) { return nil }
        }
        var fracDigits = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                mantissa.append(bytes[i] - 0x30)
                fracDigits += 1
                i += 1
            }
            if fracDigits == 0 && !lenient { return nil }
        }
        if intDigits + fracDigits == 0 { return nil }
        var exp = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var expNegative = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
                expNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            var expDigits = 0
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 {
                // Saturate: 1e999999999 is simply "too large" for every rule that reads it.
                if exp < 1_000_000_000 { exp = exp * 10 + Int(bytes[i] - 0x30) }
                expDigits += 1
                i += 1
            }
            if expDigits == 0 { return nil }
            if expNegative { exp = -exp }
        }
        if i != bytes.count { return nil }
        self.init(isNegative: negative, mantissa: mantissa, exponent: exp - fracDigits)
    }

    /// The exact decimal of a finite Double, from its shortest round-trip text
    /// (so 52.2296756 is 52.2296756, not 52.22967559999999...).
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        guard let parsed = DecimalLiteral(parsing: "\(value)", lenient: true) else { return nil }
        self = parsed
    }

    private init(isNegative: Bool, mantissa: [UInt8], exponent: Int) {
        var digits = mantissa
        var exponent = exponent
        while let first = digits.first, first == 0 { digits.removeFirst() }
        while let last = digits.last, last == 0 {
            digits.removeLast()
            exponent += 1
        }
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : exponent
        self.isNegative = digits.isEmpty ? false : isNegative
    }

    public var isZero: Bool { digits.isEmpty }

    /// Whether the value has no fractional part.
    public var isWhole: Bool { exponent >= 0 }

    /// The value as an Int when it is whole and fits.
    public var exactInt: Int? {
        guard isWhole, digits.count + exponent <= 18 else { return nil }
        var value = 0
        for d in digits { value = value * 10 + Int(d) }
        for _ in 0..<exponent { value *= 10 }
        return isNegative ? -value : value
    }

    /// The value × 10^decimals rounded half away from zero, or nil when it does not fit in
    /// 18 digits. `scaled(decimals: 5)` of 52.2296756 is 5222968.
    public func scaled(decimals: Int) -> Int? {
        if digits.isEmpty { return 0 }
        let shift = exponent + decimals
        var value = 0
        if shift >= 0 {
            guard digits.count + shift <= 18 else { return nil }
            for d in digits { value = value * 10 + Int(d) }
            for _ in 0..<shift { value *= 10 }
        } else {
            let keep = digits.count + shift
            if keep > 18 { return nil }
            if keep >= 0 {
                for d in digits.prefix(keep) { value = value * 10 + Int(d) }
            }
            // The first dropped digit decides: 5 or more rounds away from zero.
            let firstDropped = keep >= 0 ? digits[keep] : 0
            if firstDropped >= 5 { value += 1 }
        }
        return isNegative ? -value : value
    }

    /// Compares with an integer bound: -1, 0 or 1.
    public func compare(to bound: Int) -> Int {
        let other = DecimalLiteral(parsing: String(bound))!
        return compare(to: other)
    }

    public func compare(to other: DecimalLiteral) -> Int {
        if isNegative != other.isNegative { return isNegative ? -1 : 1 }
        let magnitude = DecimalLiteral.compareMagnitude(self, other)
        return isNegative ? -magnitude : magnitude
    }

    private static func compareMagnitude(_ a: DecimalLiteral, _ b: DecimalLiteral) -> Int {
        if a.digits.isEmpty || b.digits.isEmpty {
            return a.digits.isEmpty ? (b.digits.isEmpty ? 0 : -1) : 1
        }
        // Position of the most significant digit decides first.
        let aTop = a.digits.count + a.exponent
        let bTop = b.digits.count + b.exponent
        if aTop != bTop { return aTop < bTop ? -1 : 1 }
        let n = max(a.digits.count, b.digits.count)
        for i in 0..<n {
            let da = i < a.digits.count ? a.digits[i] : 0
            let db = i < b.digits.count ? b.digits[i] : 0
            if da != db { return da < db ? -1 : 1 }
        }
        return 0
    }
}

/// A fixed-point decimal text for a value scaled by 10^decimals: `fixedPointText(5222968, 5)`
/// is "52.22968"; trailing zeros are kept so every coordinate shows 5 decimals.
public func fixedPointText(_ scaled: Int, decimals: Int) -> String {
    let negative = scaled < 0
    var digits = String(scaled.magnitude)
    if digits.count <= decimals {
        digits = String(repeating: "0", count: decimals - digits.count + 1) + digits
    }
    let split = digits.index(digits.endIndex, offsetBy: -decimals)
    let text = decimals == 0 ? digits : digits[..<split] + "." + digits[split...]
    return negative ? "-" + text : text
}

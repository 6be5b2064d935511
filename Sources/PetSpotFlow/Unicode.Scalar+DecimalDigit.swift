extension Unicode.Scalar {
    /// The value of a decimal digit in any script (Unicode Nd: "٣", "３", "7"), else nil.
    /// Digit-like characters that are not decimal digits ("½", "²", "Ⅻ") give nil.
    var decimalDigitValue: UInt8? {
        guard properties.numericType == .decimal, let value = properties.numericValue,
            value >= 0, value <= 9, value == value.rounded()
        else { return nil }
        return UInt8(value)
    }
}

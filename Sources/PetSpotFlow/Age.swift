import PetSpotJSON

/// The animal's age in whole years.
public enum Age {
    public static let years = 0...40

    /// The age when `value` is a whole number of years in range: 3 and 3.0 are 3;
    /// 2.5, -1 and 41 are nil.
    public static func years(from value: DecimalLiteral) -> Int? {
        guard let whole = value.exactInt, years.contains(whole) else { return nil }
        return whole
    }
}

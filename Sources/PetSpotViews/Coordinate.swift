import PetSpotJSON

/// An angle in degrees with exactly 5 decimals (about 1 m on the ground), kept as an integer so
/// that no binary floating-point noise reaches a stored value or an answer.
public struct Coordinate: Sendable, Hashable {
    public static let decimals = 5
    public static let scale = 100_000

    /// Degrees × 100 000.
    public let scaled: Int

    public init(scaled: Int) {
        self.scaled = scaled
    }

    /// Rounds half away from zero to 5 decimals; nil when the value is too large to hold.
    public init?(_ decimal: DecimalLiteral) {
        guard let scaled = decimal.scaled(decimals: Coordinate.decimals) else { return nil }
        self.scaled = scaled
    }

    public var degrees: Double {
        Double(scaled) / Double(Coordinate.scale)
    }

    /// Always 5 decimals: "52.22968", "-0.00001", "90.00000".
    public var text: String {
        fixedPointText(scaled, decimals: Coordinate.decimals)
    }

    /// A JSON number whose literal is `text`.
    public var literal: JSONNumber {
        JSONNumber(validatedLiteral: text)
    }

    public var json: JSONValue {
        .number(literal)
    }
}

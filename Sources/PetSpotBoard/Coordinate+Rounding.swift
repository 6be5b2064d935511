import PetSpotFlow
import PetSpotJSON
import PetSpotViews

/// Coarser coordinates for the public: rounding on the scaled integer, half away from zero as
/// `DecimalLiteral.scaled(decimals:)` rounds what a client sends, so no binary floating point
/// decides which way a boundary value goes.
extension Coordinate {
    /// The coordinate rounded to `decimals` (0...5), still kept as degrees × 100 000:
    /// 52.22968 to 3 decimals is 52.23000.
    public func rounded(toDecimals decimals: Int) -> Coordinate {
        Coordinate(scaled: Self.roundedScaled(scaled, toDecimals: decimals) * Self.step(decimals))
    }

    /// Exactly `decimals` decimals: "52.230" for 52.22968 at 3.
    public func text(decimals: Int) -> String {
        fixedPointText(Self.roundedScaled(scaled, toDecimals: decimals), decimals: Self.clamped(decimals))
    }

    /// A JSON number whose literal is `text(decimals:)`.
    public func literal(decimals: Int) -> JSONNumber {
        JSONNumber(validatedLiteral: text(decimals: decimals))
    }

    /// The value × 10^decimals, rounded half away from zero.
    static func roundedScaled(_ scaled: Int, toDecimals decimals: Int) -> Int {
        let step = step(decimals)
        let magnitude = scaled.magnitude
        // The dropped digits decide: half a step or more rounds away from zero.
        var kept = magnitude / UInt(step)
        if (magnitude % UInt(step)) * 2 >= UInt(step) { kept += 1 }
        return scaled < 0 ? -Int(kept) : Int(kept)
    }

    private static func clamped(_ decimals: Int) -> Int { min(max(decimals, 0), Coordinate.decimals) }

    /// 10^(5 - decimals): how many 1/100 000 degrees one unit of the last kept decimal is.
    private static func step(_ decimals: Int) -> Int {
        var step = 1
        for _ in clamped(decimals)..<Coordinate.decimals { step *= 10 }
        return step
    }
}

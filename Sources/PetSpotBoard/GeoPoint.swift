import PetSpotFlow
import PetSpotJSON
import PetSpotViews

/// A position on the Earth, each coordinate to 5 decimals as the flow stores them: a report's
/// last-seen position or the origin of a search.
public struct GeoPoint: Sendable, Hashable, CustomStringConvertible {
    public enum Problem: Error, Sendable, Hashable, CustomStringConvertible {
        case latitudeOutOfRange(String)
        case longitudeOutOfRange(String)

        public var description: String {
            switch self {
            case .latitudeOutOfRange(let text): "latitude \(text) is not within -90...90"
            case .longitudeOutOfRange(let text): "longitude \(text) is not within -180...180"
            }
        }
    }

    public let latitude: Coordinate
    public let longitude: Coordinate

    public init(latitude: Coordinate, longitude: Coordinate) throws(Problem) {
        guard abs(latitude.scaled) <= 90 * Coordinate.scale else { throw .latitudeOutOfRange(latitude.text) }
        guard abs(longitude.scaled) <= 180 * Coordinate.scale else { throw .longitudeOutOfRange(longitude.text) }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Rounded to 5 decimals the way the flow rounds what it is sent (half away from zero); a
    /// literal too large to hold is out of range.
    public init(latitude: DecimalLiteral, longitude: DecimalLiteral) throws(Problem) {
        guard let lat = Coordinate(latitude) else { throw .latitudeOutOfRange(Self.text(of: latitude)) }
        guard let lon = Coordinate(longitude) else { throw .longitudeOutOfRange(Self.text(of: longitude)) }
        try self.init(latitude: lat, longitude: lon)
    }

    /// The point with both coordinates rounded to `decimals`; within range whenever the point is
    /// (rounding never passes ±90 or ±180, which have no digits to round).
    public func rounded(toDecimals decimals: Int) -> GeoPoint {
        GeoPoint(unchecked: latitude.rounded(toDecimals: decimals), longitude.rounded(toDecimals: decimals))
    }

    /// "52.22968, 21.01223"
    public var description: String { "\(latitude.text), \(longitude.text)" }

    private init(unchecked latitude: Coordinate, _ longitude: Coordinate) {
        self.latitude = latitude
        self.longitude = longitude
    }

    private static func text(of decimal: DecimalLiteral) -> String {
        let digits = String(decoding: decimal.digits.map { $0 + 48 }, as: UTF8.self)
        return (decimal.isNegative ? "-" : "") + (digits.isEmpty ? "0" : digits) + "e" + String(decimal.exponent)
    }
}

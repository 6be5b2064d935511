import PetSpotJSON
import PetSpotViews

/// Reads a latitude or longitude typed by a person or sent as a JSON number.
///
/// The range is checked on the exact value sent, before rounding, so 90.000001 is refused even
/// though it would round to 90.00000.
public enum CoordinateParser {
    public enum Axis: Sendable, Hashable, CaseIterable {
        case latitude, longitude

        /// The largest magnitude in degrees: 90 or 180.
        public var limit: Int {
            switch self {
            case .latitude: 90
            case .longitude: 180
            }
        }
    }

    public enum Problem: Error, Sendable, Hashable {
        case notANumber
        case outOfRange
    }

    public static func parse(_ value: DecimalLiteral, axis: Axis) throws(Problem) -> Coordinate {
        guard value.compare(to: -axis.limit) >= 0, value.compare(to: axis.limit) <= 0,
            let coordinate = Coordinate(value)
        else { throw .outOfRange }
        return coordinate
    }

    /// A numeric string as typed into a field (see `DecimalLiteral(fieldText:)`).
    public static func parse(text: String, axis: Axis) throws(Problem) -> Coordinate {
        guard let value = DecimalLiteral(fieldText: text) else { throw .notANumber }
        return try parse(value, axis: axis)
    }

    /// Whether an already rounded coordinate lies in the axis's range.
    public static func isInRange(_ coordinate: Coordinate, axis: Axis) -> Bool {
        abs(coordinate.scaled) <= axis.limit * Coordinate.scale
    }
}

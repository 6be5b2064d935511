import PetSpotJSON
import PetSpotViews

/// One position from a location provider, already rounded to 5 decimals.
public struct LocationFix: Sendable, Hashable {
    public let latitude: Coordinate
    public let longitude: Coordinate
    /// The provider that made the fix: "gpsd", "simulated".
    public let source: String
    /// ISO 8601 UTC time of the fix.
    public let time: String
    /// Metres, when the provider knows it.
    public let accuracy: Double?

    public init(latitude: Coordinate, longitude: Coordinate, source: String, time: String, accuracy: Double?) {
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
        self.time = time
        self.accuracy = accuracy
    }

    /// As a client sees it; accuracy is left out when unknown or not finite.
    public var view: LocationView.Fix {
        LocationView.Fix(latitude: latitude.literal, longitude: longitude.literal, source: source, time: time, accuracy: accuracyLiteral)
    }

    private var accuracyLiteral: JSONNumber? {
        guard let accuracy, accuracy.isFinite else { return nil }
        // Swift prints the shortest text that reads back as the same Double ("4.2", not
        // "4.2000000000000002"); it is a valid JSON literal for every finite value.
        let literal = "\(accuracy)"
        guard DecimalLiteral(parsing: literal) != nil else { return nil }
        return JSONNumber(validatedLiteral: literal)
    }
}

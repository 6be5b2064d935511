import PetSpotJSON

/// One position from a location provider, rounded to 5 decimals: what the location service
/// gives and what a client is shown (`{latitude, longitude, source, time, accuracy?}`).
public struct LocationFix: Sendable, Hashable {
    public let latitude: Coordinate
    public let longitude: Coordinate
    /// The provider that made the fix: "gpsd", "simulated".
    public let source: String
    /// ISO 8601 UTC time of the fix.
    public let time: String
    /// Metres, when the provider knows it, as the literal it travels as.
    public let accuracy: JSONNumber?

    public init(latitude: Coordinate, longitude: Coordinate, source: String, time: String, accuracy: JSONNumber?) {
        self.latitude = latitude
        self.longitude = longitude
        self.source = source
        self.time = time
        self.accuracy = accuracy
    }

    /// A provider's fix; an accuracy that is unknown or not finite is left out.
    public init(latitude: Coordinate, longitude: Coordinate, source: String, time: String, accuracyMetres: Double?) {
        self.init(latitude: latitude, longitude: longitude, source: source, time: time, accuracy: accuracyMetres.flatMap(Self.literal))
    }

    private static func literal(_ accuracy: Double) -> JSONNumber? {
        guard accuracy.isFinite else { return nil }
        // Swift prints the shortest text that reads back as the same Double ("4.2", not
        // "4.2000000000000002"); it is a valid JSON literal for every finite value.
        let literal = "\(accuracy)"
        guard DecimalLiteral(parsing: literal) != nil else { return nil }
        return JSONNumber(validatedLiteral: literal)
    }
}

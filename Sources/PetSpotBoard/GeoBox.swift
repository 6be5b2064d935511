/// A latitude/longitude rectangle in degrees, never crossing ±180°: the shape an R*Tree is asked
/// for (`minLat <= lat <= maxLat AND minLon <= lon <= maxLon`).
public struct GeoBox: Sendable, Hashable, CustomStringConvertible {
    public let minLatitude: Double
    public let maxLatitude: Double
    public let minLongitude: Double
    public let maxLongitude: Double

    public init(minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = minLongitude
        self.maxLongitude = maxLongitude
    }

    /// The whole Earth.
    public static let world = GeoBox(minLatitude: -90, maxLatitude: 90, minLongitude: -180, maxLongitude: 180)

    public func contains(_ point: GeoPoint) -> Bool {
        (minLatitude...maxLatitude).contains(point.latitude.degrees)
            && (minLongitude...maxLongitude).contains(point.longitude.degrees)
    }

    public var description: String {
        "lat \(minLatitude)...\(maxLatitude), lon \(minLongitude)...\(maxLongitude)"
    }
}

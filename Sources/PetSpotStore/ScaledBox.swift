/// A latitude/longitude rectangle in degrees × 100 000, bounds included, never crossing ±180°:
/// what the board's positions are searched by. PetSpotBoard's `SearchArea.boundingBoxes` gives
/// a radius's boxes in degrees; rounded outward they are these.
public struct ScaledBox: Sendable, Hashable, CustomStringConvertible {
    public static let maxLatitude = 90 * 100_000
    public static let maxLongitude = 180 * 100_000

    public let minLatitude: Int
    public let maxLatitude: Int
    public let minLongitude: Int
    public let maxLongitude: Int

    /// Bounds beyond ±90° and ±180° are clamped (there is nothing past them); a box whose
    /// minimum is above its maximum holds nothing.
    public init(minLatitude: Int, maxLatitude: Int, minLongitude: Int, maxLongitude: Int) {
        self.minLatitude = max(minLatitude, -Self.maxLatitude)
        self.maxLatitude = min(maxLatitude, Self.maxLatitude)
        self.minLongitude = max(minLongitude, -Self.maxLongitude)
        self.maxLongitude = min(maxLongitude, Self.maxLongitude)
    }

    /// Every position.
    public static let world = ScaledBox(minLatitude: -maxLatitude, maxLatitude: maxLatitude,
                                        minLongitude: -maxLongitude, maxLongitude: maxLongitude)

    public var isEmpty: Bool { minLatitude > maxLatitude || minLongitude > maxLongitude }

    /// Bounds included; an empty box holds nothing.
    public func contains(latitude: Int, longitude: Int) -> Bool {
        minLatitude <= latitude && latitude <= maxLatitude && minLongitude <= longitude && longitude <= maxLongitude
    }

    public var description: String {
        "lat \(minLatitude)...\(maxLatitude), lon \(minLongitude)...\(maxLongitude) (× 1e-5°)"
    }
}

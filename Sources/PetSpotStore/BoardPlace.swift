/// A listed report's position and order keys, without its values: what a nearest-first search
/// measures, thousands at a time. `boardEntries(ids:)` then reads the few it keeps.
public struct BoardPlace: Sendable, Hashable {
    public let id: String
    public let version: Int
    /// ISO 8601 UTC: text order is time order.
    public let submittedAt: String
    /// Degrees × 100 000.
    public let latitude: Int
    public let longitude: Int

    public init(id: String, version: Int, submittedAt: String, latitude: Int, longitude: Int) {
        self.id = id
        self.version = version
        self.submittedAt = submittedAt
        self.latitude = latitude
        self.longitude = longitude
    }
}

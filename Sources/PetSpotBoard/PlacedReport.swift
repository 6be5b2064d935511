/// A listed report as a nearest-first search measures it: where it is and what orders it,
/// without its values (thousands are measured to list twenty).
public struct PlacedReport: Sendable, Hashable {
    public let id: String
    /// Of copies of one report, the highest version counts (as `AnimalQuery.page` takes it).
    public let version: Int
    /// ISO 8601 UTC, whole seconds.
    public let submittedAt: String
    /// The exact position, 5 decimals.
    public let position: GeoPoint

    public init(id: String, version: Int, submittedAt: String, position: GeoPoint) {
        self.id = id
        self.version = version
        self.submittedAt = submittedAt
        self.position = position
    }
}

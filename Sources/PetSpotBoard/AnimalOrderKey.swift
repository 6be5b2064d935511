/// Where a report stands in the animal list: nearest first from the list's origin (a report
/// with no position after every one with), then newest first, then by id. Without an origin
/// every distance is nil and the list is newest first.
///
/// Keys never tie (an id is listed once), so "after this key" names one place in the list,
/// whatever reports come and go around it: the cursor of the next page. In SQL, "after" is
/// `distance > :d OR (distance = :d AND (submittedAt < :s OR (submittedAt = :s AND id > :id)))`,
/// comparing text bytewise (SQLite's BINARY collation).
public struct AnimalOrderKey: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Great-circle km from the origin as the caller's standing measures it; nil without an
    /// origin or a position.
    public let distanceKm: Double?
    /// ISO 8601 UTC, whole seconds: text order is time order.
    public let submittedAt: String
    public let id: String

    public init(distanceKm: Double?, submittedAt: String, id: String) {
        self.distanceKm = distanceKm
        self.submittedAt = submittedAt
        self.id = id
    }

    /// Whether `a` is listed before `b`.
    public static func < (a: AnimalOrderKey, b: AnimalOrderKey) -> Bool {
        switch (a.distanceKm, b.distanceKm) {
        case (let x?, let y?) where x != y: return x < y
        case (_?, nil): return true
        case (nil, _?): return false
        default: break
        }
        if a.submittedAt != b.submittedAt { return precedes(b.submittedAt, a.submittedAt) }
        return precedes(a.id, b.id)
    }

    public var description: String {
        "(\(distanceKm.map { "\($0) km" } ?? "no distance"), \(submittedAt), \(id))"
    }

    /// Byte order of UTF-8, as SQLite compares text: the same order in memory and in a query.
    private static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

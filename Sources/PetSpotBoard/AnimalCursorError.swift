/// Why a cursor cannot continue a listing. Each says what is wrong; the way on is always to
/// ask again without the cursor (or with the request it was made for).
public enum AnimalCursorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not base64url text.
    case notBase64URL
    /// Base64url, but not of a cursor.
    case notCursorText
    /// A format this daemon does not read (a newer daemon's, or made up).
    case unknownVersion(String)
    /// A member of the cursor that cannot be: "origin", "radiusKm", "after.id", ...
    case malformed(member: String, problem: String)
    /// The cursor was made for another `near` (nil: made without one).
    case nearChanged(cursor: GeoPoint?, request: GeoPoint?)
    case radiusChanged(cursor: Double?, request: Double?)
    case speciesChanged(cursor: String?, request: String?)
    /// Made for the public and given by staff, or the other way round: their distances differ.
    case standingChanged(cursor: Standing, request: Standing)

    public var description: String {
        switch self {
        case .notBase64URL: "the cursor is not base64url text"
        case .notCursorText: "the cursor is not one this daemon gave out"
        case .unknownVersion(let version): "the cursor's format version \(version) is not the one this daemon reads (\(AnimalCursor.formatVersion))"
        case .malformed(let member, let problem): "the cursor's \(member) \(problem)"
        case .nearChanged(let cursor, let request):
            "the cursor was made \(Self.near(cursor)), but this request asks \(Self.near(request)); give the same near, or no cursor"
        case .radiusChanged(let cursor, let request):
            "the cursor was made \(Self.radius(cursor)), but this request asks \(Self.radius(request)); give the same radiusKm, or no cursor"
        case .speciesChanged(let cursor, let request):
            "the cursor was made \(Self.species(cursor)), but this request asks \(Self.species(request)); give the same species, or no cursor"
        case .standingChanged(let cursor, let request):
            "the cursor was made for a \(cursor.rawValue) caller, and this caller is \(request.rawValue); ask again without the cursor"
        }
    }

    private static func near(_ point: GeoPoint?) -> String { point.map { "with near \($0)" } ?? "without near" }
    private static func radius(_ km: Double?) -> String { km.map { "with radiusKm \($0)" } ?? "without radiusKm" }
    private static func species(_ id: String?) -> String { id.map { "with species \"\($0)\"" } ?? "without species" }
}

import PetSpotFlow
import PetSpotJSON
import PetSpotViews

/// Where the next page of an animal listing starts, and the query every page of it answers.
///
/// Clients see opaque base64url text; inside is compact JSON, versioned:
/// `[1, standing, origin, radiusKm, species, [distanceKm, submittedAt, id]]` with origin
/// `null`, `["near", lat, lon]` or `["box", lat, lon]`. It pins the origin of the first page
/// (a box that moves does not reshuffle a listing under its reader), the radius, the species
/// and the caller's standing, and names the last report given by its order key (keyset paging:
/// no report that stays in the list is skipped or repeated, however many come and go). It holds
/// nothing the caller was not shown. A made-up cursor that reads well only picks where a page
/// starts, which any caller may do.
public struct AnimalCursor: Sendable, Hashable {
    public static let formatVersion = 1

    public let query: AnimalQuery
    /// The last report of the page before.
    public let after: AnimalOrderKey

    public init(query: AnimalQuery, after: AnimalOrderKey) {
        self.query = query
        self.after = after
    }

    /// The text a client passes back.
    public var text: String {
        Base64URL.encode(JSONWriter.bytes(json))
    }

    public init(text: String) throws(AnimalCursorError) {
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else { throw .notBase64URL }
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes, maxDepth: 4)
        } catch {
            throw .notCursorText
        }
        guard case .array(let members) = parsed, let version = members.first else { throw .notCursorText }
        guard case .number(let number) = version else { throw .notCursorText }
        guard number.exactInt == Self.formatVersion else { throw .unknownVersion(number.literal) }
        guard members.count == 6 else {
            throw .malformed(member: "text", problem: "has \(members.count) members, not 6")
        }
        let standing = try Self.standing(members[1])
        let origin = try Self.origin(members[2])
        let radiusKm = try Self.optionalDistance(members[3], member: "radiusKm")
        let species = try Self.optionalString(members[4], member: "species")
        do {
            query = try AnimalQuery(origin: origin, radiusKm: radiusKm, species: species, standing: standing)
        } catch {
            // The radius read is finite and not negative: only a missing origin is left.
            throw .malformed(member: "radiusKm", problem: "is set in a listing without an origin")
        }
        after = try Self.key(members[5], hasOrigin: origin != nil)
    }

    /// The query of the next page: the cursor's own, when the request asks what the cursor was
    /// made for. A request without `near` continues from the origin the first page had, even
    /// when that was the box's own position and the box has moved since.
    public func continuing(near: GeoPoint?, radiusKm: Double?, species: String?, standing: Standing) throws(AnimalCursorError) -> AnimalQuery {
        let madeNear: GeoPoint? = if case .near(let point)? = query.origin { point } else { nil }
        guard near == madeNear else { throw .nearChanged(cursor: madeNear, request: near) }
        guard radiusKm == query.radiusKm else { throw .radiusChanged(cursor: query.radiusKm, request: radiusKm) }
        guard species == query.species else { throw .speciesChanged(cursor: query.species, request: species) }
        guard standing == query.standing else { throw .standingChanged(cursor: query.standing, request: standing) }
        return query
    }

    var json: JSONValue {
        let origin: JSONValue = switch query.origin {
        case nil: .null
        case .near(let point)?: ["near", .number(point.latitude.literal), .number(point.longitude.literal)]
        case .box(let point)?: ["box", .number(point.latitude.literal), .number(point.longitude.literal)]
        }
        return [
            .int(Self.formatVersion), .string(query.standing.rawValue), origin,
            query.radiusKm.map(Self.number) ?? .null, .optional(query.species),
            [after.distanceKm.map(Self.number) ?? .null, .string(after.submittedAt), .string(after.id)],
        ]
    }

    /// The shortest text that reads back as the same Double: a key compares equal after the trip.
    private static func number(_ value: Double) -> JSONValue {
        .number(JSONNumber(validatedLiteral: "\(value)"))
    }

    private static func standing(_ value: JSONValue) throws(AnimalCursorError) -> Standing {
        guard let text = value.stringValue, let standing = Standing(rawValue: text) else {
            throw .malformed(member: "standing", problem: "must be \"public\" or \"staff\"")
        }
        return standing
    }

    private static func origin(_ value: JSONValue) throws(AnimalCursorError) -> AnimalQuery.Origin? {
        if value.isNull { return nil }
        guard case .array(let parts) = value, parts.count == 3, let kind = parts[0].stringValue, kind == "near" || kind == "box" else {
            throw .malformed(member: "origin", problem: "must be null, [\"near\", lat, lon] or [\"box\", lat, lon]")
        }
        let point = try Self.point(latitude: parts[1], longitude: parts[2])
        return kind == "near" ? .near(point) : .box(point)
    }

    private static func point(latitude: JSONValue, longitude: JSONValue) throws(AnimalCursorError) -> GeoPoint {
        let lat = try coordinate(latitude, name: "latitude"), lon = try coordinate(longitude, name: "longitude")
        do {
            return try GeoPoint(latitude: lat, longitude: lon)
        } catch {
            throw .malformed(member: "origin", problem: error.description)
        }
    }

    /// A coordinate exactly as written: 5 decimals at most, never rounded on the way in.
    private static func coordinate(_ value: JSONValue, name: String) throws(AnimalCursorError) -> Coordinate {
        guard case .number(let number) = value, number.decimal.exponent >= -Coordinate.decimals,
              let coordinate = Coordinate(number.decimal)
        else {
            throw .malformed(member: "origin", problem: "\(name) must be a number of at most 5 decimals")
        }
        return coordinate
    }

    /// A distance in km, or null: finite, not negative, within half the circumference when it
    /// is one between two points.
    private static func optionalDistance(_ value: JSONValue, member: String, atMostHalfCircumference: Bool = false) throws(AnimalCursorError) -> Double? {
        if value.isNull { return nil }
        guard case .number(let number) = value, let km = Double(number.literal), km.isFinite, km >= 0 else {
            throw .malformed(member: member, problem: "must be null or a finite number of km, not negative")
        }
        if atMostHalfCircumference, km > GreatCircle.maxDistanceKm {
            throw .malformed(member: member, problem: "\(number.literal) is further than any two points on the Earth")
        }
        return km
    }

    private static func optionalString(_ value: JSONValue, member: String) throws(AnimalCursorError) -> String? {
        if value.isNull { return nil }
        guard let text = value.stringValue else { throw .malformed(member: member, problem: "must be null or a string") }
        return text
    }

    private static func key(_ value: JSONValue, hasOrigin: Bool) throws(AnimalCursorError) -> AnimalOrderKey {
        guard case .array(let parts) = value, parts.count == 3 else {
            throw .malformed(member: "after", problem: "must be [distanceKm, submittedAt, id]")
        }
        let distance = try optionalDistance(parts[0], member: "after.distanceKm", atMostHalfCircumference: true)
        if distance != nil, !hasOrigin {
            throw .malformed(member: "after.distanceKm", problem: "is set in a listing without an origin")
        }
        guard let submittedAt = parts[1].stringValue, !submittedAt.isEmpty else {
            throw .malformed(member: "after.submittedAt", problem: "must be a non-empty string")
        }
        guard let id = parts[2].stringValue, !id.isEmpty else {
            throw .malformed(member: "after.id", problem: "must be a non-empty string")
        }
        return AnimalOrderKey(distanceKm: distance, submittedAt: submittedAt, id: id)
    }
}

import PetSpotFlow
import PetSpotJSON
import PetSpotViews

/// A report as the animal list holds it: read once from its stored `values`, with what the
/// daemon knows beside them (its box, life and photo fit for the public), before it is shown
/// to anyone. Everything here is whole; `animal(for:near:)` decides what a caller sees.
public struct StoredAnimal: Sendable, Hashable {
    public let id: String
    /// The `box.name` of the box it was filed at.
    public let box: String
    public private(set) var status: Animal.Status
    /// ISO 8601 UTC, whole seconds ("2026-11-21T13:07:27Z"): text order is time order.
    public let submittedAt: String
    public let updatedAt: String
    public let version: Int
    /// Digits only.
    public let chipNumber: String?
    public let species: String?
    public let race: String?
    public let gender: String?
    public let age: Int?
    public let disappearanceDate: String?
    /// The exact position, 5 decimals.
    public let lastSeen: GeoPoint?
    public let additionalDescription: String?
    public let contactPhone: String?
    public let contactEmail: String?
    /// The photo as stored, from `values.photo`.
    public let photo: Animal.Photo?
    /// A copy of the photo without its metadata (`MetadataFreePhoto`), nil when there is none
    /// or its format cannot be cleaned (HEIC): what the public is shown.
    public let metadataFreePhoto: Animal.Photo?

    public init(
        id: String, box: String, status: Animal.Status, submittedAt: String, updatedAt: String, version: Int,
        values: JSONObject, metadataFreePhoto: Animal.Photo?
    ) throws(StoredValuesError) {
        (self.id, self.box, self.status) = (id, box, status)
        (self.submittedAt, self.updatedAt, self.version) = (submittedAt, updatedAt, version)
        let reader = ValuesReader(values)
        chipNumber = try reader.string(.chipNumber).flatMap { $0.isEmpty ? nil : $0 }
        species = try reader.string(.species)
        race = try reader.string(.race)
        gender = try reader.string(.gender)
        age = try reader.int(.age)
        disappearanceDate = try reader.string(.disappearanceDate)
        lastSeen = try reader.position()
        additionalDescription = try reader.string(.additionalDescription)
        contactPhone = try reader.string(.contactPhone)
        contactEmail = try reader.string(.contactEmail)
        photo = try reader.photo()
        self.metadataFreePhoto = photo == nil ? nil : metadataFreePhoto
    }

    /// The position a caller of this standing is shown and measured from: exact for staff,
    /// rounded to 3 decimals for the public.
    public func lastSeen(for standing: Standing) -> GeoPoint? {
        lastSeen?.rounded(toDecimals: standing.positionDecimals)
    }

    /// Great-circle km from `origin` to the position this standing sees; nil without a position.
    /// The public's distance is from the rounded position, so that no choice of origins can
    /// find the exact one.
    public func distanceKm(from origin: GeoPoint, for standing: Standing) -> Double? {
        lastSeen(for: standing).map { GreatCircle.distanceKm(origin, $0) }
    }
}

/// Reads the members of a stored `values` object; a missing member reads as null.
private struct ValuesReader {
    let values: JSONObject

    init(_ values: JSONObject) { self.values = values }

    func value(_ field: FlowField) -> JSONValue { values[field.rawValue] ?? .null }

    func string(_ field: FlowField) throws(StoredValuesError) -> String? {
        let value = value(field)
        if value.isNull { return nil }
        guard let text = value.stringValue else { throw Self.error(field, "must be a string or null, not \(value.typeName)") }
        return text
    }

    func int(_ field: FlowField) throws(StoredValuesError) -> Int? {
        let value = value(field)
        if value.isNull { return nil }
        guard case .number(let number) = value, let int = number.exactInt else {
            throw Self.error(field, "must be a whole number or null, not \(value.typeName == "a number" ? "a fraction" : value.typeName)")
        }
        return int
    }

    func coordinate(_ field: FlowField) throws(StoredValuesError) -> Coordinate? {
        let value = value(field)
        if value.isNull { return nil }
        guard case .number(let number) = value else { throw Self.error(field, "must be a number or null, not \(value.typeName)") }
        guard let coordinate = Coordinate(number.decimal) else { throw Self.error(field, "\(number.literal) is too large") }
        return coordinate
    }

    func position() throws(StoredValuesError) -> GeoPoint? {
        let latitude = try coordinate(.latitude), longitude = try coordinate(.longitude)
        switch (latitude, longitude) {
        case (nil, nil): return nil
        case (_?, nil): throw Self.error(.longitude, "is null while latitude is set")
        case (nil, _?): throw Self.error(.latitude, "is null while longitude is set")
        case (let latitude?, let longitude?):
            do {
                return try GeoPoint(latitude: latitude, longitude: longitude)
            } catch {
                switch error {
                case .latitudeOutOfRange: throw Self.error(.latitude, "\(latitude.text) is not within -90...90")
                case .longitudeOutOfRange: throw Self.error(.longitude, "\(longitude.text) is not within -180...180")
                }
            }
        }
    }

    /// `{mediaType, bytes, sha256}` as `Photo.metadata` writes it.
    func photo() throws(StoredValuesError) -> Animal.Photo? {
        let value = value(.photo)
        if value.isNull { return nil }
        guard case .object(let photo) = value else { throw Self.error(.photo, "must be an object or null, not \(value.typeName)") }
        guard let mediaType = photo["mediaType"]?.stringValue else { throw Self.error(.photo, "has no mediaType string") }
        guard case .number(let number)? = photo["bytes"], let bytes = number.exactInt, bytes >= 0 else {
            throw Self.error(.photo, "has no whole bytes count")
        }
        guard let sha256 = photo["sha256"]?.stringValue else { throw Self.error(.photo, "has no sha256 string") }
        return Animal.Photo(mediaType: mediaType, bytes: bytes, sha256: sha256)
    }

    static func error(_ field: FlowField, _ problem: String) -> StoredValuesError {
        StoredValuesError("values." + field.rawValue, problem)
    }
}

extension StoredAnimal {
    /// The same report in another status: what it was a moment before a change that only
    /// moved its status (an expiry).
    public func with(status: Animal.Status) -> StoredAnimal {
        var copy = self
        copy.status = status
        return copy
    }
}

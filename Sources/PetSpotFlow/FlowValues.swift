import PetSpotJSON
import PetSpotViews

/// Everything a report holds, each field already normalised by the rules of its step.
public struct FlowValues: Sendable, Hashable {
    /// ASCII digits, at most 15.
    public internal(set) var chipNumber: String?
    public internal(set) var photo: Photo?
    public internal(set) var disappearanceDate: CalendarDate?
    /// An id from the species catalog.
    public internal(set) var species: String?
    public internal(set) var race: String?
    public internal(set) var gender: Gender?
    /// Whole years, 0...40.
    public internal(set) var age: Int?
    public internal(set) var latitude: Coordinate?
    public internal(set) var longitude: Coordinate?
    public internal(set) var additionalDescription: String?
    /// Digits with an optional leading "+".
    public internal(set) var contactPhone: String?
    public internal(set) var contactEmail: String?

    public init() {}

    /// The `values` object of a flow view and of a report: every field present, null when
    /// empty; the photo as its metadata only.
    public var json: JSONValue { .object(jsonObject) }

    public var jsonObject: JSONObject {
        JSONObject(members: FlowField.allCases.map { (key: $0.rawValue, value: json(of: $0)) })
    }

    /// One field's stored value as JSON, null when empty.
    public func json(of field: FlowField) -> JSONValue {
        switch field {
        case .chipNumber: .optional(chipNumber)
        case .photo: photo?.metadata ?? .null
        case .disappearanceDate: .optional(disappearanceDate?.iso)
        case .species: .optional(species)
        case .race: .optional(race)
        case .gender: .optional(gender?.rawValue)
        case .age: .optional(age)
        case .latitude: latitude?.json ?? .null
        case .longitude: longitude?.json ?? .null
        case .additionalDescription: .optional(additionalDescription)
        case .contactPhone: .optional(contactPhone)
        case .contactEmail: .optional(contactEmail)
        }
    }

    /// Empties one field. Race belongs to its species, so it goes with it.
    mutating func clear(_ field: FlowField) {
        switch field {
        case .chipNumber: chipNumber = nil
        case .photo: photo = nil
        case .disappearanceDate: disappearanceDate = nil
        case .species:
            species = nil
            race = nil
        case .race: race = nil
        case .gender: gender = nil
        case .age: age = nil
        case .latitude: latitude = nil
        case .longitude: longitude = nil
        case .additionalDescription: additionalDescription = nil
        case .contactPhone: contactPhone = nil
        case .contactEmail: contactEmail = nil
        }
    }
}

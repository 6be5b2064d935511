import ArgumentParser

/// The fields `petspot reports amend` changes, each by the name of its flag (`--phone`, `--clear
/// phone`), with its name on the wire (`contactPhone`), in the order the report's screens show them.
enum AmendableField: String, CaseIterable, ExpressibleByArgument {
    case chip, photo, date, species, race, gender, age, latitude, longitude
    case additionalDescription = "description"
    case phone, email

    /// The field's name in `values`, as docs/PROTOCOL.md names it.
    var wireName: String {
        switch self {
        case .chip: "chipNumber"
        case .photo: "photo"
        case .date: "disappearanceDate"
        case .species: "species"
        case .race: "race"
        case .gender: "gender"
        case .age: "age"
        case .latitude: "latitude"
        case .longitude: "longitude"
        case .additionalDescription: "additionalDescription"
        case .phone: "contactPhone"
        case .email: "contactEmail"
        }
    }

    init?(wireName: String) {
        guard let field = Self.allCases.first(where: { $0.wireName == wireName }) else { return nil }
        self = field
    }

    /// The flag that sets it.
    var flag: String { "--\(rawValue)" }
}

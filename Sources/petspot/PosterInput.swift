import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

/// The document petspot-poster reads (`petspot-poster --help`), made from what the daemon
/// answered: one of the caller's reports, or an animal of the list as the caller may see it.
/// The poster prints only what is in it, so an animal's masked contact stays masked.
enum PosterInput {
    /// A report's values mapped to the poster's members: additionalDescription → description,
    /// latitude and longitude → lastSeen, contactPhone and contactEmail → contact.
    static func document(report: ReportView, photo: PhotoData?, locale: FlowLocale, speciesName: String?) -> JSONValue {
        let values = report.values
        func value(_ name: String) -> JSONValue { values[name] ?? .null }
        var lastSeen = JSONValue.null
        if case .number(let latitude)? = values["latitude"], case .number(let longitude)? = values["longitude"] {
            lastSeen = ["latitude": .number(latitude), "longitude": .number(longitude)]
        }
        return [
            "id": .string(report.id), "locale": .string(locale.rawValue),
            "species": value("species"), "speciesName": .optional(speciesName),
            "race": value("race"), "gender": value("gender"), "age": value("age"),
            "disappearanceDate": value("disappearanceDate"), "lastSeen": lastSeen,
            "description": value("additionalDescription"),
            "contact": ["phone": value("contactPhone"), "email": value("contactEmail")],
            "chipNumber": value("chipNumber"),
            "photo": photo.map { ["mediaType": .string($0.mediaType), "data": .string($0.data)] } ?? .null,
        ]
    }

    /// An animal as `animals.get` gave it, its photo as `animals.photo` did.
    static func document(animal: Animal, photo: PhotoData?, locale: FlowLocale, speciesName: String?) -> JSONValue {
        [
            "id": .string(animal.id), "locale": .string(locale.rawValue),
            "species": .optional(animal.species), "speciesName": .optional(speciesName),
            "race": .optional(animal.race), "gender": .optional(animal.gender), "age": animal.age.map { .int($0) } ?? .null,
            "disappearanceDate": .optional(animal.disappearanceDate),
            "lastSeen": animal.lastSeen.map { ["latitude": .number($0.latitude), "longitude": .number($0.longitude)] } ?? .null,
            "description": .optional(animal.description),
            "contact": ["phone": .optional(animal.contact.phone), "email": .optional(animal.contact.email)],
            "chipNumber": .optional(animal.chipNumber),
            "photo": photo.map { ["mediaType": .string($0.mediaType), "data": .string($0.data)] } ?? .null,
        ]
    }
}

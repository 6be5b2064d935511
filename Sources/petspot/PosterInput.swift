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
        return document(id: report.id, locale: locale, speciesName: speciesName, photo: photo, Members(
            species: value("species"), race: value("race"), gender: value("gender"), age: value("age"),
            disappearanceDate: value("disappearanceDate"), lastSeen: lastSeen, description: value("additionalDescription"),
            phone: value("contactPhone"), email: value("contactEmail"), chipNumber: value("chipNumber")))
    }

    /// An animal as `animals.get` gave it, its photo as `animals.photo` did.
    static func document(animal: Animal, photo: PhotoData?, locale: FlowLocale, speciesName: String?) -> JSONValue {
        document(id: animal.id, locale: locale, speciesName: speciesName, photo: photo, Members(
            species: .optional(animal.species), race: .optional(animal.race), gender: .optional(animal.gender),
            age: animal.age.map { .int($0) } ?? .null, disappearanceDate: .optional(animal.disappearanceDate),
            lastSeen: animal.lastSeen.map { ["latitude": .number($0.latitude), "longitude": .number($0.longitude)] } ?? .null,
            description: .optional(animal.description), phone: .optional(animal.contact.phone), email: .optional(animal.contact.email),
            chipNumber: .optional(animal.chipNumber)))
    }

    /// What either source gives of the animal, each member as the poster reads it.
    private struct Members {
        let species, race, gender, age, disappearanceDate, lastSeen, description, phone, email, chipNumber: JSONValue
    }

    /// The document, in the order of petspot-poster's help.
    private static func document(id: String, locale: FlowLocale, speciesName: String?, photo: PhotoData?, _ m: Members) -> JSONValue {
        [
            "id": .string(id), "locale": .string(locale.rawValue),
            "species": m.species, "speciesName": .optional(speciesName),
            "race": m.race, "gender": m.gender, "age": m.age,
            "disappearanceDate": m.disappearanceDate, "lastSeen": m.lastSeen,
            "description": m.description,
            "contact": ["phone": m.phone, "email": m.email],
            "chipNumber": m.chipNumber,
            "photo": photo.map { ["mediaType": .string($0.mediaType), "data": .string($0.data)] } ?? .null,
        ]
    }
}

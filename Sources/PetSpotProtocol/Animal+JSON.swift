import PetSpotJSON
import PetSpotViews

// An animal of the animal list on the wire: every member of REPORTS.md always written, null
// when empty, in its order.

extension Animal {
    /// `{id, box, status, chipNumber, species, race, gender, age, disappearanceDate, lastSeen,
    /// distanceKm, description, photo, contact, submittedAt, updatedAt, version}`.
    public var json: JSONValue {
        [
            "id": .string(id),
            "box": .string(box),
            "status": .string(status.rawValue),
            "chipNumber": .optional(chipNumber),
            "species": .optional(species),
            "race": .optional(race),
            "gender": .optional(gender),
            "age": .optional(age),
            "disappearanceDate": .optional(disappearanceDate),
            "lastSeen": lastSeen.map { ["latitude": .number($0.latitude), "longitude": .number($0.longitude)] } ?? .null,
            "distanceKm": distanceKm.map(JSONValue.number) ?? .null,
            "description": .optional(description),
            "photo": photo.map { ["mediaType": .string($0.mediaType), "bytes": .int($0.bytes), "sha256": .string($0.sha256)] } ?? .null,
            "contact": ["phone": .optional(contact.phone), "email": .optional(contact.email)],
            "submittedAt": .string(submittedAt),
            "updatedAt": .string(updatedAt),
            "version": .int(version),
        ]
    }

    /// Reads an animal as a client does; an error names the member at fault.
    public init(json: JSONValue, at location: String = "animal") throws(FlowViewError) {
        try self.init(try WireObject(json, at: location))
    }

    init(_ animal: WireObject) throws(FlowViewError) {
        let lastSeen = try animal.optionalObject("lastSeen")
        let photo = try animal.optionalObject("photo")
        let contact = try animal.object("contact")
        self.init(
            id: try animal.string("id"), box: try animal.string("box"), status: try animal.choice("status", as: Status.self),
            chipNumber: try animal.optionalString("chipNumber"), species: try animal.optionalString("species"),
            race: try animal.optionalString("race"), gender: try animal.optionalString("gender"), age: try animal.optionalInt("age"),
            disappearanceDate: try animal.optionalString("disappearanceDate"),
            lastSeen: try lastSeen.map { (position) throws(FlowViewError) in
                Position(latitude: try position.number("latitude"), longitude: try position.number("longitude"))
            },
            distanceKm: try animal.value("distanceKm").isNull ? nil : try animal.number("distanceKm"),
            description: try animal.optionalString("description"),
            photo: try photo.map { (photo) throws(FlowViewError) in
                Photo(mediaType: try photo.string("mediaType"), bytes: try photo.int("bytes"), sha256: try photo.string("sha256"))
            },
            contact: Contact(phone: try contact.optionalString("phone"), email: try contact.optionalString("email")),
            submittedAt: try animal.string("submittedAt"), updatedAt: try animal.string("updatedAt"), version: try animal.int("version"))
    }
}

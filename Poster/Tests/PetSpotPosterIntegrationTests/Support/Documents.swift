import Foundation
import PetSpotJSON

/// Input documents as petspot hands them over.
enum Documents {
    static let reportID = "3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10"

    /// An animal as the public sees it (masked contact, no chip), in Polish words; `changes`
    /// replace members, or remove them when nil.
    static func publicAnimal(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(reportID)), ("box", "schronisko-1"), ("status", "missing"), ("species", "dog"), ("speciesName", "Pies"),
            ("race", "Jamnik długowłosy"), ("gender", "female"), ("age", 3), ("disappearanceDate", "2026-09-12"),
            ("lastSeen", ["latitude": number("52.22968"), "longitude": number("21.01223")]), ("distanceKm", .null),
            ("description", "Brązowa sierść, żółta obroża z adresówką. Boi się głośnych dźwięków."),
            ("contact", ["phone": "+••••••••789", "email": "j•••@example.org"]), ("chipNumber", .null), ("photo", .null),
            ("submittedAt", "2026-09-12T18:00:00Z"), ("updatedAt", "2026-09-12T18:00:00Z"), ("version", 1),
        ]
        for (key, value) in changes {
            members.removeAll { $0.key == key }
            if let value { members.append((key, value)) }
        }
        return .object(JSONObject(members: members))
    }

    /// The owner's own report: the whole contact and the chip number.
    static func ownReport(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var all: [String: JSONValue?] = [
            "contact": ["phone": "+48123456789", "email": "jan.kowalski@example.org"], "chipNumber": "616093900012345",
        ]
        all.merge(changes) { $1 }
        return publicAnimal(all)
    }

    static func number(_ literal: String) -> JSONValue { .number(JSONNumber(validatedLiteral: literal)) }

    static func photo(_ mediaType: String, _ data: Data) -> JSONValue {
        ["mediaType": .string(mediaType), "data": .string(data.base64EncodedString())]
    }
}

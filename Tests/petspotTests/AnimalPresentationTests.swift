import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@testable import petspot

/// What the `animals` commands make of an animal, and the document the poster commands hand on.
@Suite("Animals and posters as petspot shows them")
struct AnimalPresentationTests {
    static func animal(distance: String? = nil, date: String? = "2026-11-20", contact: Animal.Contact = .init(phone: "+••••••••789", email: nil),
                       position: Animal.Position? = nil) -> Animal {
        Animal(id: "a1", box: "kiosk-7", status: .missing, chipNumber: nil, species: "dog", race: "Beagle", gender: "male", age: 1,
               disappearanceDate: date, lastSeen: position, distanceKm: distance.map(JSONNumber.init(validatedLiteral:)),
               description: nil, photo: nil, contact: contact, submittedAt: "2026-11-21T13:07:27Z", updatedAt: "2026-11-21T13:07:27Z", version: 1)
    }

    @Test("distances: less than 0.1 km, tenths below 10 km, whole kilometres from there, none without a measure",
          arguments: [("0", "< 0.1 km"), ("0.036", "< 0.1 km"), ("0.05", "0.1 km"), ("0.449", "0.4 km"), ("9.94", "9.9 km"),
                      ("9.96", "10.0 km"), ("10", "10 km"), ("252.46", "252 km"), ("20038", "20038 km")])
    func distance(literal: String, words: String) {
        #expect(AnimalRecord(Self.animal(distance: literal)).distance == words)
    }

    @Test("no distance, a date, contacts, gender and age in words")
    func words() {
        let record = AnimalRecord(Self.animal(date: nil, contact: .init(phone: "+••••••••789", email: "j•••@example.pl")))
        #expect(record.distance == "-")
        #expect(record.since == "2026-11-21", "the day it was reported when no date was given")
        #expect(record.contact == "+••••••••789, j•••@example.pl")
        #expect(record.gender == "Male" && record.age == "1 year")
        #expect(AnimalRecord(Self.animal(contact: .init(phone: nil, email: nil))).contact == nil)
    }

    @Test("a report's values become the poster's members; no position and no photo are null")
    func reportDocument() {
        let values: JSONObject = [
            "chipNumber": "616091234567890", "photo": .null, "disappearanceDate": "2026-11-20", "species": "dog", "race": "Beagle",
            "gender": "male", "age": 4, "latitude": .number(JSONNumber(validatedLiteral: "52.22968")), "longitude": .null,
            "additionalDescription": "Brown collar", "contactPhone": .null, "contactEmail": "owner@example.org",
        ]
        let report = ReportView(id: "r1", flowID: "f1", submittedAt: "2026-11-21T13:07:27Z", status: .missing, version: 1,
                                updatedAt: "2026-11-21T13:07:27Z", expiresAt: nil, erased: false, values: values, delivery: .pending)
        let document = PosterInput.document(report: report, photo: nil, locale: .pl, speciesName: "Pies")
        #expect(document == [
            "id": "r1", "locale": "pl", "species": "dog", "speciesName": "Pies", "race": "Beagle", "gender": "male", "age": 4,
            "disappearanceDate": "2026-11-20", "lastSeen": .null, "description": "Brown collar",
            "contact": ["phone": .null, "email": "owner@example.org"], "chipNumber": "616091234567890", "photo": .null,
        ])
    }

    @Test("an animal becomes the poster's document as the caller saw it, its photo as served")
    func animalDocument() {
        let position = Animal.Position(latitude: JSONNumber(validatedLiteral: "52.230"), longitude: JSONNumber(validatedLiteral: "21.012"))
        let document = PosterInput.document(animal: Self.animal(position: position), photo: PhotoData(mediaType: "image/png", data: "iVBO"),
                                            locale: .en, speciesName: nil)
        #expect(document["lastSeen"] == ["latitude": .number(JSONNumber(validatedLiteral: "52.230")), "longitude": .number(JSONNumber(validatedLiteral: "21.012"))])
        #expect(document["contact"] == ["phone": "+••••••••789", "email": .null])
        #expect(document["chipNumber"] == .null && document["speciesName"] == .null && document["age"] == 1)
        #expect(document["photo"] == ["mediaType": "image/png", "data": "iVBO"])
    }
}

import PetSpotJSON
import PetSpotProtocol
import PetSpotViews
import Testing

@Suite("Animal on the wire")
struct AnimalJSONTests {
    static let whole = Animal(
        id: "r-1", box: "kiosk-1", status: .missing, chipNumber: "616093900012345", species: "dog", race: "Beagle", gender: "female",
        age: 4, disappearanceDate: "2026-11-20",
        lastSeen: .init(latitude: JSONNumber(validatedLiteral: "52.22968"), longitude: JSONNumber(validatedLiteral: "21.01223")),
        distanceKm: JSONNumber(validatedLiteral: "252.497"), description: "Red collar",
        photo: .init(mediaType: "image/jpeg", bytes: 2048, sha256: String(repeating: "a", count: 64)),
        contact: .init(phone: "+48123456789", email: "jan@example.pl"),
        submittedAt: "2026-11-21T13:07:27Z", updatedAt: "2026-11-22T08:00:00Z", version: 2)

    static let empty = Animal(
        id: "r-2", box: "kiosk-2", status: .withdrawn, chipNumber: nil, species: "cat", race: nil, gender: nil, age: nil,
        disappearanceDate: "2026-11-20", lastSeen: nil, distanceKm: nil, description: nil, photo: nil,
        contact: .init(phone: nil, email: nil), submittedAt: "2026-11-21T13:07:27Z", updatedAt: "2026-11-21T13:07:27Z", version: 3)

    @Test("exactly REPORTS.md's members, in its order, null when empty", arguments: [whole, empty])
    func members(animal: Animal) {
        #expect(animal.json.objectValue?.keys == [
            "id", "box", "status", "chipNumber", "species", "race", "gender", "age", "disappearanceDate", "lastSeen",
            "distanceKm", "description", "photo", "contact", "submittedAt", "updatedAt", "version",
        ])
        #expect(animal.json["contact"]?.objectValue?.keys == ["phone", "email"])
    }

    @Test("an animal reads back equal from its bytes", arguments: [whole, empty])
    func roundTrip(animal: Animal) throws {
        #expect(try Animal(json: JSONParser.parse(JSONWriter.bytes(animal.json))) == animal)
    }

    @Test("the literals are written as they are held")
    func literals() {
        let text = JSONWriter.string(Self.whole.json)
        #expect(text.contains(#""lastSeen":{"latitude":52.22968,"longitude":21.01223}"#))
        #expect(text.contains(#""distanceKm":252.497"#))
    }

    @Test("a member of the wrong shape is named")
    func wrongShape() {
        var object = Self.whole.json.objectValue!
        object.members = object.members.map { $0.key == "status" ? (key: "status", value: "lost") : $0 }
        #expect(throws: FlowViewError(at: "animal.status", #"must be one of "missing", "found", "withdrawn", "expired", not "lost""#)) {
            try Animal(json: .object(object))
        }
    }
}

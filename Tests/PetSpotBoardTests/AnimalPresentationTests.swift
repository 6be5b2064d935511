import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("What a caller sees of a report")
struct AnimalPresentationTests {
    @Test("the public: no chip, 3 decimals, a masked contact, the metadata-free photo")
    func publicView() {
        let animal = storedAnimal().animal(for: .public, near: point("50.06143", "19.93658"))
        #expect(animal == Animal(
            id: "r-1", box: "kiosk-1", status: .missing, chipNumber: nil, species: "dog", race: "Beagle", gender: "female",
            age: 4, disappearanceDate: "2026-11-20",
            lastSeen: Animal.Position(latitude: JSONNumber(validatedLiteral: "52.230"), longitude: JSONNumber(validatedLiteral: "21.012")),
            distanceKm: JSONNumber(validatedLiteral: "252.527"), description: "Red collar", photo: cleanPhoto,
            contact: Animal.Contact(phone: "+••••••••789", email: "j•••@example.pl"),
            submittedAt: "2026-11-21T13:07:27Z", updatedAt: "2026-11-22T08:00:00Z", version: 2))
    }

    @Test("staff: the chip, 5 decimals, the whole contact, the photo as stored")
    func staffView() {
        let animal = storedAnimal().animal(for: .staff, near: point("50.06143", "19.93658"))
        #expect(animal == Animal(
            id: "r-1", box: "kiosk-1", status: .missing, chipNumber: "616093900012345", species: "dog", race: "Beagle",
            gender: "female", age: 4, disappearanceDate: "2026-11-20",
            lastSeen: Animal.Position(latitude: JSONNumber(validatedLiteral: "52.22968"), longitude: JSONNumber(validatedLiteral: "21.01223")),
            distanceKm: JSONNumber(validatedLiteral: "252.497"), description: "Red collar",
            photo: Animal.Photo(mediaType: "image/jpeg", bytes: 2048, sha256: String(repeating: "a", count: 64)),
            contact: Animal.Contact(phone: "+48123456789", email: "jan.kowalski@example.pl"),
            submittedAt: "2026-11-21T13:07:27Z", updatedAt: "2026-11-22T08:00:00Z", version: 2))
    }

    /// Every exact position in one 3-decimal cell gives the public the same distance from any
    /// origin: moving the origin around cannot narrow the cell down.
    @Test(
        "the public's distances come from the 3-decimal position",
        arguments: [point("52.22968", "21.01223"), point("0", "0"), point("52.2297", "21.0122"), point("-33.86882", "151.20929")])
    func publicDistances(origin: GeoPoint) {
        let cell = ["52.22951", "52.22968", "52.23049"].flatMap { lat in
            ["21.01150", "21.01223", "21.01249"].map { lon in storedAnimal(values: storedValues(latitude: lat, longitude: lon)) }
        }
        let publicDistances = Set(cell.map { $0.distanceKm(from: origin, for: .public) })
        let staffDistances = Set(cell.map { $0.distanceKm(from: origin, for: .staff) })
        #expect(publicDistances.count == 1)
        #expect(staffDistances.count > 1)
        #expect(Set(cell.map { $0.animal(for: .public, near: origin).lastSeen?.latitude.literal }) == ["52.230"])
    }

    @Test(
        "distances are shown in km to 3 decimals, half away from zero",
        arguments: [(0.0, "0.000"), (0.0004999, "0.000"), (0.0005, "0.001"), (1.23456, "1.235"), (252.49739015715943, "252.497"),
                    (20015.114442035923, "20015.114"), (1e-7, "0.000")])
    func distanceText(kilometres: Double, text: String) {
        #expect(StoredAnimal.kilometresLiteral(kilometres).literal == text)
    }

    @Test("without an origin there is no distance; without a position, no lastSeen and no distance")
    func noOrigin() {
        #expect(storedAnimal().animal(for: .public, near: nil).distanceKm == nil)
        let nowhere = storedAnimal(values: storedValues(latitude: nil, longitude: nil))
        let animal = nowhere.animal(for: .staff, near: point("1", "1"))
        #expect(animal.lastSeen == nil && animal.distanceKm == nil)
    }

    @Test("an erased report shows only its species and date; the public gets no photo without a clean copy")
    func erased() {
        let values = storedValues(chipNumber: nil, race: nil, gender: nil, age: nil, latitude: nil, longitude: nil, description: nil,
                                  phone: nil, email: nil, photo: .null)
        let animal = storedAnimal(status: .withdrawn, values: values).animal(for: .public, near: nil)
        #expect(animal.species == "dog" && animal.disappearanceDate == "2026-11-20" && animal.status == .withdrawn)
        #expect(animal.contact == Animal.Contact(phone: nil, email: nil) && animal.photo == nil && animal.race == nil)
        let heic = storedAnimal(metadataFreePhoto: nil)
        #expect(heic.animal(for: .public, near: nil).photo == nil)
        #expect(heic.animal(for: .staff, near: nil).photo?.bytes == 2048)
        // A clean copy handed in for a report that has no photo is not shown.
        #expect(storedAnimal(values: storedValues(photo: .null)).animal(for: .public, near: nil).photo == nil)
    }

    @Test("an empty stored chip number is no chip")
    func emptyChip() {
        #expect(storedAnimal(values: storedValues(chipNumber: "")).animal(for: .staff, near: nil).chipNumber == nil)
    }

    @Test(
        "stored values the board cannot read are an error naming the member",
        arguments: [
            (storedValues(latitude: "52.1", longitude: nil), "values.longitude is null while latitude is set"),
            (storedValues(latitude: nil, longitude: "21"), "values.latitude is null while longitude is set"),
            (storedValues(latitude: "95", longitude: "21"), "values.latitude 95.00000 is not within -90...90"),
            (storedValues(latitude: "5", longitude: "-181"), "values.longitude -181.00000 is not within -180...180"),
            (storedValues(latitude: "1e999", longitude: "21"), "values.latitude 1e999 is too large"),
            (storedValues(photo: "x"), "values.photo must be an object or null, not a string"),
            (storedValues(photo: ["mediaType": "image/png", "bytes": "12", "sha256": "00"]), "values.photo has no whole bytes count"),
            (storedValues(photo: ["bytes": 12, "sha256": "00"]), "values.photo has no mediaType string"),
            (storedValues(photo: ["mediaType": "image/png", "bytes": 12]), "values.photo has no sha256 string"),
        ])
    func unreadable(values: JSONObject, message: String) {
        do {
            _ = try StoredAnimal(id: "r", box: "b", status: .missing, submittedAt: "t", updatedAt: "t", version: 1,
                                 values: values, metadataFreePhoto: nil)
            Issue.record("read without an error")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test("members of the wrong type are named", arguments: [
        ("species", JSONValue.int(3), "values.species must be a string or null, not a number"),
        ("age", JSONValue.number(JSONNumber(validatedLiteral: "2.5")), "values.age must be a whole number or null, not a fraction"),
        ("age", JSONValue.string("4"), "values.age must be a whole number or null, not a string"),
        ("latitude", JSONValue.string("52.1"), "values.latitude must be a number or null, not a string"),
        ("contactEmail", JSONValue.bool(true), "values.contactEmail must be a string or null, not a boolean"),
    ])
    func wrongType(member: String, value: JSONValue, message: String) {
        var values = storedValues()
        values.members = values.members.map { $0.key == member ? (key: member, value: value) : $0 }
        #expect(throws: StoredValuesError(String(message.split(separator: " ")[0]), String(message.split(separator: " ", maxSplits: 1)[1]))) {
            try StoredAnimal(id: "r", box: "b", status: .missing, submittedAt: "t", updatedAt: "t", version: 1, values: values, metadataFreePhoto: nil)
        }
    }

    @Test("a member left out reads as null")
    func missingMember() throws {
        let stored = try StoredAnimal(id: "r", box: "b", status: .missing, submittedAt: "t", updatedAt: "t", version: 1,
                                      values: ["species": "cat"], metadataFreePhoto: nil)
        #expect(stored.species == "cat" && stored.lastSeen == nil && stored.contactPhone == nil)
    }
}

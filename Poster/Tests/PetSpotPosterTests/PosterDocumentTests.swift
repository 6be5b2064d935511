import PetSpotFlow
import PetSpotJSON
import Testing

@testable import PetSpotPoster

@Suite("the input document")
struct PosterDocumentTests {
    /// A whole document; `changes` replace or (with nil) remove members.
    static func document(_ changes: [String: JSONValue?] = [:]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", "3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10"), ("locale", "pl"), ("species", "dog"), ("speciesName", "Pies"),
            ("race", "Jamnik"), ("gender", "female"), ("age", 3), ("disappearanceDate", "2026-09-12"),
            ("lastSeen", ["latitude": .number(JSONNumber(validatedLiteral: "52.22968")), "longitude": .number(JSONNumber(validatedLiteral: "21.01223"))]),
            ("description", "Brązowa sierść"), ("contact", ["phone": "+48123456789", "email": "jan@example.org"]),
            ("chipNumber", "616093900012345"), ("photo", .null),
        ]
        for (key, value) in changes {
            members.removeAll { $0.key == key }
            if let value { members.append((key, value)) }
        }
        return .object(JSONObject(members: members))
    }

    static func error(_ changes: [String: JSONValue?]) -> PosterInputError? {
        do {
            _ = try PosterDocument(json: document(changes))
            return nil
        } catch {
            return error
        }
    }

    @Test("a whole document is read as the daemon wrote it")
    func whole() throws {
        let read = try PosterDocument(json: Self.document())
        #expect(read.id == "3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10")
        #expect(read.locale == .pl)
        #expect(read.gender == .female)
        #expect(read.age == 3)
        #expect(read.disappearanceDate == CalendarDate(year: 2026, month: 9, day: 12))
        #expect(read.lastSeen == PosterDocument.Position(latitude: "52.22968", longitude: "21.01223"))
        #expect(read.contact == PosterDocument.Contact(phone: "+48123456789", email: "jan@example.org"))
        #expect(read.chipNumber == "616093900012345")
        #expect(read.photo == nil)
    }

    @Test("an animal of animals.get passes as it is: its other members are not printed, and absent or null members are nothing")
    func animal() throws {
        let read = try PosterDocument(json: Self.document([
            "box": "vet-kiosk-3", "status": "missing", "distanceKm": 1, "submittedAt": "2026-09-12T10:00:00Z", "version": 2,
            "race": nil, "gender": .null, "age": nil, "lastSeen": .null, "description": "  ", "locale": nil,
        ]))
        #expect(read.race == nil && read.gender == nil && read.age == nil && read.lastSeen == nil && read.description == nil)
        #expect(read.locale == nil)
    }

    @Test("the photo: base64 of a type its bytes confirm")
    func photo() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        let base64 = "iVBORw0KGgoAAAAN"
        let read = try PosterDocument(json: Self.document(["photo": ["mediaType": "image/png", "data": .string(base64)]]))
        #expect(read.photo == PosterDocument.Photo(mediaType: "image/png", bytes: png))
        #expect(Self.error(["photo": ["mediaType": "image/jpeg", "data": .string(base64)]])
            == PosterInputError("photo.mediaType", "says image/jpeg, but the data is image/png"))
        #expect(Self.error(["photo": ["mediaType": "image/png", "data": "not base64!"]]) == PosterInputError("photo.data", "is not base64"))
        #expect(Self.error(["photo": ["mediaType": "image/png", "data": "R0lGODlhAQABAAAAACw="]])
            == PosterInputError("photo.data", "is not a JPEG, PNG, WebP or HEIC image"))
        // animals.get's photo is its metadata; the bytes come from animals.photo.
        #expect(Self.error(["photo": ["mediaType": "image/png", "bytes": 12, "sha256": "ab"]]) == PosterInputError("photo.data", "is missing"))
    }

    @Test(
        "bad input is refused naming the member",
        arguments: [
            (["id": nil], "id"), (["id": 7], "id"), (["species": nil], "species"), (["species": ""], "species"),
            (["locale": "de"], "locale"), (["gender": "unknown"], "gender"), (["age": 41], "age"), (["age": -1], "age"),
            (["age": .number(JSONNumber(validatedLiteral: "2.5"))], "age"), (["age": "3"], "age"),
            (["disappearanceDate": "12.09.2026"], "disappearanceDate"), (["chipNumber": "12345-67890"], "chipNumber"),
            (["chipNumber": "1234567890123456"], "chipNumber"), (["contact": nil], "contact"),
            (["contact": ["phone": .null, "email": .null]], "contact"), (["contact": ["phone": 48123456789]], "contact.phone"),
            (["contact": "jan@example.org"], "contact"), (["lastSeen": ["latitude": 52]], "lastSeen.longitude"),
            (["lastSeen": ["latitude": 91, "longitude": 21]], "lastSeen.latitude"),
            (["lastSeen": ["latitude": 52, "longitude": -181]], "lastSeen.longitude"),
            (["lastSeen": ["latitude": "52.2", "longitude": 21]], "lastSeen.latitude"),
            (["lastSeen": ["latitude": .number(JSONNumber(validatedLiteral: "5.2e1")), "longitude": 21]], "lastSeen.latitude"),
            (["race": .string(String(repeating: "a", count: 101))], "race"), (["race": "Jam\u{1B}[31mnik"], "race"),
            (["description": .string(String(repeating: "ą", count: 501))], "description"),
            (["description": "bell\u{7}"], "description"), (["photo": "data"], "photo"), (["photo": ["data": "iVBORw0KGgoAAAAN"]], "photo.mediaType"),
        ] as [([String: JSONValue?], String)])
    func refused(changes: [String: JSONValue?], member: String) {
        #expect(Self.error(changes)?.member == member)
    }

    @Test("at the edges: 500 characters of description, 100 of race, 15 chip digits and the coordinates' bounds are read")
    func edges() throws {
        let read = try PosterDocument(json: Self.document([
            "description": .string(String(repeating: "ą", count: 499) + "\n"), "race": .string(String(repeating: "ż", count: 100)),
            "chipNumber": "000000000000000", "lastSeen": ["latitude": -90, "longitude": 180],
        ]))
        #expect(read.description?.count == 499)
        #expect(read.race?.count == 100)
        #expect(read.lastSeen == PosterDocument.Position(latitude: "-90", longitude: "180"))
        let lines = try PosterDocument(json: Self.document(["description": .string("a\nb\tc")]))
        #expect(lines.description == "a\nb\tc")
    }

    @Test("text that is not JSON, or not an object, says so")
    func notJSON() {
        #expect(throws: PosterInputError.self) { try PosterDocument(json: Array("{\"id\":".utf8)) }
        #expect((try? PosterDocument(json: Array("[]".utf8))) == nil)
        do {
            _ = try PosterDocument(json: Array("[]".utf8))
        } catch {
            #expect(error.description == "the input must be a JSON object, not an array")
        }
    }

    @Test("plain decimals, as a geo: URI carries them", arguments: [
        ("52.22968", true), ("-0.5", true), ("180", true), ("5.2e1", false), ("52.", false), (".5", false), ("-", false), ("1.2.3", false),
    ])
    func plainDecimal(literal: String, plain: Bool) {
        #expect(PosterDocument.isPlainDecimal(literal) == plain)
    }
}

import PetSpotJSON
import Testing

@testable import PetSpotBoard
@testable import PetSpotFlow

@Suite("Animal list cursor")
struct AnimalCursorTests {
    static let warsaw = point("52.22968", "21.01223")

    static let cursors: [AnimalCursor] = [
        AnimalCursor(query: try! AnimalQuery(origin: nil, radiusKm: nil, species: nil, standing: .public),
                     after: AnimalOrderKey(distanceKm: nil, submittedAt: "2026-11-21T13:07:27Z", id: "0b6f7a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b")),
        AnimalCursor(query: try! AnimalQuery(origin: .near(warsaw), radiusKm: 10, species: "dog", standing: .public),
                     after: AnimalOrderKey(distanceKm: 3.141592653589793, submittedAt: "2026-11-21T13:07:27Z", id: "r-1")),
        AnimalCursor(query: try! AnimalQuery(origin: .box(point("-33.86882", "151.20929")), radiusKm: 0.5, species: nil, standing: .staff),
                     after: AnimalOrderKey(distanceKm: 1e-05, submittedAt: "t", id: "x")),
        AnimalCursor(query: try! AnimalQuery(origin: .near(point("-90", "-180")), radiusKm: nil, species: "kot \"domowy\";💡", standing: .staff),
                     after: AnimalOrderKey(distanceKm: nil, submittedAt: "2026-01-01T00:00:00Z", id: "ünïcødé;id")),
        AnimalCursor(query: try! AnimalQuery(origin: .near(warsaw), radiusKm: 1e300, species: nil, standing: .public),
                     after: AnimalOrderKey(distanceKm: GreatCircle.maxDistanceKm, submittedAt: "s", id: "i")),
        AnimalCursor(query: try! AnimalQuery(origin: .near(warsaw), radiusKm: 0, species: nil, standing: .public),
                     after: AnimalOrderKey(distanceKm: 0, submittedAt: "s", id: "i")),
    ]

    @Test("a cursor reads back as it was made, from base64url text", arguments: cursors)
    func roundTrip(cursor: AnimalCursor) throws {
        let text = cursor.text
        #expect(text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D || byte == 0x5F
        })
        #expect(try AnimalCursor(text: text) == cursor)
    }

    @Test("its text is compact, versioned JSON")
    func format() throws {
        let json = String(decoding: try #require(Base64URL.decode(Self.cursors[1].text)), as: UTF8.self)
        #expect(json == #"[1,"public",["near",52.22968,21.01223],10.0,"dog",[3.141592653589793,"2026-11-21T13:07:27Z","r-1"]]"#)
    }

    static func encoded(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    @Test(
        "a malformed or altered cursor is refused, saying what is wrong",
        arguments: [
            ("", AnimalCursorError.notBase64URL),
            ("not a cursor!", .notBase64URL),
            ("WzEsInB1YmxpYyJd=", .notBase64URL),
            (encoded("hello"), .notCursorText),
            (encoded("{}"), .notCursorText),
            (encoded("[\"1\"]"), .notCursorText),
            (encoded("[1,\"public\""), .notCursorText),
            (encoded("[2,\"public\",null,null,null,[null,\"s\",\"i\"]]"), .unknownVersion("2")),
            (encoded("[1.5]"), .unknownVersion("1.5")),
            (encoded("[1,\"public\"]"), .malformed(member: "text", problem: "has 2 members, not 6")),
            (encoded("[1,\"admin\",null,null,null,[null,\"s\",\"i\"]]"), .malformed(member: "standing", problem: "must be \"public\" or \"staff\"")),
            (encoded("[1,\"public\",[\"here\",1,2],null,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "origin", problem: "must be null, [\"near\", lat, lon] or [\"box\", lat, lon]")),
            (encoded("[1,\"public\",[\"near\",95,2],null,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "origin", problem: "latitude 95.00000 is not within -90...90")),
            (encoded("[1,\"public\",[\"near\",52.229681,2],null,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "origin", problem: "latitude must be a number of at most 5 decimals")),
            (encoded("[1,\"public\",[\"box\",52,\"2\"],null,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "origin", problem: "longitude must be a number of at most 5 decimals")),
            (encoded("[1,\"public\",[\"near\",52,2],-1,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "radiusKm", problem: "must be null or a finite number of km, not negative")),
            (encoded("[1,\"public\",[\"near\",52,2],1e999,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "radiusKm", problem: "must be null or a finite number of km, not negative")),
            (encoded("[1,\"public\",null,5,null,[null,\"s\",\"i\"]]"),
             .malformed(member: "radiusKm", problem: "is set in a listing without an origin")),
            (encoded("[1,\"public\",null,null,7,[null,\"s\",\"i\"]]"), .malformed(member: "species", problem: "must be null or a string")),
            (encoded("[1,\"public\",null,null,null,{}]"), .malformed(member: "after", problem: "must be [distanceKm, submittedAt, id]")),
            (encoded("[1,\"public\",null,null,null,[3,\"s\",\"i\"]]"),
             .malformed(member: "after.distanceKm", problem: "is set in a listing without an origin")),
            (encoded("[1,\"public\",[\"near\",52,2],null,null,[30000,\"s\",\"i\"]]"),
             .malformed(member: "after.distanceKm", problem: "30000 is further than any two points on the Earth")),
            (encoded("[1,\"public\",[\"near\",52,2],null,null,[-0.5,\"s\",\"i\"]]"),
             .malformed(member: "after.distanceKm", problem: "must be null or a finite number of km, not negative")),
            (encoded("[1,\"public\",null,null,null,[null,\"\",\"i\"]]"), .malformed(member: "after.submittedAt", problem: "must be a non-empty string")),
            (encoded("[1,\"public\",null,null,null,[null,\"s\",null]]"), .malformed(member: "after.id", problem: "must be a non-empty string")),
        ])
    func refused(text: String, error: AnimalCursorError) {
        #expect(throws: error) { try AnimalCursor(text: text) }
    }

    @Test("every message names its problem")
    func messages() {
        #expect(AnimalCursorError.notBase64URL.description == "the cursor is not base64url text")
        #expect(AnimalCursorError.unknownVersion("2").description == "the cursor's format version 2 is not the one this daemon reads (1)")
        #expect(AnimalCursorError.malformed(member: "after.id", problem: "must be a non-empty string").description
            == "the cursor's after.id must be a non-empty string")
        #expect(AnimalCursorError.nearChanged(cursor: Self.warsaw, request: nil).description
            == "the cursor was made with near 52.22968, 21.01223, but this request asks without near; give the same near, or no cursor")
        #expect(AnimalCursorError.radiusChanged(cursor: 10, request: 5).description
            == "the cursor was made with radiusKm 10.0, but this request asks with radiusKm 5.0; give the same radiusKm, or no cursor")
        #expect(AnimalCursorError.speciesChanged(cursor: nil, request: "cat").description
            == "the cursor was made without species, but this request asks with species \"cat\"; give the same species, or no cursor")
        #expect(AnimalCursorError.standingChanged(cursor: .public, request: .staff).description
            == "the cursor was made for a public caller, and this caller is staff; ask again without the cursor")
    }

    /// Cursor 1 was made with near Warsaw, 10 km, dogs, for the public.
    @Test(
        "a cursor continues only the listing it was made for",
        arguments: [
            (point("52.22968", "21.01223"), 10.0, "dog", Standing.public, nil as AnimalCursorError?),
            (point("52.229681", "21.012229"), 10.0, "dog", .public, nil),
            (nil, 10.0, "dog", .public, .nearChanged(cursor: warsaw, request: nil)),
            (point("52.22969", "21.01223"), 10.0, "dog", .public, .nearChanged(cursor: warsaw, request: point("52.22969", "21.01223"))),
            (warsaw, nil, "dog", .public, .radiusChanged(cursor: 10, request: nil)),
            (warsaw, 10.5, "dog", .public, .radiusChanged(cursor: 10, request: 10.5)),
            (warsaw, 10.0, nil, .public, .speciesChanged(cursor: "dog", request: nil)),
            (warsaw, 10.0, "cat", .public, .speciesChanged(cursor: "dog", request: "cat")),
            (warsaw, 10.0, "dog", .staff, .standingChanged(cursor: .public, request: .staff)),
        ] as [(GeoPoint?, Double?, String?, Standing, AnimalCursorError?)])
    func continuing(near: GeoPoint?, radiusKm: Double?, species: String?, standing: Standing, error: AnimalCursorError?) throws {
        let cursor = try AnimalCursor(text: Self.cursors[1].text)
        if let error {
            #expect(throws: error) { try cursor.continuing(near: near, radiusKm: radiusKm, species: species, standing: standing) }
        } else {
            #expect(try cursor.continuing(near: near, radiusKm: radiusKm, species: species, standing: standing) == cursor.query)
        }
    }

    @Test("a listing from the box's own position continues without near, from where the box was, not with one")
    func boxOrigin() throws {
        let cursor = try AnimalCursor(text: Self.cursors[2].text)
        let query = try cursor.continuing(near: nil, radiusKm: 0.5, species: nil, standing: .staff)
        #expect(query.origin == .box(point("-33.86882", "151.20929")))
        #expect(throws: AnimalCursorError.nearChanged(cursor: nil, request: point("-33.86882", "151.20929"))) {
            try cursor.continuing(near: point("-33.86882", "151.20929"), radiusKm: 0.5, species: nil, standing: .staff)
        }
    }

    @Test("a listing without an origin continues without near")
    func noOrigin() throws {
        let cursor = try AnimalCursor(text: Self.cursors[0].text)
        #expect(try cursor.continuing(near: nil, radiusKm: nil, species: nil, standing: .public).origin == nil)
        #expect(throws: AnimalCursorError.nearChanged(cursor: nil, request: Self.warsaw)) {
            try cursor.continuing(near: Self.warsaw, radiusKm: nil, species: nil, standing: .public)
        }
    }
}

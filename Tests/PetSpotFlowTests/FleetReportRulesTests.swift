import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotFlow

/// Another box's report read by this box's flow rules before its list shows it: each field as
/// `flow.update` reads it, the photo decoded as an upload, every step as Continue checks it.
@Suite("Reading another box's report by this box's rules")
struct FleetReportRulesTests {
    static let central: JSONObject = [
        "chipNumber": "616091234567890",
        "photo": ["mediaType": "image/png", "bytes": 999, "sha256": "says-anything"],
        "disappearanceDate": "2024-06-10", "species": "dog", "race": "Beagle", "gender": "male", "age": 4,
        "latitude": .number(JSONNumber(validatedLiteral: "52.22968")), "longitude": .number(JSONNumber(validatedLiteral: "21.01223")),
        "additionalDescription": "Brown collar", "contactPhone": "+48601234567", "contactEmail": "owner@example.org",
    ]

    static func read(_ change: (inout JSONObject) -> Void = { _ in }, photo: [UInt8]? = Fixture.Image.png(count: 64)) throws(FlowError) -> FlowValues {
        var values = central
        change(&values)
        return try FleetReportRules.values(values, photoBase64: photo.map(Fixture.base64), env: Fixture.env)
    }

    @Test("a report as the flow stores it reads back the same, its photo described from the bytes that came, not from what the values say")
    func wellFormed() throws {
        let values = try Self.read()
        var expected = Self.central
        expected["photo"] = values.photo?.metadata
        func members(_ object: JSONObject) -> [String: JSONValue] { Dictionary(uniqueKeysWithValues: object.members.map { ($0.key, $0.value) }) }
        #expect(members(values.jsonObject) == members(expected))
        #expect(values.photo?.mediaType == "image/png")
        #expect(values.photo?.byteCount == 64)
        #expect(values.photo?.sha256 == SHA256.hexHash(Fixture.Image.png(count: 64)))
        #expect(try Self.read(photo: nil).photo == nil)
        // The chip number is not required, as in the flow.
        #expect(try Self.read { $0["chipNumber"] = .null }.chipNumber == nil)
    }

    @Test("values normalised as flow.update normalises them: a chip with spaces, a race with blanks, an e-mail with blanks, an age as text")
    func normalised() throws {
        let values = try Self.read {
            $0["chipNumber"] = "616 09 1234 5678 90"
            $0["race"] = "  Beagle "
            $0["contactEmail"] = " owner@example.org "
            $0["age"] = "4"
        }
        #expect(values.chipNumber == "616091234567890")
        #expect(values.race == "Beagle")
        #expect(values.contactEmail == "owner@example.org")
        #expect(values.age == 4)
    }

    @Test("what this box's flow refuses is refused, naming the field", arguments: [
        ("contactEmail", JSONValue.string("\u{1B}]0;pwned\u{07}@example.org"), "values.contactEmail"),
        ("species", "dragon", "values.species"),
        ("age", 400, "values.age"),
        ("latitude", .number(JSONNumber(validatedLiteral: "95")), "values.latitude"),
        ("contactPhone", "call me", "values.contactPhone"),
        ("disappearanceDate", "2999-01-01", "values.disappearanceDate"),
        ("gender", "robot", "values.gender"),
        ("colour", "brown", "values.colour"),
    ] as [(String, JSONValue, String)])
    func refused(field: String, value: JSONValue, parameter: String) {
        #expect {
            _ = try Self.read { $0[field] = value }
        } throws: { error in
            guard case .invalidParams(_, let named)? = error as? FlowError else { return false }
            return named == parameter
        }
    }

    @Test("what a step needs is needed: a missing date or species, a race without its species, one coordinate, no contact", arguments: [
        (["disappearanceDate"], "values.disappearanceDate"),
        (["species", "race"], "values.species"),
        (["race"], "values.race"),
        (["longitude"], "values.longitude"),
        (["contactPhone", "contactEmail"], "values.contactPhone"),
    ])
    func incomplete(cleared: [String], parameter: String) {
        #expect {
            _ = try Self.read { values in for field in cleared { values[field] = .null } }
        } throws: { error in
            guard case .invalidParams(_, let named)? = error as? FlowError else { return false }
            return named == parameter
        }
    }

    @Test("a photo that is no image, or larger than this box takes, is refused as an upload is")
    func photoRefused() {
        #expect(throws: FlowError.self) { _ = try Self.read(photo: Array("not an image at all".utf8)) }
        let small = FlowEnvironment(today: Fixture.today, species: Fixture.species, maxPhotoBytes: 32)
        #expect(throws: FlowError.self) {
            _ = try FleetReportRules.values(Self.central, photoBase64: Fixture.base64(Fixture.Image.png(count: 64)), env: small)
        }
    }
}

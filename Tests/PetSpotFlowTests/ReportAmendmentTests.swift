import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotFlow

/// `reports.amend` by the flow's own rules: every field of steps 1–4 may change, normalised as
/// `flow.update` normalises it; a refused value, or a change that leaves the report incomplete,
/// is one error naming the field, and nothing changes.
@Suite("Amending a stored report")
struct ReportAmendmentTests {
    static let stored: JSONObject = [
        "chipNumber": "616091234567890",
        "photo": ["mediaType": "image/png", "bytes": 128, "sha256": .string(String(repeating: "ab", count: 32))],
        "disappearanceDate": "2024-06-10", "species": "dog", "race": "Beagle", "gender": "male", "age": 4,
        "latitude": .number(JSONNumber(validatedLiteral: "52.22968")), "longitude": .number(JSONNumber(validatedLiteral: "21.01223")),
        "additionalDescription": "Brown collar", "contactPhone": "+48601234567", "contactEmail": "owner@example.org",
    ]

    static func amend(_ values: JSONObject) throws(FlowError) -> JSONObject {
        let stored = FlowValues(stored: Self.stored)!
        return try ReportAmendment.apply(PreparedUpdate(values, env: Fixture.env), to: stored, env: Fixture.env).jsonObject
    }

    @Test("stored values read back as they were written")
    func storedRoundTrip() throws {
        let values = try #require(FlowValues(stored: Self.stored))
        #expect(values.jsonObject == Self.stored)
        #expect(FlowValues(stored: ["colour": "brown"]) == nil)
        #expect(FlowValues(stored: ["age": "four"]) == nil)
    }

    static let acceptedCases: [(JSONObject, String, JSONValue)] = [
        (["contactPhone": "+48 601-234-999"], "contactPhone", "+48601234999"),
        (["chipNumber": "616 0912 3456 0000"], "chipNumber", "616091234560000"),
        (["contactPhone": nil], "contactPhone", nil),
        (["race": "  Basset  "], "race", "Basset"),
        (["latitude": "52,1", "longitude": 21], "latitude", .number(JSONNumber(validatedLiteral: "52.10000"))),
        (["latitude": nil, "longitude": nil], "longitude", nil),
        (["photo": nil], "photo", nil),
        (["age": nil], "age", nil),
        (["gender": "Female"], "gender", "female"),
        // A description is cut to its 500 characters, as on step 3.
        (["additionalDescription": .string(String(repeating: "x", count: 501))], "additionalDescription", .string(String(repeating: "x", count: 500))),
    ]

    @Test("a change is normalised by its field's rule, and the rest stays", arguments: acceptedCases)
    func accepted(values: JSONObject, field: String, expected: JSONValue) throws {
        let amended = try Self.amend(values)
        #expect(amended[field] == expected)
        for (key, value) in Self.stored where values[key] == nil && key != "latitude" && key != "longitude" {
            #expect(amended[key] == value, "\(key) changed")
        }
    }

    @Test("a species changed with a race of its own is taken; changed alone, the race it dropped is required")
    func speciesAndRace() throws {
        let cat = try Self.amend(["species": "cat", "race": "Siamese"])
        #expect(cat["species"] == "cat" && cat["race"] == "Siamese")
        #expect(throws: FlowError.invalidParams(message: "values.race: \(StringCatalog.english.issue(.required(.race)))", parameter: "values.race")) {
            try Self.amend(["species": "cat"])
        }
    }

    static let refusedCases: [(JSONObject, String, FieldIssue)] = [
        (["contactPhone": nil, "contactEmail": nil], "values.contactPhone", .noContact),
        (["species": nil], "values.species", .required(.species)),
        (["gender": nil], "values.gender", .required(.gender)),
        (["disappearanceDate": nil], "values.disappearanceDate", .required(.disappearanceDate)),
        (["disappearanceDate": "2024-06-16"], "values.disappearanceDate", .futureDate),
        (["species": "unicorn"], "values.species", .unknownSpecies),
        (["age": 41], "values.age", .invalidAge),
        (["latitude": nil], "values.latitude", .missingCoordinate(.latitude)),
        (["latitude": 200], "values.latitude", .outOfRange(.latitude)),
        (["contactEmail": "not an address"], "values.contactEmail", .email(.malformed)),
    ]

    @Test("a refused value or an incomplete report is one error naming the field, with the flow's own words", arguments: refusedCases)
    func refused(values: JSONObject, parameter: String, issue: FieldIssue) {
        #expect(throws: FlowError.invalidParams(message: "\(parameter): \(StringCatalog.english.issue(issue))", parameter: parameter)) {
            try Self.amend(values)
        }
    }

    static let protocolCases: [(JSONObject, String)] = [
        (["colour": "brown"], "values.colour"),
        (["age": true], "values.age"),
        (["photo": ["data": "iVBORw0KGgo=", "name": "x.png"]], "values.photo.name"),
        ([:], "values"),
    ]

    @Test("what the protocol refuses is refused as flow.update refuses it", arguments: protocolCases)
    func protocolRefusals(values: JSONObject, parameter: String) {
        #expect {
            try Self.amend(values)
        } throws: { error in
            guard case .invalidParams(_, let named) = error as? FlowError else { return false }
            return named == parameter
        }
    }

    @Test("a rule of a field the amendment does not touch does not refuse it: a species since dropped from the catalog")
    func untouchedRules() throws {
        var stored = Self.stored
        stored["species"] = "ferret"
        stored["race"] = nil
        let values = try #require(FlowValues(stored: stored))
        let amended = try ReportAmendment.apply(PreparedUpdate(["contactPhone": "+48 600 000 000"], env: Fixture.env), to: values, env: Fixture.env)
        #expect(amended.contactPhone == "+48600000000" && amended.species == "ferret")
    }
}

import PetSpotJSON
import Testing

@testable import PetSpotFlow

/// FLOW.md: a refused value replaces what the field held. The field is empty, shows what was
/// sent and its error, and Continue stays refused until the field gets a valid value or, if
/// optional, is cleared. A report never carries a value the person tried to replace.
@Suite("Refused values")
struct RefusedValueTests {
    /// One field that can refuse a value at once.
    struct Case: Sendable, CustomTestStringConvertible {
        let field: FlowField
        /// Makes the rest of the step valid.
        let rest: String
        /// An accepted value, which the refused one must replace.
        let accepted: String
        let refused: String
        let issue: FieldIssue
        /// The field's `display` after the refusal: what was sent.
        let display: String?
        /// Empties the field (both coordinates, which go as a pair); nil when it is required.
        let clear: String?
        /// A valid value that lets Continue through again.
        let fix: String

        var testDescription: String { field.rawValue }
    }

    static let jpeg = Fixture.base64(Fixture.Image.jpeg())
    static let png = Fixture.base64(Fixture.Image.png())
    static let description = #""species": "dog", "race": "Labrador", "gender": "female""#
    static let longRace = String(repeating: "x", count: 101)

    static let cases: [Case] = [
        Case(field: .photo, rest: "{}",
             accepted: #"{"photo": {"data": "\#(jpeg)", "filename": "rex.jpg"}}"#,
             refused: #"{"photo": {"data": "%%%%", "filename": "/home/anna/notes.txt"}}"#,
             issue: .photo(.notBase64), display: "notes.txt",
             clear: #"{"photo": null}"#, fix: #"{"photo": {"data": "\#(png)"}}"#),
        Case(field: .disappearanceDate, rest: "{\(description)}",
             accepted: #"{"disappearanceDate": "2024-06-01"}"#, refused: #"{"disappearanceDate": "2030-01-01"}"#,
             issue: .futureDate, display: "2030-01-01",
             clear: nil, fix: #"{"disappearanceDate": "2024-06-02"}"#),
        Case(field: .disappearanceDate, rest: "{\(description)}",
             accepted: #"{"disappearanceDate": "2024-06-01"}"#, refused: #"{"disappearanceDate": "15.06.2024"}"#,
             issue: .notADate, display: "15.06.2024",
             clear: nil, fix: #"{"disappearanceDate": "2024-06-02"}"#),
        Case(field: .species, rest: "{\(description)}",
             accepted: #"{"species": "cat"}"#, refused: #"{"species": "unicorn"}"#,
             issue: .unknownSpecies, display: "unicorn",
             clear: nil, fix: #"{"species": "dog", "race": "Beagle"}"#),
        Case(field: .race, rest: "{\(description)}",
             accepted: #"{"race": "Beagle"}"#, refused: #"{"race": "\#(longRace)"}"#,
             issue: .tooLong(maximum: 100), display: longRace,
             clear: nil, fix: #"{"race": "Spaniel"}"#),
        Case(field: .gender, rest: "{\(description)}",
             accepted: #"{"gender": "male"}"#, refused: #"{"gender": "unknown"}"#,
             issue: .unknownGender, display: "unknown",
             clear: nil, fix: #"{"gender": "female"}"#),
        Case(field: .age, rest: "{\(description)}",
             accepted: #"{"age": 40}"#, refused: #"{"age": -1}"#,
             issue: .invalidAge, display: "-1",
             clear: #"{"age": null}"#, fix: #"{"age": "3"}"#),
        Case(field: .age, rest: "{\(description)}",
             accepted: #"{"age": 40}"#, refused: #"{"age": "2.5"}"#,
             issue: .invalidAge, display: "2.5",
             clear: #"{"age": ""}"#, fix: #"{"age": 3}"#),
        Case(field: .latitude, rest: "{\(description)}",
             accepted: #"{"latitude": -33.86882, "longitude": 151.2093}"#, refused: #"{"latitude": 90.5}"#,
             issue: .outOfRange(.latitude), display: "90.5",
             clear: #"{"latitude": null, "longitude": null}"#, fix: #"{"latitude": "-33.5"}"#),
        Case(field: .longitude, rest: "{\(description)}",
             accepted: #"{"latitude": -33.86882, "longitude": 151.2093}"#, refused: #"{"longitude": "east"}"#,
             issue: .notANumber, display: "east",
             clear: #"{"latitude": null, "longitude": null}"#, fix: #"{"longitude": 151}"#),
        Case(field: .contactPhone, rest: #"{"contactEmail": "owner@example.com"}"#,
             accepted: #"{"contactPhone": "+48 600 700 800"}"#, refused: #"{"contactPhone": "12"}"#,
             issue: .phone(.digitCount), display: "12",
             clear: #"{"contactPhone": null}"#, fix: #"{"contactPhone": "600700800"}"#),
        Case(field: .contactEmail, rest: #"{"contactPhone": "+48600700800"}"#,
             accepted: #"{"contactEmail": "owner@example.com"}"#, refused: #"{"contactEmail": "owner at example"}"#,
             issue: .email(.malformed), display: "owner at example",
             clear: #"{"contactEmail": null}"#, fix: #"{"contactEmail": "vet@example.com"}"#),
    ]

    /// A flow on the field's step with the rest of the step valid and the field accepted.
    private func flowWithAccepted(_ c: Case) throws -> Flow {
        var flow = try Fixture.flow(at: c.field.step)
        try flow.update(c.rest)
        try flow.update(c.accepted)
        try #require(flow.values.json(of: c.field) != .null, "the accepted value was not stored")
        return flow
    }

    @Test("the refused value empties the field and shows what was sent, with its error", arguments: cases)
    func replaces(_ c: Case) throws {
        var flow = try flowWithAccepted(c)
        try flow.update(c.refused)
        #expect(flow.values.json(of: c.field) == .null)
        let field = try #require(flow.field(c.field))
        #expect(field["value"] == .null)
        #expect(field["display"] == .optional(c.display))
        #expect(field["error"] == .string(StringCatalog.english.issue(c.issue)))
        #expect(flow.view()["values"]?[c.field.rawValue] == .null)
    }

    @Test("Continue stays refused, with the toast, and again after leaving and coming back", arguments: cases)
    func continueRefused(_ c: Case) throws {
        var flow = try flowWithAccepted(c)
        try flow.update(c.refused)
        #expect(try !flow.continueStep(env: Fixture.env))
        #expect(flow.step == c.field.step)
        #expect(flow.toast == .string(StringCatalog.english.toast))
        #expect(flow.error(of: c.field) == StringCatalog.english.issue(c.issue))

        try flow.back()
        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.step == c.field.step)
        #expect(flow.error(of: c.field) == StringCatalog.english.issue(c.issue), "the refusal outlives the visit")
        #expect(try !flow.continueStep(env: Fixture.env))
    }

    @Test("a valid value lets Continue through, and the report holds that value", arguments: cases)
    func fixed(_ c: Case) throws {
        var flow = try flowWithAccepted(c)
        let accepted = flow.values.json(of: c.field)
        try flow.update(c.refused)
        try flow.update(c.fix)
        #expect(flow.error(of: c.field) == nil)
        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.values.json(of: c.field) != .null)
        #expect(flow.values.json(of: c.field) != accepted)
    }

    @Test("an optional field that is cleared lets Continue through, empty", arguments: cases.filter { $0.clear != nil })
    func clearedOptional(_ c: Case) throws {
        var flow = try flowWithAccepted(c)
        try flow.update(c.refused)
        try flow.update(try #require(c.clear))
        #expect(flow.error(of: c.field) == nil)
        #expect(flow.field(c.field)?["display"] == .null)
        #expect(try flow.continueStep(env: Fixture.env))
        #expect(flow.values.json(of: c.field) == .null)
    }

    @Test("a required field that is cleared still stops Continue", arguments: cases.filter { $0.clear == nil })
    func clearedRequired(_ c: Case) throws {
        var flow = try flowWithAccepted(c)
        try flow.update(c.refused)
        try flow.update(#"{"\#(c.field.rawValue)": null}"#)
        #expect(try !flow.continueStep(env: Fixture.env))
        #expect(flow.error(of: c.field) == StringCatalog.english.issue(.required(c.field)))
    }

    @Test("a refused latitude never pairs the old latitude with a new longitude")
    func coordinatePair() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(#"{"latitude": -33.86882, "longitude": 151.2093}"#)
        try flow.update(#"{"latitude": 90.5, "longitude": 0}"#)
        #expect(flow.values.latitude == nil)
        #expect(flow.values.longitude?.text == "0.00000")
        #expect(try !flow.continueStep(env: Fixture.env))
    }

    @Test("a location fix replaces refused coordinates")
    func locationFixAnswersRefusal() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(#"{"latitude": 200, "longitude": "x"}"#)
        try flow.applyLocation(.fix(LocationTests.fix("52.22977", "21.01178")))
        #expect(flow.error(of: .latitude) == nil)
        #expect(flow.error(of: .longitude) == nil)
        #expect(try flow.continueStep(env: Fixture.env))
    }

    @Test("a race refused before a species goes once a species is chosen; a refused species empties the race")
    func raceFollowsSpecies() throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"race": "Labrador"}"#)
        #expect(flow.error(of: .race) == StringCatalog.english.issue(.speciesFirst))
        #expect(flow.field(.race)?["display"] == "Labrador")
        try flow.update(#"{"species": "dog"}"#)
        #expect(flow.error(of: .race) == nil)
        #expect(flow.field(.race)?["display"] == .null)

        try flow.update(#"{"race": "Labrador"}"#)
        try flow.update(#"{"species": "unicorn"}"#)
        #expect(flow.values.species == nil)
        #expect(flow.values.race == nil)
    }

    @Test("what was sent is echoed up to a bounded number of characters")
    func longEcho() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        let sent = String(repeating: "ż", count: FieldRefusal.maxSentLength + 1)
        try flow.update(#"{"gender": "\#(sent)"}"#)
        #expect(flow.field(.gender)?["display"] == .string(String(sent.prefix(FieldRefusal.maxSentLength))))
    }
}

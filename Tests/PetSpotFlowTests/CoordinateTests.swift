import PetSpotJSON
import PetSpotViews
import Testing

@testable import PetSpotFlow

@Suite("Coordinates")
struct CoordinateTests {
    let strings = StringCatalog.english

    @Test(
        "latitude: range checked on the exact value, then rounded half away from zero to 5 decimals",
        arguments: [
            ("90", "90.00000"),
            ("-90", "-90.00000"),
            ("52.2296756", "52.22968"),
            ("-33.8688197", "-33.86882"),
            ("0.000005", "0.00001"),
            ("-0.000005", "-0.00001"),
            ("0.0000049", "0.00000"),
            ("-0.0000049", "0.00000"),
            ("89.999995", "90.00000"),
            ("5222968e-5", "52.22968"),
            (#"" 52.1 ""#, "52.10000"),
            (#""52,1""#, "52.10000"),
            (#""+52.1""#, "52.10000"),
            (#""-.5""#, "-0.50000"),
        ])
    func latitudeAccepted(json: String, text: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"latitude": \#(json)}"#)
        #expect(flow.values.latitude?.text == text)
        #expect(flow.field(.latitude)?["display"] == .string(text))
        #expect(JSONWriter.string(flow.view()["values"]?["latitude"] ?? .null) == text)
    }

    @Test(
        "latitude outside -90...90 is refused, even when it would round into range",
        arguments: ["90.00001", "-90.00001", "90.000001", "200", "1e2", #""91""#])
    func latitudeOutOfRange(json: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"latitude": 10}"#)
        try flow.update(#"{"latitude": \#(json)}"#)
        #expect(flow.values.latitude == nil, "the refused value replaces 10")
        #expect(flow.error(of: .latitude) == strings.issue(.outOfRange(.latitude)))
    }

    @Test(
        "longitude: -180...180",
        arguments: [
            ("180", "180.00000"), ("-180", "-180.00000"), ("151.2092955", "151.20930"), (#""21.0122287""#, "21.01223"),
        ])
    func longitudeAccepted(json: String, text: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"longitude": \#(json)}"#)
        #expect(flow.values.longitude?.text == text)
    }

    @Test("longitude outside -180...180 is refused", arguments: ["180.00001", "-180.00001", "360"])
    func longitudeOutOfRange(json: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"longitude": \#(json)}"#)
        #expect(flow.values.longitude == nil)
        #expect(flow.error(of: .longitude) == strings.issue(.outOfRange(.longitude)))
    }

    @Test("text that is not a number is refused", arguments: [#""north""#, #""52.1.2""#, #""1,2,3""#, #""52°""#, #""0x10""#])
    func notANumber(json: String) throws {
        var flow = try Fixture.flow(at: .description)
        try flow.update(#"{"latitude": \#(json)}"#)
        #expect(flow.values.latitude == nil)
        #expect(flow.error(of: .latitude) == strings.issue(.notANumber))
    }

    @Test(
        "both or neither at Continue",
        arguments: [
            (#"{"latitude": 52.1}"#, FlowField.longitude, FieldIssue.missingCoordinate(.longitude)),
            (#"{"longitude": 21.0}"#, .latitude, .missingCoordinate(.latitude)),
        ])
    func bothOrNeither(values: String, field: FlowField, issue: FieldIssue) throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        try flow.update(values)
        #expect(try flow.continueStep(env: Fixture.env) == false)
        #expect(flow.error(of: field) == strings.issue(issue))

        try flow.update(#"{"latitude": 52.1, "longitude": 21.0}"#)
        #expect(try flow.continueStep(env: Fixture.env))
    }

    @Test("no coordinates at all is fine")
    func neither() throws {
        var flow = try Fixture.flow(at: .description, filled: true)
        #expect(try flow.continueStep(env: Fixture.env))
    }

    @Test(
        "the text always has 5 decimals",
        arguments: [(5_222_968, "52.22968"), (-1, "-0.00001"), (9_000_000, "90.00000"), (0, "0.00000"), (-18_000_000, "-180.00000")])
    func text(scaled: Int, text: String) {
        let coordinate = Coordinate(scaled: scaled)
        #expect(coordinate.text == text)
        #expect(coordinate.json == .number(JSONNumber(validatedLiteral: text)))
        #expect(coordinate.degrees == Double(text))
    }

    @Test("rounding works on the exact decimal, not on a Double")
    func exactRounding() throws {
        // 1.000005 is 1.00000499999999... as a Double; the decimal literal rounds up.
        let decimal = try #require(DecimalLiteral(parsing: "1.000005"))
        #expect(Coordinate(decimal)?.text == "1.00001")
    }
}

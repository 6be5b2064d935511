import PetSpotClient
import PetSpotJSON
import Testing

/// FLOW.md, step 3: a refused value replaces what the field held, over the socket too, and
/// the stored report never carries the value the person tried to replace.
@Suite("Refused values over the socket", .serialized)
struct RefusedValueSocketTests {
    @Test("a refused age, coordinate pair or date empties the field; Continue waits for a valid value")
    func refusedValuesNeverLetOldOnesThrough() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")["flow"]!["id"]!
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        _ = try conn.result("flow.update", ["flowId": flowID, "values": [
            "species": "dog", "race": "Beagle", "gender": "male", "age": 40,
            "latitude": .number(JSONNumber(validatedLiteral: "-33.86882")),
            "longitude": .number(JSONNumber(validatedLiteral: "151.2093")),
        ]])

        let refused = try conn.result("flow.update", ["flowId": flowID, "values": [
            "age": -1, "latitude": .number(JSONNumber(validatedLiteral: "90.5")), "longitude": 0,
            "disappearanceDate": "2999-01-01",
        ]])["flow"]!
        for (name, sent) in [("age", "-1"), ("latitude", "90.5"), ("disappearanceDate", "2999-01-01")] {
            let field = try #require(refused.field(name))
            #expect(field["value"] == .null, "\(name) still holds a value")
            #expect(field["display"] == .string(sent))
            #expect(field["error"]?.stringValue != nil, "\(name) shows no error")
        }

        let stays = try conn.result("flow.continue", ["flowId": flowID])
        #expect(stays["accepted"] == false)
        #expect(stays[path: "flow", "screen", "toast"] == "Some information must be corrected")

        // The person fixes the date and clears the optional age and coordinates.
        _ = try conn.result("flow.update", ["flowId": flowID, "values": [
            "disappearanceDate": "2024-06-01", "age": .null, "latitude": .null, "longitude": .null,
        ]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["contactEmail": "owner@example.org"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        let values = try #require(try conn.result("flow.submit", ["flowId": flowID])[path: "report", "values"])
        #expect(values["age"] == .null)
        #expect(values["latitude"] == .null)
        #expect(values["longitude"] == .null)
        #expect(values["disappearanceDate"] == "2024-06-01")
    }
}

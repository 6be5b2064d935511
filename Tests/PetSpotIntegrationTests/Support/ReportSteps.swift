import Foundation
import PetSpotClient
import PetSpotJSON

/// The smallest PNG header: the flow decides the type by these bytes.
let pngBytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 120)

extension JSONValue {
    /// The field of the flow view's screen with this name.
    func field(_ name: String) -> JSONValue? {
        self["screen"]?["fields"]?.arrayValue?.first { $0["name"] == .string(name) }
    }
}

/// Walks a flow from start to submit with valid values; returns the flow id and the answer of submit.
@discardableResult
func fileReport(_ conn: PetSpotConnection, chip: String = "616 09 1234 5678 9", locale: String = "en", description: String = "Brown collar") throws -> (flowID: String, submit: JSONValue) {
    let id = try prepareReport(conn, chip: chip, locale: locale, description: description)
    let submit = try conn.result("flow.submit", ["flowId": .string(id)])
    return (id, submit)
}

/// Walks a flow with valid values up to the summary, where it can be submitted; returns its id.
func prepareReport(_ conn: PetSpotConnection, chip: String = "616 09 1234 5678 9", locale: String = "en", description: String = "Brown collar") throws -> String {
    let flow = try conn.result("flow.start", ["locale": .string(locale)])["flow"]!
    let id = flow["id"]!.stringValue!
    try walkToSummary(conn, id, chip: chip, description: description)
    return id
}

/// Fills in the flow `id` (on its first step) with valid values up to the summary.
func walkToSummary(_ conn: PetSpotConnection, _ id: String, chip: String = "616 09 1234 5678 9", description: String = "Brown collar") throws {
    let flowID = JSONValue.string(id)
    _ = try conn.result("flow.update", ["flowId": flowID, "values": ["chipNumber": .string(chip)]])
    try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
    _ = try conn.result("flow.update", ["flowId": flowID, "values": ["photo": ["data": .string(Data(pngBytes).base64EncodedString()), "filename": "rex.jpg"]]])
    try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
    _ = try conn.result("flow.update", ["flowId": flowID, "values": [
        "species": "dog", "race": "  Beagle ", "gender": "male", "age": "4",
        "latitude": "52.2296756", "longitude": .number(JSONNumber(validatedLiteral: "21.0122287")),
        "additionalDescription": .string(description),
    ]])
    try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
    _ = try conn.result("flow.update", ["flowId": flowID, "values": ["contactPhone": "+48 (12) 345-67-89", "contactEmail": " owner@example.org "]])
    try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
}

struct NotAccepted: Error, CustomStringConvertible {
    let description: String
}

func expectAccepted(_ answer: JSONValue) throws {
    guard answer["accepted"] == .bool(true) else {
        throw NotAccepted(description: "continue was refused: \(JSONWriter.string(answer))")
    }
}

/// Every report of the connection's user, newest first, read page by page.
func allReportIDs(_ conn: PetSpotConnection, pageSize: Int = 100) throws -> [String] {
    var ids: [String] = []
    var cursor: JSONValue = .null
    repeat {
        var params: JSONObject = ["limit": .number(JSONNumber(pageSize))]
        if cursor != .null { params["cursor"] = cursor }
        let page = try conn.result("reports.list", params)
        ids += page["reports"]!.arrayValue!.map { $0["id"]!.stringValue! }
        cursor = page["cursor"]!
    } while cursor != .null
    return ids
}

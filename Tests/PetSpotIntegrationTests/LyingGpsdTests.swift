import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// The gpsd provider against a gpsd that lies (`FakeGpsd`): the daemon stays up and answering,
/// never serves a position it was not given as a valid fix, and recovers when gpsd tells the truth.
@Suite("A gpsd that lies", .serialized)
struct LyingGpsdTests {
    static let lies: [FakeGpsd.Mode] = [.stall, .garbage, .truncated, .nan, .outOfRange, .hugeLine]

    /// The truth as the daemon serves it: rounded to 5 decimals.
    static let truthLatitude = "52.22968", truthLongitude = "21.01223"

    func location(_ conn: PetSpotConnection, timeoutMs: Int = 300) throws -> JSONValue {
        try conn.result("location.current", ["timeoutMs": .int(timeoutMs)])["location"]!
    }

    /// A position, if any, must be the true one; returns whether there was one.
    @discardableResult
    func expectNoBogusFix(_ location: JSONValue, during mode: FakeGpsd.Mode) -> Bool {
        guard location["status"] == "ok" else {
            #expect(["timeout", "unavailable"].contains(location["status"]?.stringValue ?? ""), "\(mode): \(JSONWriter.string(location))")
            #expect(location["fix"] == nil || location["fix"] == .null, "\(mode): \(JSONWriter.string(location))")
            // Said in words a person can act on.
            let words = location["message"]?.stringValue ?? ""
            #expect(!words.isEmpty, "\(mode): \(JSONWriter.string(location))")
            return false
        }
        #expect(location[path: "fix", "latitude"].map(JSONWriter.string) == Self.truthLatitude, "\(mode): \(JSONWriter.string(location))")
        #expect(location[path: "fix", "longitude"].map(JSONWriter.string) == Self.truthLongitude, "\(mode): \(JSONWriter.string(location))")
        return true
    }

    /// Waits until the fake has sent `count` more of `mode` (or, for a stall, kept silent that
    /// many of its ticks) than `base`.
    func waitForLies(_ gpsd: FakeGpsd, _ mode: FakeGpsd.Mode, from base: Int, count: Int) throws {
        try waitUntil("the fake gpsd to send \(count) × \(mode)", seconds: 30) { gpsd.sentCount(mode) >= base + count }
    }

    /// A flow on the description step, where location can be asked for.
    func flowAtDescription(_ conn: PetSpotConnection) throws -> JSONValue {
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["chipNumber": "616 09 1234 5678 9"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        return flowID
    }

    @Test("stall, garbage, truncated JSON, NaN and impossible positions, a 6 MiB line: no position is served, the daemon answers on, and each time recovers when gpsd tells the truth")
    func lies() throws {
        let gpsd = try FakeGpsd(mode: .stall)
        defer { gpsd.stop() }
        let daemon = try DaemonProcess(settings: ["location": ["maxAgeMs": 500, "gpsd": ["reconnectMaxMs": 500]]],
                                       arguments: ["--location-providers", "gpsd", "--gpsd", gpsd.endpoint]).start()
        let conn = try daemon.connect()
        let flowID = try flowAtDescription(conn)

        // From the start: no fix has ever been true, so none may be served.
        for mode in Self.lies {
            let base = gpsd.set(mode)
            try waitForLies(gpsd, mode, from: base, count: mode == .hugeLine ? 1 : 4)
            #expect(!expectNoBogusFix(try location(conn), during: mode), "\(mode): a position was served before gpsd ever told one")
            let asked = try conn.result("flow.requestLocation", ["flowId": flowID, "timeoutMs": 300])
            #expect(!expectNoBogusFix(asked["location"]!, during: mode))
            #expect(asked[path: "flow", "values", "latitude"] == .null, "\(mode): \(JSONWriter.string(asked))")
            #expect(try conn.result("daemon.info")["name"] == "petspotd")
        }

        // After each lie the truth again: found, and then lost once only lies come.
        for mode in Self.lies {
            gpsd.set(.truth)
            try waitUntil("the true position after \(mode)", seconds: 30) { expectNoBogusFix(try location(conn, timeoutMs: 1000), during: .truth) }
            let base = gpsd.set(mode)
            try waitUntil("the position to go stale under \(mode)", seconds: 30) { !expectNoBogusFix(try location(conn), during: mode) }
            try waitForLies(gpsd, mode, from: base, count: mode == .hugeLine ? 1 : 4)
            #expect(!expectNoBogusFix(try location(conn), during: mode))
        }

        gpsd.set(.truth)
        try waitUntil("the true position at the end", seconds: 30) { expectNoBogusFix(try location(conn, timeoutMs: 1000), during: .truth) }
        let found = try conn.result("flow.requestLocation", ["flowId": flowID, "timeoutMs": 1000])
        #expect(found[path: "location", "status"] == "ok")
        #expect(found[path: "flow", "values", "latitude"].map(JSONWriter.string) == Self.truthLatitude)
        #expect(found[path: "flow", "values", "longitude"].map(JSONWriter.string) == Self.truthLongitude)
        #expect(daemon.process?.isRunning == true)
        #expect(try daemon.stop() == 0)
    }
}

import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
import PetSpotTestSupport
import Testing

/// A report's life after submit over a real socket: its owner amends, renews, closes and
/// erases it; every refusal names what is wrong and changes nothing; the owner's watch hears of
/// each change; an erasure leaves the disk; retention expires and erases on its own.
@Suite("A report's life over the socket", .serialized)
struct ReportLifeSocketTests {
    static func reportID(_ submit: JSONValue) throws -> JSONValue {
        try #require(submit[path: "report", "id"])
    }

    @Test("amend, renew, close, erase: each a new version with the flow's normalisation; the same close again, and an erasure again, change nothing")
    func wholeLife() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let id = try Self.reportID(try fileReport(conn).submit)
        let filed = try conn.result("reports.get", ["reportId": id])["report"]!
        #expect(filed["status"] == "missing" && filed["version"] == 1 && filed["erased"] == false)
        #expect(filed["updatedAt"] == filed["submittedAt"])
        #expect(filed["expiresAt"]?.stringValue != nil)

        let amended = try conn.result("reports.amend", ["reportId": id, "values": ["contactPhone": "+48 601-234-999", "age": nil]])["report"]!
        #expect(amended["version"] == 2 && amended["status"] == "missing")
        #expect(amended[path: "values", "contactPhone"] == "+48601234999" && amended[path: "values", "age"] == .null)
        #expect(amended[path: "values", "contactEmail"] == filed[path: "values", "contactEmail"])

        // The same values again change nothing.
        let same = try conn.result("reports.amend", ["reportId": id, "values": ["contactPhone": "+48601234999"]])["report"]!
        #expect(same["version"] == 2)

        let renewed = try conn.result("reports.renew", ["reportId": id])["report"]!
        #expect(renewed["version"] == 3 && renewed["status"] == "missing")
        #expect((renewed["expiresAt"]?.stringValue ?? "") >= (filed["expiresAt"]?.stringValue ?? "~"))

        let found = try conn.result("reports.close", ["reportId": id, "outcome": "found"])["report"]!
        #expect(found["version"] == 4 && found["status"] == "found" && found["expiresAt"] == .null)
        #expect(try conn.result("reports.close", ["reportId": id, "outcome": "found"])["report"] == found)

        let erased = try conn.result("reports.erase", ["reportId": id])["report"]!
        #expect(erased["version"] == 5 && erased["status"] == "found" && erased["erased"] == true)
        let values = try #require(erased["values"]?.objectValue)
        #expect(values.keys == filed["values"]?.objectValue?.keys)
        for member in values {
            let kept = ["species", "disappearanceDate"].contains(member.key)
            #expect(kept ? member.value == filed[path: "values", member.key] : member.value == .null, "\(member.key)")
        }
        #expect(try conn.result("reports.erase", ["reportId": id])["report"] == erased)
        #expect(try conn.result("reports.get", ["reportId": id])["report"] == erased)
    }

    @Test("refusals name what is wrong and change nothing: a closed report, an erased one, a refused value, an unknown member, a wrong outcome")
    func refusals() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let id = try Self.reportID(try fileReport(conn).submit)

        let email = try conn.failure("reports.amend", ["reportId": id, "values": ["contactEmail": "not an address"]])
        #expect(email.kind == .invalidParams && email.parameter == "values.contactEmail", "\(email)")
        #expect(email.message.hasPrefix("values.contactEmail: "), "\(email.message)")
        let contacts = try conn.failure("reports.amend", ["reportId": id, "values": ["contactEmail": nil, "contactPhone": nil]])
        #expect(contacts.kind == .invalidParams && contacts.parameter == "values.contactPhone")
        let required = try conn.failure("reports.amend", ["reportId": id, "values": ["species": nil]])
        #expect(required.parameter == "values.species")
        #expect(try conn.failure("reports.amend", ["reportId": id, "values": ["colour": "brown"]]).parameter == "values.colour")
        #expect(try conn.failure("reports.amend", ["reportId": id, "values": [:]]).parameter == "values")
        #expect(try conn.failure("reports.close", ["reportId": id, "outcome": "home"]).parameter == "outcome")
        #expect(try conn.failure("reports.close", ["reportId": id]).parameter == "outcome")
        #expect(try conn.failure("reports.renew", ["reportId": id, "force": true]).parameter == "force")
        let unknown = try conn.failure("reports.close", ["reportId": "no-such-report", "outcome": "found"])
        #expect(unknown.kind == .reportNotFound && unknown.parameter == "reportId")
        #expect(try conn.result("reports.get", ["reportId": id])[path: "report", "version"] == 1, "a refusal changed the report")

        _ = try conn.result("reports.close", ["reportId": id, "outcome": "withdrawn"])
        for (method, params) in [("reports.close", ["outcome": "found"]), ("reports.renew", [:]), ("reports.amend", ["values": ["age": 5]])] as [(String, JSONObject)] {
            var all = params
            all["reportId"] = id
            let closed = try conn.failure(method, all)
            #expect(closed.kind == .reportClosed && closed.details["status"] == "withdrawn", "\(method): \(closed)")
        }
        _ = try conn.result("reports.erase", ["reportId": id])
        for (method, params) in [("reports.close", ["outcome": "found"]), ("reports.renew", [:]), ("reports.amend", ["values": ["age": 5]])] as [(String, JSONObject)] {
            var all = params
            all["reportId"] = id
            #expect(try conn.failure(method, all).kind == .reportErased, "\(method)")
        }
        #expect(try conn.result("reports.get", ["reportId": id])[path: "report", "version"] == 3)
    }

    @Test("another user's report does not exist for a user: every change is reportNotFound", .enabled(if: getuid() == 0, "needs root to act as another user"))
    func anotherUsersReport() throws {
        let daemon = try DaemonProcess().start()
        let id = try #require(try Self.reportID(try fileReport(try daemon.connect()).submit).stringValue)
        for (method, params) in [("reports.close", #"{"reportId":"\#(id)","outcome":"found"}"#), ("reports.renew", #"{"reportId":"\#(id)"}"#),
                                 ("reports.amend", #"{"reportId":"\#(id)","values":{"age":5}}"#), ("reports.erase", #"{"reportId":"\#(id)"}"#)] {
            let run = try runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                          Paths.petspot, "call", "--socket", daemon.socketPath, method, params])
            #expect(run.status == 1, "\(method): \(run)")
            #expect(run.stdout.contains("reportNotFound"), "\(method): \(run.stdout)")
        }
        #expect(try daemon.connect().result("reports.get", ["reportId": .string(id)])[path: "report", "version"] == 1)
    }

    @Test("the owner's reports.watch hears of every change, as updated, with the report after it")
    func watched() throws {
        let daemon = try DaemonProcess().start()
        let (conn, watcher) = (try daemon.connect(), try daemon.connect())
        _ = try watcher.result("reports.watch")
        let id = try Self.reportID(try fileReport(conn).submit)
        let filed = try #require(try watcher.nextNotification(timeout: .seconds(20)))
        #expect(try filed.reading(ReportsChanged.self)?.change == .filed)
        _ = try conn.result("reports.amend", ["reportId": id, "values": ["age": 7]])
        _ = try conn.result("reports.close", ["reportId": id, "outcome": "found"])
        _ = try conn.result("reports.close", ["reportId": id, "outcome": "found"])
        _ = try conn.result("reports.erase", ["reportId": id])
        var versions: [Int] = []
        while versions.count < 3 {
            let notification = try #require(try watcher.nextNotification(timeout: .seconds(20)))
            let changed = try #require(try notification.reading(ReportsChanged.self))
            #expect(changed.change == .updated)
            versions.append(try #require(changed.report?.version))
        }
        #expect(versions == [2, 3, 4], "the same close again is no change")
        #expect(try watcher.result("daemon.info")["name"] == "petspotd")
        #expect(try watcher.notificationIfReady() == nil)
    }

    @Test("after reports.erase the e-mail, the chip number and the photo's bytes are in neither the database file nor its WAL")
    func erasedFromDisk() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let email = "erase-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        let flowID = try prepareReport(conn, chip: "616 09 9876 5432 1")
        let photo = Array(pngBytes.prefix(8)) + (0..<4_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        _ = try conn.result("flow.back", ["flowId": .string(flowID)])
        _ = try conn.result("flow.update", ["flowId": .string(flowID), "values": ["contactEmail": .string(email)]])
        _ = try conn.result("flow.back", ["flowId": .string(flowID)])
        _ = try conn.result("flow.back", ["flowId": .string(flowID)])
        _ = try conn.result("flow.update", ["flowId": .string(flowID), "values": ["photo": ["data": .string(Data(photo).base64EncodedString())]]])
        for _ in 0..<3 { try expectAccepted(conn.result("flow.continue", ["flowId": .string(flowID)])) }
        let id = try Self.reportID(try conn.result("flow.submit", ["flowId": .string(flowID)]))
        let piece = Array(photo[1_000..<1_064])
        func found() -> [String] {
            var found: [String] = []
            for suffix in ["", "-wal"] {
                // A truncated WAL is empty: FileManager.contents(atPath:) would leak (see FileDescriptorIO).
                guard let bytes = try? FileDescriptorIO.readFile(daemon.databasePath + suffix) else { continue }
                if bytes.firstRange(of: Array(email.utf8)) != nil { found.append("e-mail in reports.sqlite\(suffix)") }
                if bytes.firstRange(of: Array("616099876543210".utf8)) != nil { found.append("chip in reports.sqlite\(suffix)") }
                if bytes.firstRange(of: piece) != nil { found.append("photo in reports.sqlite\(suffix)") }
            }
            return found
        }
        #expect(!found().isEmpty, "the report's data is not on the disk to begin with")
        _ = try conn.result("reports.erase", ["reportId": id])
        #expect(found().isEmpty, "\(found())")
    }

    @Test("retention for real: a report expires seconds after submit, is erased seconds after that, each logged once by id")
    func retentionForReal() throws {
        // 0.00003 days: 2.6 s.
        let days = JSONValue.number(JSONNumber(validatedLiteral: "0.00003"))
        let daemon = try DaemonProcess(settings: ["reports": ["expireAfterDays": days, "eraseAfterDays": days]]).start()
        let conn = try daemon.connect()
        let id = try Self.reportID(try fileReport(conn).submit)
        try waitUntil("the report to expire", seconds: 30) {
            try conn.result("reports.get", ["reportId": id])[path: "report", "status"] == "expired"
        }
        try waitUntil("the expired report to be erased", seconds: 30) {
            try conn.result("reports.get", ["reportId": id])[path: "report", "erased"] == true
        }
        let report = try conn.result("reports.get", ["reportId": id])["report"]!
        #expect(report["status"] == "expired" && report["version"] == 3 && report[path: "values", "contactEmail"] == .null)
        let idText = try #require(id.stringValue)
        #expect(logLines(daemon.log, containing: "report expired").filter { $0.contains(idText) }.count == 1)
        #expect(logLines(daemon.log, containing: "report erased by retention").filter { $0.contains(idText) }.count == 1)
        #expect(!daemon.log.contains("owner@example.org"))
    }
}

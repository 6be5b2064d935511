import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// Photos of open flows wait in files beside the database, not in the daemon's memory, and
/// hold no descriptor while they wait: seen from outside, through the spool directory and the
/// daemon's descriptors.
@Suite("Photos wait on disk")
struct PhotoSpoolTests {
    static func spoolDirectory(_ daemon: DaemonProcess) -> String {
        URL(fileURLWithPath: daemon.databasePath).deletingLastPathComponent().appendingPathComponent("spool").path
    }

    /// The photos waiting in the daemon's spool directory, by path.
    static func spoolFiles(_ daemon: DaemonProcess) throws -> [String] {
        let spool = spoolDirectory(daemon)
        return try FileManager.default.contentsOfDirectory(atPath: spool).filter { $0.hasPrefix(".spool-") }.sorted().map { spool + "/" + $0 }
    }

    /// The daemon's descriptors that point into its spool directory.
    static func spoolDescriptors(_ daemon: DaemonProcess) throws -> [String] {
        let pid = try #require(daemon.process?.processIdentifier)
        let spool = spoolDirectory(daemon) + "/"
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap { fd in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)")
            return target.flatMap { $0.hasPrefix(spool) ? $0 : nil }
        }
    }

    static func onPhotoStep(_ conn: PetSpotConnection) throws -> JSONValue {
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["chipNumber": "616 09 1234 5678 9"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        return flowID
    }

    static func photoUpdate(_ flowID: JSONValue, _ bytes: [UInt8]) -> JSONObject {
        ["flowId": flowID, "values": ["photo": ["data": .string(Data(bytes).base64EncodedString())]]]
    }

    static func photo(_ size: Int, seed: UInt8 = 1) -> [UInt8] {
        Array(pngBytes.prefix(8)) + (0..<(size - 8)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    @Test("a photo waits in one file of the daemon's alone, holding no descriptor; a new photo replaces it, cancelling removes it; the report stores its bytes")
    func oneFilePerPhoto() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try Self.onPhotoStep(conn)
        #expect(try Self.spoolFiles(daemon).isEmpty)

        _ = try conn.result("flow.update", Self.photoUpdate(flowID, Self.photo(300_000)))
        let first = try Self.spoolFiles(daemon)
        #expect(first.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: try #require(first.first))
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect((attributes[.size] as? NSNumber)?.intValue == 300_000)
        #expect(try Self.spoolDescriptors(daemon).isEmpty, "a waiting photo holds a descriptor")

        let last = Self.photo(200_000, seed: 9)
        let flow = try conn.result("flow.update", Self.photoUpdate(flowID, last))["flow"]!
        #expect(flow[path: "values", "photo", "bytes"] == .int(200_000))
        try waitUntil("the first photo's file removed") { let now = try Self.spoolFiles(daemon); return now.count == 1 && now != first }

        // The rest of the report; the stored photo is the last one, byte for byte.
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["species": "dog", "race": "Beagle", "gender": "male", "latitude": "52.2", "longitude": "21.0"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        _ = try conn.result("flow.update", ["flowId": flowID, "values": ["contactEmail": "owner@example.org"]])
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        let reportID = try #require(conn.result("flow.submit", ["flowId": flowID])[path: "report", "id"]?.stringValue)
        let stored = try runProgram("/usr/bin/sqlite3", ["file:\(daemon.databasePath)?mode=ro", "SELECT hex(photo) FROM report WHERE id = '\(reportID)';"])
        #expect(stored.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == last.map { String(format: "%02X", $0) }.joined())

        // Another flow's photo, cancelled: its file goes with it.
        let other = try Self.onPhotoStep(conn)
        _ = try conn.result("flow.update", Self.photoUpdate(other, Self.photo(1000)))
        let withOther = try Self.spoolFiles(daemon).count
        _ = try conn.result("flow.cancel", ["flowId": other])
        try waitUntil("the cancelled flow's file removed") { try Self.spoolFiles(daemon).count == withOther - 1 }
    }

    @Test("with few descriptors, one user's many photos wait holding none: each is taken, every other connection is served, and every flow has an id of its own")
    func photosHoldNoDescriptors() throws {
        // Soft and hard: the daemon cannot raise it, and 2 × 16 connections + 64 fit exactly.
        let daemon = try DaemonProcess(arguments: ["--limit", "maxConnections=16", "--limit", "maxFlowsPerUser=200"],
                                       launcher: ["/usr/bin/prlimit", "--nofile=96:96", "--"]).start()
        let conn = try daemon.connect()
        var flowIDs: Set<String> = []
        for i in 0..<120 {
            let flowID = try Self.onPhotoStep(conn)
            flowIDs.insert(try #require(flowID.stringValue))
            let flow = try conn.result("flow.update", Self.photoUpdate(flowID, Self.photo(64, seed: UInt8(i))))
            #expect(flow[path: "flow", "values", "photo", "bytes"] == .int(64))
        }
        #expect(flowIDs.count == 120, "flows share ids")
        #expect(try Self.spoolFiles(daemon).count == 120)
        #expect(try Self.spoolDescriptors(daemon).isEmpty)
        let others = try (0..<15).map { _ in try daemon.connect() }
        for other in others { #expect(try other.result("daemon.info")["name"] == "petspotd") }
        #expect(!daemon.log.contains("Too many open files"), "\(daemon.log)")
    }

    @Test("a photo that would leave less than limits.minFreeDiskBytes free is refused naming it; the flow keeps what it had and submits")
    func freeSpaceGuard() throws {
        let daemon = try DaemonProcess(settings: ["limits": ["minFreeDiskBytes": 1_099_511_627_776]]).start()
        let conn = try daemon.connect()
        let flowID = try Self.onPhotoStep(conn)
        let refused = try conn.raw(#"{"jsonrpc":"2.0","id":7,"method":"flow.update","params":"# + JSONWriter.string(.object(Self.photoUpdate(flowID, Self.photo(5000)))) + "}")
        #expect(refused.errorKind == "limitExceeded", "\(JSONWriter.string(refused))")
        #expect(refused[path: "error", "data", "limit"] == "limits.minFreeDiskBytes")
        #expect(refused[path: "error", "data", "max"] == .int(1_099_511_627_776))
        let message = refused[path: "error", "message"]?.stringValue ?? ""
        #expect(message.contains("5000 bytes") && !message.contains("/"), "\(message)")
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "values", "photo"] == .null)
        #expect(try Self.spoolFiles(daemon).isEmpty)
        // A report without a photo still goes through.
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "step"] == "description")
    }

    @Test("one user's photos fit limits.maxSpooledPhotoBytesPerUser; one byte more is refused naming it, and fits once a flow is cancelled")
    func perUserShare() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxSpooledPhotoBytesPerUser=10000"]).start()
        let conn = try daemon.connect()
        let a = try Self.onPhotoStep(conn), b = try Self.onPhotoStep(conn)
        _ = try conn.result("flow.update", Self.photoUpdate(a, Self.photo(6000)))
        _ = try conn.result("flow.update", Self.photoUpdate(b, Self.photo(4000)))
        let refused = try conn.raw(#"{"jsonrpc":"2.0","id":8,"method":"flow.update","params":"# + JSONWriter.string(.object(Self.photoUpdate(b, Self.photo(4001)))) + "}")
        #expect(refused[path: "error", "data", "limit"] == "limits.maxSpooledPhotoBytesPerUser", "\(JSONWriter.string(refused))")
        #expect(try conn.result("flow.get", ["flowId": b])[path: "flow", "values", "photo", "bytes"] == .int(4000))
        #expect(try Self.spoolFiles(daemon).count == 2, "the refused photo reached the disk")
        _ = try conn.result("flow.cancel", ["flowId": a])
        #expect(try conn.result("flow.update", Self.photoUpdate(b, Self.photo(10000)))[path: "flow", "values", "photo", "bytes"] == .int(10000))
    }

    @Test("a photo changed in the spool is not stored: the submit fails naming why, the flow stays, and submits once the photo is sent again")
    func changedOnDisk() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try prepareReport(conn)
        let spooled = try #require(try Self.spoolFiles(daemon).first)
        // A bad sector, as far as the daemon can tell: one byte of the kept photo differs.
        let file = try #require(FileHandle(forUpdatingAtPath: spooled))
        try file.seek(toOffset: 20)
        try file.write(contentsOf: Data([0xFF ^ pngBytes[20]]))
        try file.close()

        let refused = try conn.raw(#"{"jsonrpc":"2.0","id":3,"method":"flow.submit","params":{"flowId":"\#(flowID)"}}"#)
        #expect(refused.errorKind == "internalError", "\(JSONWriter.string(refused))")
        #expect(refused[path: "error", "message"]?.stringValue?.contains("SHA-256") == true, "\(JSONWriter.string(refused))")
        #expect(try allReportIDs(conn).isEmpty)
        #expect(try conn.result("flow.get", ["flowId": .string(flowID)])[path: "flow", "state"] == "active")

        _ = try conn.result("flow.back", ["flowId": .string(flowID)])
        _ = try conn.result("flow.back", ["flowId": .string(flowID)])
        _ = try conn.result("flow.back", ["flowId": .string(flowID)])
        _ = try conn.result("flow.update", Self.photoUpdate(.string(flowID), pngBytes))
        for _ in 0..<3 { try expectAccepted(conn.result("flow.continue", ["flowId": .string(flowID)])) }
        let reportID = try #require(conn.result("flow.submit", ["flowId": .string(flowID)])[path: "report", "id"]?.stringValue)
        #expect(try allReportIDs(conn) == [reportID])
    }

    @Test("a start removes what a crash left in the spool, and nothing beside it")
    func sweptAtStart() throws {
        let daemon = try DaemonProcess()
        let spool = Self.spoolDirectory(daemon)
        try FileManager.default.createDirectory(atPath: spool, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: spool + "/.spool-Ab12Cd", contents: Data(repeating: 1, count: 100)))
        #expect(FileManager.default.createFile(atPath: spool + "/kept", contents: Data()))
        _ = try daemon.start()
        #expect(try FileManager.default.contentsOfDirectory(atPath: spool) == ["kept"])
    }
}

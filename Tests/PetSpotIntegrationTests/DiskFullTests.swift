import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// The database on a tmpfs of 2 MiB that is filled to the last byte: a real ENOSPC from the
/// kernel, not a simulated one.
@Suite("The disk under the database is full", .serialized, .enabled(if: TmpfsMount.canMount, TmpfsMount.needsRoot))
struct DiskFullTests {
    static let sizeKiB = 2048

    /// Runs `body` with a daemon, not started, whose database folder (and its photo spool) is a
    /// fresh tmpfs; afterwards the daemon is killed and the tmpfs unmounted, whatever happened.
    /// The free-space guard for photos is off (it would refuse every photo on 2 MiB), so the disk
    /// fills for real.
    static func onTmpfs(_ body: (DaemonProcess, TmpfsMount) throws -> Void) throws {
        let daemon = try DaemonProcess(settings: ["limits": ["minFreeDiskBytes": 0]])
        let tmpfs = try TmpfsMount(at: daemon.directory.appendingPathComponent("var").path, sizeKiB: sizeKiB)
        defer {
            try? daemon.kill()
            tmpfs.unmount()
        }
        try body(daemon, tmpfs)
    }

    static func submitLine(_ flowID: String, id: Int = 1) -> String {
        #"{"id":\#(id),"method":"flow.submit","params":{"flowId":"\#(flowID)"}}"#
    }

    /// The rows in the file, read by another program (read-only: it writes nothing on a full disk).
    static func storedRows(_ daemon: DaemonProcess) throws -> String {
        let result = try runProgram("/usr/bin/sqlite3", ["file:\(daemon.databasePath)?mode=ro",
                                                         "SELECT count(*), count(DISTINCT flow_id) FROM report;"])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a submit on a full disk answers storageFailed naming the cause and stores nothing; the daemon serves on; once space is freed the same flow is stored once")
    func submitOnFullDisk() throws {
        try Self.onTmpfs { daemon, tmpfs in
            try daemon.start()
            let conn = try daemon.connect()
            let before = try fileReport(conn, chip: "500000").submit[path: "report", "id"]!.stringValue!
            let flowID = try prepareReport(conn, chip: "500001")
            let filler = try tmpfs.fill()

            let answer = try conn.raw(Self.submitLine(flowID))
            #expect(answer["result"] == nil, "\(JSONWriter.string(answer))")
            #expect(answer.errorKind == "storageFailed")
            let message = answer[path: "error", "message"]?.stringValue ?? ""
            #expect(message.contains("disk is full"), "the cause is not named: \(message)")
            #expect(!message.contains("/"), "a path reached the client: \(message)")
            try waitUntil("the fault in the log") {
                !logLines(daemon.log, containing: "error: request failed", "kind=storageFailed", "method=flow.submit", "flowId=\(flowID)").isEmpty
            }

            // It serves on: other requests, reads of what is stored, new flows (a photo waits for space: below).
            #expect(try conn.result("daemon.info")["name"] == "petspotd")
            #expect(try conn.result("flow.get", ["flowId": .string(flowID)])[path: "flow", "state"] == "active")
            #expect(try allReportIDs(conn) == [before])
            let other = try daemon.connect()
            #expect(try other.result("flow.start")[path: "flow", "step"] == "chip")
            // A second attempt while still full fails the same way and leaves nothing behind.
            #expect(try conn.raw(Self.submitLine(flowID, id: 2)).errorKind == "storageFailed")
            #expect(try Self.storedRows(daemon) == "1|1")

            try FileManager.default.removeItem(atPath: filler)
            let stored = try conn.result("flow.submit", ["flowId": .string(flowID)])
            let storedID = try #require(stored[path: "report", "id"]?.stringValue)
            #expect(try allReportIDs(conn) == [storedID, before])
            #expect(try Self.storedRows(daemon) == "2|2")

            #expect(try daemon.stop() == 0)
            let check = try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "PRAGMA integrity_check;"])
            #expect(check.stdout == "ok\n")
            try daemon.start()
            #expect(try allReportIDs(try daemon.connect()) == [storedID, before])
        }
    }

    /// The last line of a refused start: the one that says why.
    /// Starts `daemon` expecting a refusal: exit status 78 and, as the last line, one that names
    /// the database and `cause`.
    static func expectStartRefused(_ daemon: DaemonProcess, cause: String) throws {
        let (status, log) = try daemon.startExpectingFailure()
        #expect(status == 78)
        let refusal = log.split(separator: "\n").last.map(String.init) ?? ""
        #expect(refusal.contains("database.path: report database \(daemon.databasePath): cannot open"), "\(refusal)")
        #expect(refusal.contains(cause), "the cause is not named: \(refusal)")
    }

    @Test("started on a full disk with a database: refused in one line naming the cause (SQLite needs room for its -shm file); starts once space is freed")
    func startOnFullDisk() throws {
        try Self.onTmpfs { daemon, tmpfs in
            try daemon.start()
            let before = try fileReport(try daemon.connect(), chip: "510000").submit[path: "report", "id"]!.stringValue!
            #expect(try daemon.stop() == 0)
            let filler = try tmpfs.fill()

            try Self.expectStartRefused(daemon, cause: "no space left (disk is full)")

            try FileManager.default.removeItem(atPath: filler)
            try daemon.start()
            let conn = try daemon.connect()
            #expect(try allReportIDs(conn) == [before])
            let storedID = try #require(try fileReport(conn, chip: "510001").submit[path: "report", "id"]?.stringValue)
            #expect(try allReportIDs(conn) == [storedID, before])
        }
    }

    @Test("a first start on a full disk is refused in one line naming the cause, and leaves no empty file that would be refused after space is freed")
    func firstStartOnFullDisk() throws {
        try Self.onTmpfs { daemon, tmpfs in
            let filler = try tmpfs.fill()
            try Self.expectStartRefused(daemon, cause: "disk is full")
            #expect(!FileManager.default.fileExists(atPath: daemon.databasePath))

            try FileManager.default.removeItem(atPath: filler)
            try daemon.start()
            let conn = try daemon.connect()
            let storedID = try #require(try fileReport(conn, chip: "540000").submit[path: "report", "id"]?.stringValue)
            #expect(try allReportIDs(conn) == [storedID])
        }
    }

    @Test("a photo on a full disk is refused limitExceeded naming limits.minFreeDiskBytes; the flow keeps its photo, and takes a new one once space is freed; another flow's or step's refusal comes first")
    func photoOnFullDisk() throws {
        try Self.onTmpfs { daemon, tmpfs in
            try daemon.start()
            let conn = try daemon.connect()
            let flowID = try conn.result("flow.start")[path: "flow", "id"]!
            _ = try conn.result("flow.update", ["flowId": flowID, "values": ["chipNumber": "616 09 1234 5678 9"]])
            try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
            func update(_ bytes: [UInt8], flow: JSONValue? = nil) throws -> JSONValue {
                try conn.raw(#"{"jsonrpc":"2.0","id":5,"method":"flow.update","params":{"flowId":\#(JSONWriter.string(flow ?? flowID)),"values":{"photo":{"data":"\#(Data(bytes).base64EncodedString())"}}}}"#)
            }
            let first = pngBytes + Array(repeating: 3, count: 300_000)
            #expect(try update(first)[path: "result", "flow", "values", "photo", "bytes"] == .int(first.count))
            let filler = try tmpfs.fill()

            let refused = try update(pngBytes + Array(repeating: 4, count: 300_000))
            #expect(refused.errorKind == "limitExceeded", "\(JSONWriter.string(refused))")
            #expect(refused[path: "error", "data", "limit"] == "limits.minFreeDiskBytes")
            #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "values", "photo", "bytes"] == .int(first.count))
            // A flow that would refuse the photo anyway says so: its room is checked before the disk.
            #expect(try update(pngBytes, flow: "no-such-flow").errorKind == "flowNotFound")
            let onFirstStep = try conn.result("flow.start")[path: "flow", "id"]!
            #expect(try update(pngBytes, flow: onFirstStep).errorKind == "wrongStep")

            try FileManager.default.removeItem(atPath: filler)
            #expect(try update(pngBytes + Array(repeating: 5, count: 1000))[path: "result", "flow", "values", "photo", "bytes"] == .int(pngBytes.count + 1000))
        }
    }
}

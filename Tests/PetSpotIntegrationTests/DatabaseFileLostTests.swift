import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotTestSupport
import Testing

/// The database file deleted, replaced or truncated under a running daemon: no submit after
/// that is acknowledged, and no acknowledged report is lost without a trace: what a file that
/// left the path held is saved beside it at the stop, for the documented merge to bring back.
@Suite("The database file changed under a running daemon", .serialized)
struct DatabaseFileLostTests {
    /// A submit after the change: storageFailed, no report id, no path; logged with who and what.
    static func expectSubmitRefused(_ daemon: DaemonProcess, _ conn: PetSpotConnection, because reason: String) throws {
        let flowID = try prepareReport(conn, chip: "999999")
        let answer = try conn.raw(#"{"id":1,"method":"flow.submit","params":{"flowId":"\#(flowID)"}}"#)
        #expect(answer["result"] == nil)
        #expect(answer.errorKind == "storageFailed")
        let message = try #require(answer[path: "error", "message"]?.stringValue)
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("/"), "a path reached the client: \(message)")
        // The flow is not completed: the client may submit again once the daemon is back.
        #expect(try conn.result("flow.get", ["flowId": .string(flowID)])[path: "flow", "state"] == "active")
        try waitUntil("the fault in the log") {
            !logLines(daemon.log, containing: "error: request failed", "kind=storageFailed", "method=flow.submit",
                      "uid=\(getuid())", "flowId=\(flowID)", "database=\(daemon.databasePath)").isEmpty
        }
        // Reads fail too: they would show reports a restart will not find.
        #expect(try conn.failure("reports.list").kind == .storageFailed)
    }

    @Test("files deleted: submits answer storageFailed, the watchdog stops, a restart starts a new file that keeps what it acknowledges")
    func deleted() throws {
        let (daemon, listener) = try DaemonProcess.notifying(environment: ["WATCHDOG_USEC": "400000"])
        defer { listener.close() }
        try daemon.start()
        let conn = try daemon.connect()
        try fileReport(conn)
        try waitUntil("a watchdog ping") { listener.count(of: "WATCHDOG=1") >= 1 }

        for suffix in ["", "-wal", "-shm"] { try FileManager.default.removeItem(atPath: daemon.databasePath + suffix) }
        try Self.expectSubmitRefused(daemon, conn, because: "deleted")
        // Not healthy any more: the status says why, and no ping follows.
        try waitUntil("two failing watchdog checks") { listener.lines.filter { $0.hasPrefix("STATUS=Failing") }.count >= 2 }
        let lines = listener.lines
        let firstFailing = try #require(lines.firstIndex { $0.hasPrefix("STATUS=Failing") })
        #expect(!lines[firstFailing...].contains("WATCHDOG=1"))
        #expect(lines[firstFailing].contains("deleted"))
        #expect(!lines[firstFailing].contains("/"))

        #expect(try daemon.stop() == 0)
        let saved = try Self.savedFile(named: daemon.log)
        #expect(try Self.reportIDs(in: saved).count == 1)
        try daemon.start()
        let after = try daemon.connect()
        #expect(try allReportIDs(after) == [])
        let kept = try fileReport(after).submit[path: "report", "id"]!.stringValue!
        try daemon.stop()
        try daemon.start()
        #expect(try allReportIDs(try daemon.connect()) == [kept])
    }

    @Test("deleting only the -wal file, which holds the latest reports, is caught too; the main file keeps them")
    func walDeleted() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let acknowledged = try (0..<3).map { try fileReport(conn, chip: "\(200_000 + $0)").submit[path: "report", "id"]!.stringValue! }
        try FileManager.default.removeItem(atPath: daemon.databasePath + "-wal")
        try Self.expectSubmitRefused(daemon, conn, because: "-wal file) was deleted")
        // A clean stop folds the orphaned log into the main file, which is still at its path.
        #expect(try daemon.stop() == 0)
        try daemon.start()
        #expect(try allReportIDs(try daemon.connect()) == acknowledged.reversed())
    }

    @Test("replaced by another petspotd database: submits refused; after a restart the new file is served whole")
    func replaced() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let inCopy = try (0..<2).map { try fileReport(conn, chip: "\(300_000 + $0)").submit[path: "report", "id"]!.stringValue! }
        let copy = daemon.directory.appendingPathComponent("copy.sqlite").path
        let backup = try runProgram("/usr/bin/sqlite3", [daemon.databasePath, ".backup '\(copy)'"])
        #expect(backup.status == 0, "\(backup.stderr)")
        // Acknowledged while the old file was at the path: it leaves with that file, and the stop saves it.
        let afterCopy = try fileReport(conn, chip: "300002").submit[path: "report", "id"]!.stringValue!
        #expect(rename(copy, daemon.databasePath) == 0)

        try Self.expectSubmitRefused(daemon, conn, because: "replaced")
        #expect(try daemon.stop() == 0)
        let saved = try Self.savedFile(named: daemon.log)
        try daemon.start()
        let after = try daemon.connect()
        #expect(try allReportIDs(after) == inCopy.reversed())
        let kept = try fileReport(after, chip: "300003").submit[path: "report", "id"]!.stringValue!
        #expect(try allReportIDs(after) == [kept] + inCopy.reversed())
        // The documented merge, while the daemon runs: the one report only the saved file holds
        // comes back; the others are there already and stay as they are.
        try Self.runDocumentedMerge(database: daemon.databasePath, saved: saved)
        #expect(Set(try allReportIDs(after)) == Set([kept, afterCopy] + inCopy))
    }

    @Test("replaced by a copy of itself (cp, then mv) while 50 acknowledged reports were only in the WAL: the clean stop saves them beside the path and names the file; the documented merge brings every one back, and a second run changes nothing")
    func replacedByCopyOfItself() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let acknowledged = try (0..<50).map { try fileReport(conn, chip: "\(500_000 + $0)").submit[path: "report", "id"]!.stringValue! }
        let copy = daemon.directory.appendingPathComponent("copy.sqlite").path
        try FileManager.default.copyItem(atPath: daemon.databasePath, toPath: copy)
        #expect(rename(copy, daemon.databasePath) == 0)
        #expect(try daemon.stop() == 0)

        let saved = try Self.savedFile(named: daemon.log)
        #expect(try Self.reportIDs(in: saved) == Set(acknowledged))
        let mode = try #require(FileManager.default.attributesOfItem(atPath: saved)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        // No WAL of the old file stays beside the path to be replayed into the copy.
        #expect(!FileManager.default.fileExists(atPath: daemon.databasePath + "-wal"))

        try daemon.start()
        let after = try daemon.connect()
        #expect(Set(try allReportIDs(after)).isSubset(of: Set(acknowledged)))
        try daemon.stop()
        try Self.runDocumentedMerge(database: daemon.databasePath, saved: saved)
        try Self.runDocumentedMerge(database: daemon.databasePath, saved: saved)
        try daemon.start()
        #expect(try allReportIDs(try daemon.connect()) == acknowledged.reversed())
    }

    /// The saved file the daemon's log names at its stop.
    static func savedFile(named log: String) throws -> String {
        let line = try #require(logLines(log, containing: "the database file left its path while the daemon ran").last)
        let start = try #require(line.range(of: "every report it held is saved in "))
        let rest = line[start.upperBound...]
        let path = String(rest.prefix { $0 != ";" })
        #expect(FileManager.default.fileExists(atPath: path), "\(line)")
        return path
    }

    static func reportIDs(in file: String) throws -> Set<String> {
        let result = try runProgram("/usr/bin/sqlite3", [file, "SELECT id FROM report"])
        #expect(result.status == 0, "\(result.stderr)")
        return Set(result.stdout.split(separator: "\n").map(String.init))
    }

    /// Runs the merge of docs/OPERATIONS.md ("The database file replaced or deleted") as written
    /// there, with this test's files for its two variables, as the user running the tests.
    static func runDocumentedMerge(database: String, saved: String) throws {
        let operations = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/OPERATIONS.md"), encoding: .utf8)
        let section = try #require(operations.range(of: "### The database file replaced or deleted"))
        let after = operations[section.upperBound...]
        let open = try #require(after.range(of: "```sh\n"))
        let close = try #require(after[open.upperBound...].range(of: "```\n"))
        var lines = after[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let db = try #require(lines.firstIndex { $0.hasPrefix("db=") })
        let savedLine = try #require(lines.firstIndex { $0.hasPrefix("saved=") })
        lines[db] = "db='\(database)'"
        lines[savedLine] = "saved='\(saved)'"
        let script = lines.joined(separator: "\n").replacingOccurrences(of: "sudo -u petspotd ", with: "")
        let result = try runProgram("/bin/sh", ["-e", "-c", script])
        #expect(result.status == 0, "\(script)\n\(result.stderr)")
    }

    @Test("truncated to nothing: submits refused; the restart refuses the damaged file instead of starting over on it")
    func truncated() throws {
        let daemon = try DaemonProcess().start()
        var conn = try daemon.connect()
        try fileReport(conn, chip: "400000")
        // Restarted, so the report is in the main file, not only in the -wal file.
        try daemon.stop()
        try daemon.start()
        conn = try daemon.connect()
        #expect(try allReportIDs(conn).count == 1)
        #expect(truncate(daemon.databasePath, 0) == 0)

        try Self.expectSubmitRefused(daemon, conn, because: "truncated from")
        #expect(try daemon.stop() == 0)
        // What the truncation took is gone, and the file is no database any more: the daemon
        // says so and does not start, rather than serve what is left as if it were whole.
        // Damage, not a wrong setting: exit 65, on which the unit does not restart.
        let (status, log) = try daemon.startExpectingFailure()
        #expect(status == 65)
        #expect(log.contains("petspotd: report database \(daemon.databasePath): cannot open: database disk image is malformed"))
    }
}

import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// A damaged reports database (a copy torn by a write, a bad sector): the daemon refuses it
/// with one line naming the file and what to do, exits 65, and leaves it byte for byte.
@Suite("A damaged reports database", .serialized)
struct DatabaseDamageTests {
    /// A daemon's database with `count` reports, stopped cleanly: everything in the main file.
    static func daemonWithReports(_ count: Int, settings: JSONObject = JSONObject()) throws -> DaemonProcess {
        let daemon = try DaemonProcess(settings: settings).start()
        let conn = try daemon.connect()
        for number in 0..<count { try fileReport(conn, chip: "\(700_000 + number)") }
        #expect(try daemon.stop() == 0)
        return daemon
    }

    /// Overwrites the middle page of the file (4096 bytes) with a pattern no b-tree page has: what
    /// a copy taken while the daemon wrote, or a bad sector, leaves behind.
    static func damageMiddlePage(_ path: String) throws -> Data {
        let size = try #require(FileManager.default.attributesOfItem(atPath: path)[.size] as? UInt64)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: (size / 4096 / 2) * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096))
        try handle.close()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test("at start: refused before serving, exit 65, one line naming the file and what to do; the file is left as it was")
    func refusedAtStart() throws {
        let daemon = try Self.daemonWithReports(30)
        let damaged = try Self.damageMiddlePage(daemon.databasePath)

        let earlier = daemon.log.count
        let (status, log) = try daemon.startExpectingFailure()
        #expect(status == 65)
        let stderr = String(log.dropFirst(earlier))
        let lines = stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(stderr)")
        #expect(stderr.hasPrefix("petspotd: report database \(daemon.databasePath): the database file is damaged ("), "\(stderr)")
        #expect(stderr.contains("put a backup in its place, or recover what it holds with sqlite3's .recover"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: daemon.databasePath)) == damaged)
        #expect(!FileManager.default.fileExists(atPath: daemon.databasePath + "-wal"))
    }

    @Test("a file over database.checkAtStartMaxBytes is served at once and checked right after: the damage stops the daemon with 65 and leaves the file as it was")
    func checkedAfterServing() throws {
        let daemon = try Self.daemonWithReports(30, settings: ["database": ["checkAtStartMaxBytes": 4096]])
        let damaged = try Self.damageMiddlePage(daemon.databasePath)

        let earlier = daemon.log.count
        let process = try daemon.startExpectingToRun()
        try waitUntil("the daemon to stop by itself", seconds: 30) { !process.isRunning }
        #expect(process.terminationStatus == 65)
        let log = String(daemon.log.dropFirst(earlier))
        let serving = try #require(log.range(of: " serving "))
        let stopping = try #require(log.range(of: "the reports database is damaged; stopping"))
        #expect(serving.lowerBound < stopping.lowerBound)
        #expect(!logLines(log, containing: "the reports database is damaged; stopping", "sqlite3's .recover").isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: daemon.databasePath)) == damaged)
    }

    @Test("database.checkAtStartMaxBytes at its edges: refused below 0 and when not a number; a whole file at the limit is checked before serving")
    func settingEdges() throws {
        for bad in [JSONValue.int(-1), .string("16M")] {
            let daemon = try DaemonProcess(settings: ["database": ["checkAtStartMaxBytes": bad]])
            let (status, stderr) = try daemon.startExpectingFailure()
            #expect(status == 78)
            #expect(stderr.contains("database.checkAtStartMaxBytes"), "\(stderr)")
        }
        let daemon = try Self.daemonWithReports(30)
        let damaged = try Self.damageMiddlePage(daemon.databasePath)
        try daemon.rewriteConfiguration(["database": ["checkAtStartMaxBytes": .int(damaged.count)]])
        let earlier = daemon.log.count
        let (status, log) = try daemon.startExpectingFailure()
        #expect(status == 65)
        #expect(!log.dropFirst(earlier).contains(" serving "))
    }
}

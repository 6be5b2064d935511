import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// The database's file system read-only: at start a tmpfs remounted read-only (root ignores
/// file modes, not a read-only mount); while running an ext4 the kernel turns read-only.
@Suite("The database on a read-only file system", .serialized)
struct ReadOnlyDatabaseTests {
    @Test("made read-only by the kernel while running (ext4, errors=remount-ro): submits answer storageFailed naming the cause, reads go on, no crash; after repair a restart keeps every acknowledged report",
          .enabled(if: Ext4LoopMount.available, Ext4LoopMount.needsLoop))
    func whileRunning() throws {
        // The image is a few MiB: the photo guard's default margin would refuse every photo.
        let daemon = try DaemonProcess(settings: ["limits": ["minFreeDiskBytes": 0]])
        let disk = try Ext4LoopMount(at: daemon.directory.appendingPathComponent("var").path,
                                     image: daemon.directory.appendingPathComponent("disk.img").path)
        defer {
            try? daemon.kill()
            disk.unmount()
        }
        try daemon.start()
        let conn = try daemon.connect()
        let before = try fileReport(conn, chip: "520000").submit[path: "report", "id"]!.stringValue!
        let flowID = try prepareReport(conn, chip: "520001")
        try disk.fail()
        #expect(disk.isReadOnly)

        let answer = try conn.raw(DiskFullTests.submitLine(flowID))
        #expect(answer["result"] == nil, "\(JSONWriter.string(answer))")
        #expect(answer.errorKind == "storageFailed")
        let message = answer[path: "error", "message"]?.stringValue ?? ""
        #expect(message.contains("read-only"), "the cause is not named: \(message)")
        #expect(!message.contains(daemon.directory.path), "a path reached the client: \(message)")
        #expect(try conn.result("daemon.info")["name"] == "petspotd")
        #expect(try conn.result("flow.get", ["flowId": .string(flowID)])[path: "flow", "state"] == "active")
        #expect(try allReportIDs(conn) == [before])
        #expect(daemon.process?.isRunning == true)

        // It stops (the close cannot write either), then the operator repairs the disk.
        daemon.signal(SIGTERM)
        try waitUntil("the daemon to exit") { daemon.process?.isRunning == false }
        try disk.repair()
        try daemon.start()
        let after = try daemon.connect()
        #expect(try allReportIDs(after) == [before])
        let storedID = try #require(try fileReport(after, chip: "520002").submit[path: "report", "id"]?.stringValue)
        #expect(try allReportIDs(after) == [storedID, before])
        #expect(try daemon.stop() == 0)
        let check = try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "PRAGMA integrity_check; SELECT count(*) FROM report;"])
        #expect(check.stdout == "ok\n2\n", "\(check.stdout)\(check.stderr)")
    }

    @Test("read-only at start: refused in one line naming the cause; starts once writable",
          .enabled(if: TmpfsMount.canMount, TmpfsMount.needsRoot))
    func atStart() throws {
        try DiskFullTests.onTmpfs { daemon, tmpfs in
            try daemon.start()
            let before = try fileReport(try daemon.connect(), chip: "530000").submit[path: "report", "id"]!.stringValue!
            #expect(try daemon.stop() == 0)
            try tmpfs.remount(readOnly: true)

            try DiskFullTests.expectStartRefused(daemon, cause: "read-only")

            try tmpfs.remount(readOnly: false)
            try daemon.start()
            #expect(try allReportIDs(try daemon.connect()) == [before])
        }
    }
}

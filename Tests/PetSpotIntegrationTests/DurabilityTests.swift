import Foundation
import PetSpotClient
import PetSpotJSON
import Testing

@Suite("Reports are stored for good", .serialized)
struct DurabilityTests {
    @Test("SIGKILL right after acknowledged submits loses none of them")
    func sigkill() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        var acknowledged: [JSONValue] = []
        for i in 0..<12 {
            let (_, submit) = try fileReport(conn, chip: "\(100_000 + i)")
            acknowledged.append(submit[path: "report", "id"]!)
        }
        try daemon.kill()

        try daemon.start()
        let after = try daemon.connect()
        var seen: [JSONValue] = []
        var cursor: JSONValue = .null
        repeat {
            var params: JSONObject = ["limit": 5]
            if cursor != .null { params["cursor"] = cursor }
            let page = try after.result("reports.list", params)
            seen += page["reports"]!.arrayValue!.map { $0["id"]! }
            cursor = page["cursor"]!
        } while cursor != .null
        // Newest first, every acknowledged report present.
        #expect(seen == acknowledged.reversed())
        #expect(try after.result("reports.get", ["reportId": acknowledged[0]])[path: "report", "values", "chipNumber"] == "100000")
    }

    @Test("SIGTERM stops cleanly: exit 0, socket file removed, database consistent")
    func sigterm() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        try fileReport(conn)
        #expect(try daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        let check = try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "PRAGMA integrity_check; SELECT count(*) FROM report;"])
        #expect(check.stdout == "ok\n1\n")
    }

    @Test("stopping answers what is in flight and refuses what comes after with shuttingDown")
    func drainOnStop() throws {
        let daemon = try DaemonProcess(arguments: ["--simulated-mode", "no-fix"]).start()
        let conn = try daemon.connect()
        // One write, so one read on the daemon's side: once the first is answered, the slow one
        // behind it has been taken in hand.
        try conn.send(Array((#"{"id":"first","method":"daemon.info"}"# + "\n" +
                             #"{"id":"slow","method":"location.current","params":{"timeoutMs":6000}}"# + "\n").utf8))
        #expect(try conn.readValue()?["id"] == "first")
        daemon.signal(SIGTERM)
        try waitUntil("the daemon to begin draining") { daemon.log.contains("draining connections") }
        try conn.send(line: #"{"id":"late","method":"daemon.info"}"#)
        let slow = try #require(try conn.readValue())
        #expect(slow["id"] == "slow")
        #expect(slow[path: "result", "location", "status"] == "timeout")
        let late = try #require(try conn.readValue())
        #expect(late["id"] == "late")
        #expect(late.errorKind == "shuttingDown")
        #expect(try conn.readLine() == nil)
        try waitUntil("the daemon to exit") { daemon.process?.isRunning == false }
        #expect(daemon.process?.terminationStatus == 0)
    }

    @Test("an idle flow expires after the configured time; a used one does not")
    func idleExpiry() throws {
        let daemon = try DaemonProcess(arguments: ["--flow-idle-timeout", "1"]).start()
        let conn = try daemon.connect()
        let idle = try conn.result("flow.start")[path: "flow", "id"]!
        // Left alone, the flow is swept away (the sweep logs it); asking for it after that finds nothing.
        try waitUntil("the sweep to expire the idle flow", seconds: 10) { daemon.log.contains("expired idle flows") }
        #expect(try conn.failure("flow.get", ["flowId": idle]).kind == .flowNotFound)
    }
}

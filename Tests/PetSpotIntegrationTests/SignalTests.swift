import Foundation
import NIOConcurrencyHelpers
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// What each signal does to a running daemon, also when it comes at a bad moment.
@Suite("Signals: stop, stop now, reload", .serialized)
struct SignalTests {
    /// A daemon whose location requests wait ten minutes for a fix that never comes, and whose
    /// stop would wait as long for them: a drain that only a second signal ends.
    static func daemonWithSlowRequests(drainTimeoutSeconds: Int) throws -> DaemonProcess {
        try DaemonProcess(settings: ["location": ["timeoutMs": 600_000]],
                          arguments: ["--simulated-mode", "no-fix", "--limit", "drainTimeoutSeconds=\(drainTimeoutSeconds)"]).start()
    }

    /// Sends a request that waits for a fix, and returns once the daemon has it in hand.
    static func holdSlowRequest(_ daemon: DaemonProcess) throws -> PetSpotConnection {
        let conn = try daemon.connect()
        // One write: once the first is answered, the slow one behind it has been taken in hand.
        try conn.send(Array((#"{"id":"first","method":"daemon.info"}"# + "\n" +
                             #"{"id":"slow","method":"location.current","params":{"timeoutMs":600000}}"# + "\n").utf8))
        #expect(try conn.readValue()?["id"] == "first")
        return conn
    }

    @Test("a second SIGTERM or SIGINT ends a drain stuck on a slow request: exit 128+N, socket removed, database whole",
          arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
    func secondSignalEndsDrain(second: Int32, status: Int32) throws {
        let daemon = try Self.daemonWithSlowRequests(drainTimeoutSeconds: 3_600)
        let conn = try Self.holdSlowRequest(daemon)
        try fileReport(try daemon.connect())
        daemon.signal(SIGTERM)
        try waitUntil("the daemon to begin draining") { daemon.log.contains("draining connections") }
        #expect(daemon.process?.isRunning == true, "the slow request holds the drain")
        daemon.signal(second)
        try waitUntil("the daemon to exit") { daemon.process?.isRunning == false }
        #expect(daemon.process?.terminationStatus == status)
        #expect(daemon.log.contains("received signal again: stopping now"), "\(daemon.log)")
        // The slow request is not answered: its connection is closed.
        #expect((try? conn.readValue()) == nil)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        let check = try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "PRAGMA integrity_check; SELECT count(*) FROM report;"])
        #expect(check.stdout == "ok\n1\n")
    }

    /// `start` returns once its probe has connected, and the SIGTERM follows at once: the
    /// daemon may then be setting that connection up on one event loop while the stop closes
    /// the listening socket on another. A stop that did not wait for it shut the loops down
    /// under NIO's hop back to the listening socket's loop: "Cannot schedule tasks on an
    /// EventLoop that has already shut down" on stderr (SystemdTests, once in a full run).
    /// NIO's strict mode makes that a crash. Daemons run side by side, so that the loops are
    /// as busy as in a full test run.
    @Test("a stop as a client connects: the exit is 0 and nothing is scheduled on a stopped event loop")
    func stopAsClientConnects() throws {
        let failures = NIOLockedValueBox<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            for _ in 0..<25 {
                do {
                    let daemon = try DaemonProcess(environment: ["SWIFTNIO_STRICT": "1"]).start()
                    let status = try daemon.stop()
                    if status != 0 || daemon.log.contains("Cannot schedule tasks") {
                        failures.withLockedValue { $0.append("exit \(status):\n\(daemon.log)") }
                        return
                    }
                } catch {
                    failures.withLockedValue { $0.append("\(error)") }
                    return
                }
            }
        }
        let found = failures.withLockedValue { $0 }
        #expect(found.isEmpty, "\(found.count) of 3 series failed; the first:\n\(found.first ?? "")")
    }

    @Test("the drain lasts at most limits.drainTimeoutSeconds, then the connections left are closed and the exit is 0")
    func drainTimeout() throws {
        let daemon = try Self.daemonWithSlowRequests(drainTimeoutSeconds: 1)
        let conn = try Self.holdSlowRequest(daemon)
        daemon.signal(SIGTERM)
        try waitUntil("the daemon to exit") { daemon.process?.isRunning == false }
        #expect(daemon.process?.terminationStatus == 0)
        #expect(daemon.log.contains("closing connections that have not finished connections=1"), "\(daemon.log)")
        #expect((try? conn.readValue()) == nil)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
    }

    @Test("a reload's limits hold for a connection opened before it, from its next request on, both ways")
    func reloadReachesOpenConnections() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let conn = try daemon.connect()
        let item = #"{"id":1,"method":"daemon.info"}"#
        let four = "[\(item),\(item),\(item),\(item)]"
        // The connection has answered under the settings at start before each reload.
        #expect(try conn.raw(four).arrayValue?.count == 4)
        for (limit, refused) in [(3, true), (5, false)] {
            try daemon.rewriteConfiguration(["limits": ["maxBatchSize": .int(limit)]])
            daemon.signal(SIGHUP)
            try waitUntil("maxBatchSize \(limit) to show") { try conn.result("daemon.info")[path: "limits", "maxBatchSize"] == .int(limit) }
            let answer = try conn.raw(four)
            #expect((answer.errorKind == "limitExceeded") == refused, "maxBatchSize \(limit): \(answer)")
            #expect((answer.arrayValue?.count == 4) == !refused)
        }
        #expect(try daemon.stop() == 0)
    }

    @Test("a storm of SIGHUPs: every reload finishes, the daemon keeps serving, and the last file is in force")
    func reloadStorm() throws {
        let (daemon, listener) = try DaemonProcess.notifying()
        defer { listener.close() }
        try daemon.start()
        let conn = try daemon.connect()
        for round in 0..<200 {
            daemon.signal(SIGHUP)
            if round % 20 == 0 { #expect(try conn.result("daemon.info")["name"] == "petspotd") }
        }
        try daemon.rewriteConfiguration(["limits": ["maxFlowsPerUser": 7]])
        daemon.signal(SIGHUP)
        try waitUntil("the last file's limit to show") { try conn.result("daemon.info")[path: "limits", "maxFlowsPerUser"] == 7 }
        // Each reload said it began and that it ended; signals that came together count once.
        try waitUntil("every reload to end") { listener.count(of: "READY=1") == listener.count(of: "RELOADING=1") + 1 }
        #expect(listener.count(of: "RELOADING=1") >= 2)
        #expect(logLines(daemon.log, containing: "reload refused").isEmpty)
        #expect(try daemon.stop() == 0)
    }
}

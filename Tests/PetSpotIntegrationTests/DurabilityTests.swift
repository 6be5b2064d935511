import Foundation
import NIOConcurrencyHelpers
import Synchronization
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

@Suite("Reports are stored for good", .serialized)
struct DurabilityTests {
    @Test("SIGKILL right after acknowledged submits loses none of them")
    func sigkill() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        var acknowledged: [String] = []
        for i in 0..<12 {
            let (_, submit) = try fileReport(conn, chip: "\(100_000 + i)")
            acknowledged.append(submit[path: "report", "id"]!.stringValue!)
        }
        try daemon.kill()

        try daemon.start()
        let after = try daemon.connect()
        // Small pages, so that the cursor is followed across several.
        let seen = try allReportIDs(after, pageSize: 5)
        // Newest first, every acknowledged report present.
        #expect(seen == acknowledged.reversed())
        #expect(try after.result("reports.get", ["reportId": .string(acknowledged[0])])[path: "report", "values", "chipNumber"] == "100000")
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

    @Test("SIGTERM with pipelined lines on several connections: every line sent before it is answered")
    func sigtermAnswersEveryLineSent() throws {
        // A slow request holds each connection while it stops, and a short queue with long
        // lines leaves most of them unread in the socket when the signal comes.
        let daemon = try DaemonProcess(arguments: ["--simulated-mode", "no-fix", "--limit", "maxQueuedRequests=2"]).start()
        var connections: [(conn: PetSpotConnection, sent: [String])] = []
        for c in 0..<4 {
            let conn = try daemon.connect()
            let flows = try (0..<3).map { f in try prepareReport(conn, chip: "\(200_000 + c * 10 + f)") }
            var lines: [(id: String, line: String)] = []
            func submit(_ f: Int) {
                lines.append(("c\(c)-submit-\(f)", #"{"id":"c\#(c)-submit-\#(f)","method":"flow.submit","params":{"flowId":"\#(flows[f])"}}"#))
            }
            submit(0)
            lines.append(("c\(c)-slow", #"{"id":"c\#(c)-slow","method":"location.current","params":{"timeoutMs":1500}}"#))
            for l in 0..<4 {
                let id = "c\(c)-long-\(l)-" + String(repeating: "x", count: 30_000)
                lines.append((id, #"{"id":"\#(id)","method":"daemon.info"}"#))
            }
            submit(1)
            submit(2)
            connections.append((conn, lines.map(\.id)))
            // One write: every line is in the daemon's socket before the signal.
            try conn.send(Array(lines.map { $0.line + "\n" }.joined().utf8))
        }
        daemon.signal(SIGTERM)

        var acknowledged: [JSONValue] = []
        for (conn, sent) in connections {
            var answered: [String] = []
            while let answer = try? conn.readValue() {
                let id = try #require(answer["id"]?.stringValue, "an answer without its id: \(JSONWriter.string(answer))")
                answered.append(id)
                #expect(answer["result"] != nil || answer.errorKind == "shuttingDown", "\(id): \(JSONWriter.string(answer))")
                if let report = answer[path: "result", "report", "id"] { acknowledged.append(report) }
            }
            let inOrder = answered == sent
            #expect(inOrder, "answered \(answered.count) of \(sent.count): \(answered.map { String($0.prefix(16)) })")
            // Once the daemon has shut the connection's input, a late line fails at once.
            #expect(throws: ClientError.self) { try conn.send(line: #"{"id":"late","method":"daemon.info"}"#) }
        }
        try waitUntil("the daemon to exit") { daemon.process?.isRunning == false }
        #expect(daemon.process?.terminationStatus == 0)

        try daemon.start()
        let after = try daemon.connect()
        for report in acknowledged {
            #expect(try after.result("reports.get", ["reportId": report])[path: "report", "id"] == report)
        }
    }

    @Test("SIGTERM under submit load from clients that come and go: every stored report was acknowledged")
    func sigtermUnderLoad() throws {
        let daemon = try DaemonProcess().start()
        let submitted = NIOLockedValueBox<Set<String>>([])
        let acknowledged = NIOLockedValueBox<Set<String>>([])
        let started = Synchronization.Atomic<Int>(0)
        let socketPath = daemon.socketPath
        var threads: [Thread] = []
        let done = Synchronization.Atomic<Int>(0)
        for _ in 0..<8 {
            let thread = Thread {
                defer { done.add(1, ordering: .relaxed) }
                // Each report on a connection of its own, as the command-line client does.
                while true {
                    guard let conn = try? PetSpotConnection(socketPath: socketPath, timeout: .seconds(30)),
                          let flow = try? prepareReport(conn)
                    else { return }
                    submitted.withLockedValue { _ = $0.insert(flow) }
                    started.add(1, ordering: .relaxed)
                    guard case .success(let answer)? = try? conn.call("flow.submit", ["flowId": .string(flow)]) else { return }
                    if answer[path: "report", "id"] != nil { acknowledged.withLockedValue { _ = $0.insert(flow) } }
                }
            }
            threads.append(thread)
            thread.start()
        }
        try waitUntil("some submits under way") { started.load(ordering: .relaxed) >= 40 }
        daemon.signal(SIGTERM)
        try waitUntil("every client to finish", seconds: 30) { done.load(ordering: .relaxed) == 8 }
        try waitUntil("the daemon to exit") { daemon.process?.isRunning == false }
        #expect(daemon.process?.terminationStatus == 0)

        try daemon.start()
        let after = try daemon.connect()
        var stored: Set<String> = []
        var cursor: JSONValue = .null
        repeat {
            var params: JSONObject = ["limit": 100]
            if cursor != .null { params["cursor"] = cursor }
            let page = try after.result("reports.list", params)
            for report in page["reports"]!.arrayValue! { stored.insert(report["flowId"]!.stringValue!) }
            cursor = page["cursor"]!
        } while cursor != .null
        let acked = acknowledged.withLockedValue { $0 }
        #expect(stored.isSubset(of: submitted.withLockedValue { $0 }))
        // A report stored without its answer reaching the client is an acknowledgement lost.
        #expect(stored.subtracting(acked).isEmpty, "stored but never acknowledged: \(stored.subtracting(acked).sorted())")
        #expect(acked.isSubset(of: stored))
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

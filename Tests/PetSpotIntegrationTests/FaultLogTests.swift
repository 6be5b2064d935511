import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// Faults reach the log once each, a flood of one becomes a line per interval with its count.
@Suite("Faults in the log", .serialized)
struct FaultLogTests {
    /// Opens `count` connections over the limit, one after another; each must be told why.
    static func flood(_ daemon: DaemonProcess, count: Int) throws {
        for _ in 0..<count {
            let conn = try daemon.connect()
            let refusal = try #require(try conn.readValue())
            #expect(refusal[path: "error", "data", "limit"] == "limits.maxConnections")
            conn.close()
        }
    }

    static let refused = "warning: refusing a connection: limit reached"

    @Test("a flood of refused connections is one line, and its count when the interval ends (here: at the stop)")
    func refusedFloodHeldBack() throws {
        let daemon = try DaemonProcess(settings: ["log": ["faultIntervalSeconds": 3600]], arguments: ["--limit", "maxConnections=1"]).start()
        let held = try daemon.servedConnection()
        try Self.flood(daemon, count: 400)
        #expect(try held.result("daemon.info")["name"] == "petspotd")
        #expect(logLines(daemon.log, containing: Self.refused).count == 1)
        try daemon.stop()
        let lines = logLines(daemon.log, containing: Self.refused)
        #expect(lines.count == 2)
        #expect(lines.last?.contains("repeated=") == true)
        // The start-up probe may have been refused too, once the held connection took the place.
        #expect((400...401).contains(eventCount(lines)), "\(lines)")
    }

    @Test("while a flood lasts, one line per interval carries its count")
    func refusedFloodCounted() throws {
        let daemon = try DaemonProcess(settings: ["log": ["faultIntervalSeconds": 1]], arguments: ["--limit", "maxConnections=1"]).start()
        let held = try daemon.servedConnection()
        let started = Date()
        try Self.flood(daemon, count: 400)
        let seconds = Date().timeIntervalSince(started)
        // Every refusal is written or counted, without waiting for a stop.
        try waitUntil("every refusal to be in the log") { eventCount(logLines(daemon.log, containing: Self.refused)) >= 400 }
        let lines = logLines(daemon.log, containing: Self.refused)
        // The first line, then at most one per second of flood and one for the last part.
        #expect(lines.count <= 3 + Int(seconds.rounded(.up)), "\(lines.count) lines in \(seconds) s")
        #expect(lines.dropFirst().allSatisfy { $0.contains("repeated=") && $0.contains("interval=1s") })
        _ = held
    }

    @Test("a storage fault is logged with uid, method and flow id; a flood of it once, then counted")
    func storageFaultFlood() throws {
        let daemon = try DaemonProcess(settings: ["log": ["faultIntervalSeconds": 3600]]).start()
        let conn = try daemon.connect()
        let flows = try (0..<5).map { try prepareReport(conn, chip: "\(500_000 + $0)") }
        try FileManager.default.removeItem(atPath: daemon.databasePath)
        for flow in flows {
            let error = try conn.failure("flow.submit", ["flowId": .string(flow)])
            #expect(error.kind == .storageFailed)
            #expect(!error.message.contains(daemon.databasePath))
        }
        let first = logLines(daemon.log, containing: "kind=storageFailed", "method=flow.submit")
        #expect(first.count == 1)
        #expect(first.first?.contains("error: request failed") == true)
        #expect(first.first?.contains("flowId=\(flows[0])") == true)
        #expect(first.first?.contains("uid=\(getuid())") == true)
        try daemon.stop()
        let all = logLines(daemon.log, containing: "kind=storageFailed", "method=flow.submit")
        #expect(all.count == 2)
        #expect(eventCount(all) == 5)
        // The count line shows the latest fault of the flood.
        #expect(all.last?.contains("flowId=\(flows[4])") == true)
    }

    @Test("a limit a client hits is logged with the limit it hit")
    func limitLogged() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxFlowsPerUser=1", "--limit", "maxBatchSize=2", "--max-line-bytes", "1024"]).start()
        let conn = try daemon.connect()
        _ = try conn.result("flow.start")
        #expect(try conn.failure("flow.start").kind == .limitExceeded)
        let batch = try conn.raw(#"[{"id":1,"method":"daemon.info"},{"id":2,"method":"daemon.info"},{"id":3,"method":"daemon.info"}]"#)
        #expect(batch.errorKind == "limitExceeded")
        #expect(try conn.raw(String(repeating: " ", count: 2000)).errorKind == "lineTooLong")
        try waitUntil("the three limits in the log") {
            logLines(daemon.log, containing: "warning: request failed", "kind=lineTooLong", "limit=limits.maxLineBytes", "uid=\(getuid())").count == 1 &&
            logLines(daemon.log, containing: "warning: request failed", "limit=limits.maxFlowsPerUser", "method=flow.start", "uid=\(getuid())").count == 1
                && logLines(daemon.log, containing: "warning: request failed", "limit=limits.maxBatchSize", "uid=\(getuid())").count == 1
        }
    }

    @Test("a fault is written with its request's logger: uid, method and the request's id, which stays on the one line however it is made")
    func requestLoggerOneLine() throws {
        // Under journald every line starts with its priority: a line break smuggled in would start one that does not.
        let daemon = try DaemonProcess.loggingToJournal(arguments: ["--limit", "maxFlowsPerUser=1"]).start()
        let conn = try daemon.connect()
        _ = try conn.result("flow.start")
        let answer = try conn.raw(#"{"jsonrpc":"2.0","id":"evil\n<3>forged line\r\u001b[2J\u2028end","method":"flow.start"}"#)
        #expect(answer.errorKind == "limitExceeded")
        try waitUntil("the fault in the log") { !logLines(daemon.log, containing: "limit=limits.maxFlowsPerUser").isEmpty }
        let lines = daemon.log.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "\(daemon.log)")
        // Nor does the id start a line of its own, with a priority of its choosing.
        #expect(!lines.contains { $0.hasPrefix("<3>forged") }, "\(daemon.log)")
        #expect(!daemon.log.contains("\u{1B}") && !daemon.log.contains("\r") && !daemon.log.contains("\u{2028}"))
        let fault = try #require(logLines(daemon.log, containing: "<4>request failed", "limit=limits.maxFlowsPerUser").first)
        #expect(fault.contains(#"requestId="evil\n<3>forged line\r\u{1B}[2J\u{2028}end""#), "\(fault)")
        #expect(fault.contains("method=flow.start") && fault.contains("uid=\(getuid())") && fault.contains("pid="), "\(fault)")
    }
}

import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Every limit holds at its edge and names itself", .serialized)
struct LimitsTests {
    @Test("flows per user: the limit-th flow starts, the next is refused; finishing one frees a place")
    func flowsPerUser() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxFlowsPerUser=3"]).start()
        let conn = try daemon.connect()
        var ids: [JSONValue] = []
        for _ in 0..<3 { ids.append(try conn.result("flow.start")[path: "flow", "id"]!) }
        let refused = try conn.failure("flow.start")
        #expect(refused.kind == .limitExceeded)
        #expect(refused.details["limit"] == "limits.maxFlowsPerUser")
        #expect(refused.details["max"] == 3)
        _ = try conn.result("flow.cancel", ["flowId": ids[0]])
        _ = try conn.result("flow.start")
    }

    @Test("flows in total")
    func flowsTotal() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxFlows=2"]).start()
        let conn = try daemon.connect()
        _ = try conn.result("flow.start")
        _ = try conn.result("flow.start")
        let refused = try conn.failure("flow.start")
        #expect(refused.details["limit"] == "limits.maxFlows")
    }

    @Test("completed flows do not count toward maxFlows or maxFlowsPerUser; a repeated submit keeps its answer until maxCompletedFlows pushes the flow out")
    func completedFlows() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxFlows=1", "--limit", "maxFlowsPerUser=1", "--limit", "maxCompletedFlows=2"]).start()
        let conn = try daemon.connect()
        let filed = try (0..<5).map { _ in try fileReport(conn) }
        _ = try conn.result("flow.start")
        #expect(try conn.failure("flow.start").kind == .limitExceeded)
        let last = filed[4]
        let again = try conn.result("flow.submit", ["flowId": .string(last.flowID)])
        #expect(again[path: "report", "id"] == last.submit[path: "report", "id"])
        #expect(try conn.result("flow.get", ["flowId": .string(filed[3].flowID)])[path: "flow", "reportId"] == filed[3].submit[path: "report", "id"])
        #expect(try conn.failure("flow.get", ["flowId": .string(filed[2].flowID)]).kind == .flowNotFound)
    }

    @Test("connections: the limit-th is served, the next is told why and closed")
    func connections() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxConnections=2"]).start()
        let first = try daemon.servedConnection()
        let second = try daemon.servedConnection()
        let third = try daemon.connect()
        let refusal = try #require(try third.readValue())
        #expect(refusal.errorKind == "limitExceeded")
        #expect(refusal[path: "error", "data", "limit"] == "limits.maxConnections")
        #expect(try third.readLine() == nil)
        // A place frees up when a client leaves.
        #expect(try second.result("daemon.info")["name"] == "petspotd")
        first.close()
        try waitUntil("a connection place to free up") {
            let again = try daemon.connect()
            return try again.result("daemon.info")["name"] == "petspotd"
        }
    }

    @Test("batch size: the limit is accepted, one more is refused")
    func batchSize() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxBatchSize=3"]).start()
        let conn = try daemon.connect()
        let item = #"{"id":1,"method":"daemon.info"}"#
        #expect(try conn.raw("[\(item),\(item),\(item)]").arrayValue?.count == 3)
        let refused = try conn.raw("[\(item),\(item),\(item),\(item)]")
        #expect(refused.errorKind == "limitExceeded")
        #expect(refused[path: "error", "data", "limit"] == "limits.maxBatchSize")
    }

    @Test("JSON depth: the configured depth parses, one more is a parse error")
    func depth() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxJSONDepth=5"]).start()
        let conn = try daemon.connect()
        let atLimit = #"{"id":1,"method":"daemon.info","params":{"a":{"b":{"c":{}}}}}"#
        #expect(try conn.raw(atLimit)[path: "error", "data", "parameter"] == "a")  // parsed; refused as unknown
        let over = #"{"id":1,"method":"daemon.info","params":{"a":{"b":{"c":{"d":{}}}}}}"#
        #expect(try conn.raw(over).errorKind == "parseError")
    }

    @Test("photo size: the limit is accepted, one byte more is a field error")
    func photoSize() throws {
        let limit = 4096
        let daemon = try DaemonProcess(arguments: ["--limit", "maxPhotoBytes=\(limit)"]).start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        try expectAccepted(conn.result("flow.continue", ["flowId": flowID]))
        func photo(_ size: Int) -> JSONObject {
            let bytes = Array(pngBytes.prefix(8)) + Array(repeating: 1, count: size - 8)
            return ["flowId": flowID, "values": ["photo": ["data": .string(Data(bytes).base64EncodedString())]]]
        }
        let fits = try conn.result("flow.update", photo(limit))["flow"]!
        #expect(fits[path: "values", "photo", "bytes"] == .int(limit))
        let tooBig = try conn.result("flow.update", photo(limit + 1))["flow"]!
        #expect(tooBig.field("photo")?["error"]?.stringValue != nil)
        #expect(tooBig[path: "values", "photo"] == .null, "the refused photo replaces the one that fitted")
    }

    @Test("an answer far larger than the pending-output limit reaches a client that reads it, and the connection stays usable")
    func largeAnswerUnderSmallLimit() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxPendingOutputBytes=65536", "--limit", "maxBatchSize=3000"]).start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!.stringValue!
        let get = #"{"id":1,"method":"flow.get","params":{"flowId":"\#(flowID)"}}"#
        let batch = "[" + Array(repeating: get, count: 3000).joined(separator: ",") + "]\n"
        // Twice, so that the second batch is taken only after the first has drained.
        try conn.send(Array((batch + batch).utf8))
        for _ in 0..<2 {
            let line = try #require(try conn.readLine())
            #expect(line.count > 2 * 1_048_576, "the answer should be several MiB; it is \(line.count) bytes")
            let answers = try #require(try JSONParser.parse(line).arrayValue)
            #expect(answers.count == 3000)
            #expect(answers.allSatisfy { $0[path: "result", "flow", "id"] == .string(flowID) })
        }
        #expect(try conn.result("daemon.info")["name"] == "petspotd")
        #expect(!daemon.log.contains("has not read its answers"))
    }

    @Test("a client that never reads its answers is closed after the stall timeout, with one line; others go on meanwhile")
    func clientThatNeverReads() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxPendingOutputBytes=65536", "--limit", "stalledReaderTimeoutSeconds=2"]).start()
        let greedy = try daemon.connect(timeout: .seconds(1))
        let flowID = try greedy.result("flow.start")[path: "flow", "id"]!.stringValue!
        let request = Array("{\"id\":1,\"method\":\"flow.get\",\"params\":{\"flowId\":\"\(flowID)\"}}\n".utf8)
        var batch: [UInt8] = []
        for _ in 0..<200 { batch += request }
        // Writes until the daemon stops reading (the writes time out) or hangs up; never reads.
        try waitUntil("the daemon to stop reading the client that does not read", seconds: 30) {
            do {
                try greedy.send(batch)
                return false
            } catch {
                return true
            }
        }
        // Held back, not yet closed: everyone else is served.
        #expect(try daemon.connect().result("daemon.info")["name"] == "petspotd")
        try waitUntil("the stalled connection to be closed", seconds: 30) { daemon.log.contains("has not read its answers") }
        #expect(daemon.log.components(separatedBy: "has not read its answers").count == 2)
        // What was already sent can be read; then the connection ends.
        var ended = false
        while true {
            do {
                if try greedy.readLine() == nil {
                    ended = true
                    break
                }
            } catch {
                ended = !error.description.contains("in time")
                break
            }
        }
        #expect(ended)
        #expect(try daemon.connect().result("daemon.info")["name"] == "petspotd")
    }

    @Test("at start the daemon raises its soft descriptor limit to fit maxConnections (two descriptors each, and 64), as far as the hard limit allows")
    func raisesDescriptorLimit() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxConnections=500"], launcher: ["/usr/bin/prlimit", "--nofile=64:4096", "--"]).start()
        let pid = try #require(daemon.process?.processIdentifier)
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        #expect(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(3).prefix(2) == ["1064", "4096"])
        #expect(daemon.log.contains("raised the open-file limit"))
        #expect(!daemon.log.contains("cannot be reached"))
    }

    @Test("out of file descriptors: accepting pauses instead of spinning, and every waiting client is served once some free up")
    func outOfDescriptors() throws {
        let daemon = try DaemonProcess(launcher: ["/usr/bin/prlimit", "--nofile=64:64", "--"]).start()
        let pid = try #require(daemon.process?.processIdentifier)
        #expect(daemon.log.components(separatedBy: "limits.maxConnections cannot be reached").count == 2)
        var waiting: [PetSpotConnection] = []
        for _ in 0..<100 {
            let conn = try daemon.connect()
            try conn.send(line: #"{"id":1,"method":"daemon.info"}"#)
            waiting.append(conn)
        }
        try waitUntil("the daemon to run out of descriptors") { daemon.log.contains("cannot accept connections") }

        // While out of descriptors, the daemon waits rather than retrying in a loop.
        let cpuBefore = try cpuSeconds(of: pid), start = Date()
        let window = 2.0
        while Date().timeIntervalSince(start) < window { usleep(50_000) }
        let busy = (try cpuSeconds(of: pid) - cpuBefore) / Date().timeIntervalSince(start)
        #expect(busy < 0.25, "the daemon used \(Int(busy * 100)) % of a core while it could not accept")
        // One line when an episode begins, however many accepts fail in it; a descriptor the
        // daemon frees for a moment (and takes again) may end one episode and begin another,
        // but then "accepting connections again" says so in between.
        let episodes = daemon.log.components(separatedBy: "cannot accept connections").count - 1
        let ended = daemon.log.components(separatedBy: "accepting connections again").count - 1
        #expect(episodes == ended + 1, "one line per episode:\n\(daemon.log)")

        // Clients that got their answer leave, which frees descriptors for those still waiting;
        // each of those gets an answer (or, refused, the end of the connection) in turn.
        var served = 0
        try waitUntil("every waiting client to be served", seconds: 60) {
            waiting.removeAll { conn in
                guard isReadable(conn) else { return false }
                if let answer = try? conn.readValue() { #expect(answer[path: "result", "name"] == "petspotd" || answer.errorKind == "limitExceeded") }
                served += 1
                conn.close()
                return true
            }
            return waiting.isEmpty
        }
        #expect(served == 100)
        #expect(daemon.log.contains("accepting connections again"))
        #expect(try daemon.connect().result("daemon.info")["name"] == "petspotd")
    }
}

/// User and system CPU time a process has used, from /proc/PID/stat.
private func cpuSeconds(of pid: Int32) throws -> Double {
    let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
    // Fields after the command name (which may hold spaces): state is the first, utime the 12th.
    let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
    let ticks = Double(fields[11])! + Double(fields[12])!
    return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// Whether the daemon has sent something (or closed), without waiting.
private func isReadable(_ conn: PetSpotConnection) -> Bool {
    conn.withDescriptor { fd in
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }
}

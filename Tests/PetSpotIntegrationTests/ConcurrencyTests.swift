import Foundation
import PetSpotClient
import PetSpotJSON
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("One slow client never stalls another", .serialized)
struct ConcurrencyTests {
    @Test("a connection waiting on a location request does not delay another connection")
    func slowLocationDoesNotBlock() throws {
        let daemon = try DaemonProcess(arguments: ["--simulated-mode", "no-fix"]).start()
        let slow = try daemon.connect()
        let fast = try daemon.connect()
        // The slow request and a request behind it on the same connection.
        try slow.send(line: #"{"id":"slow","method":"location.current","params":{"timeoutMs":9000}}"#)
        try slow.send(line: #"{"id":"behind","method":"daemon.info"}"#)
        // Many answers on the other connection while the slow one is still waiting.
        for i in 0..<20 {
            #expect(try fast.raw("{\"id\":\(i),\"method\":\"daemon.info\"}")["id"] == .int(i))
        }
        #expect(!hasInput(slow), "the slow connection answered before its location wait ended")
        // Then the slow answer, and only after it the one behind it: answers stay in order.
        let first = try #require(try slow.readValue())
        #expect(first["id"] == "slow")
        #expect(first[path: "result", "location", "status"] == "timeout")
        #expect(try slow.readValue()?["id"] == "behind")
    }

    @Test("many connections at once each get their own answers")
    func parallelClients() async throws {
        let daemon = try DaemonProcess().start()
        let socket = daemon.socketPath
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    let conn = try PetSpotConnection(socketPath: socket)
                    let id = try conn.result("flow.start")[path: "flow", "id"]!
                    for _ in 0..<20 {
                        #expect(try conn.result("flow.get", ["flowId": id])[path: "flow", "id"] == id)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("pipelined requests run in order: a continue never overtakes the photo update before it")
    func executionOrder() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!.stringValue!
        try expectAccepted(conn.result("flow.continue", ["flowId": .string(flowID)]))
        // Large enough to be decoded off the event loop, while the continue behind it is instant.
        let photo = Data(pngBytes + Array(repeating: 9, count: 400_000)).base64EncodedString()
        let update = #"{"id":"photo","method":"flow.update","params":{"flowId":"\#(flowID)","values":{"photo":{"data":"\#(photo)"}}}}"#
        let next = #"{"id":"next","method":"flow.continue","params":{"flowId":"\#(flowID)"}}"#
        try conn.send(Array((update + "\n" + next + "\n").utf8))
        let first = try #require(try conn.readValue())
        #expect(first["id"] == "photo")
        #expect(first[path: "result", "flow", "values", "photo", "mediaType"] == "image/png")
        let second = try #require(try conn.readValue())
        #expect(second["id"] == "next")
        #expect(second[path: "result", "flow", "step"] == "description")
        #expect(second[path: "result", "flow", "values", "photo", "bytes"] == .int(pngBytes.count + 400_000))
    }

    @Test("with a small request queue the daemon stops reading, then answers everything in order")
    func backPressure() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxQueuedRequests=2", "--simulated-mode", "no-fix"]).start()
        let conn = try daemon.connect()
        var lines = #"{"id":"slow","method":"location.current","params":{"timeoutMs":500}}"# + "\n"
        for i in 0..<200 { lines += "{\"id\":\(i),\"method\":\"daemon.info\"}\n" }
        try conn.send(Array(lines.utf8))
        #expect(try conn.readValue()?["id"] == "slow")
        for i in 0..<200 {
            #expect(try conn.readValue()?["id"] == .int(i))
        }
    }

    @Test("a client that half-closes after many requests still gets every answer")
    func halfCloseWithMuchOutput() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        // Far more answer bytes than a socket buffer holds, so most wait inside the daemon
        // when the end of input arrives.
        var lines: [UInt8] = []
        for i in 0..<2000 { lines += Array("{\"id\":\(i),\"method\":\"daemon.info\"}\n".utf8) }
        try conn.send(lines)
        conn.finishSending()
        var count = 0
        while let line = try conn.readLine() {
            #expect(try JSONParser.parse(line)["id"] == .int(count))
            count += 1
        }
        #expect(count == 2000)
    }

    private func hasInput(_ conn: PetSpotConnection) -> Bool {
        conn.withDescriptor { fd in
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&poller, 1, 0) > 0
        }
    }
}

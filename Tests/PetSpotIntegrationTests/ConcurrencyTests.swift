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
        try slow.send(line: #"{"id":"slow","method":"location.current","params":{"timeoutMs":4000}}"#)
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

    private func hasInput(_ conn: PetSpotConnection) -> Bool {
        conn.withDescriptor { fd in
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&poller, 1, 0) > 0
        }
    }
}

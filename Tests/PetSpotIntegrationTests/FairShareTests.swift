import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One user cannot take every connection place or all the memory the daemon holds for clients:
/// `limits.maxConnectionsPerUser` (`relay.maxConnectionsPerUser` for the relay group),
/// `limits.maxBufferedBytesPerUser` and `limits.maxBufferedBytes`, each at its edge. The second
/// user is `nobody`, through setpriv, as in UsersTests.
@Suite("One user cannot crowd out another", .serialized)
struct FairShareTests {
    static let kibibyte = 1024

    /// `daemon.info` as nobody, through petspot.
    private static func servedAsNobody(_ daemon: DaemonProcess) throws -> Bool {
        let result = try runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                         Paths.petspot, "call", "--socket", daemon.socketPath, "daemon.info"])
        return result.status == 0 && result.stdout.contains("\"petspotd\"")
    }

    @Test("connections per user: the limit-th is served, the next is told why and closed; another user is served",
          .enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func connectionsPerUser() throws {
        let daemon = try DaemonProcess(arguments: ["--limit", "maxConnectionsPerUser=2"]).start()
        let first = try daemon.servedConnection()
        let second = try daemon.servedConnection()
        let third = try daemon.connect()
        let refusal = try #require(try third.readValue())
        #expect(refusal.errorKind == "limitExceeded")
        #expect(refusal[path: "error", "data", "limit"] == "limits.maxConnectionsPerUser")
        #expect(refusal[path: "error", "data", "max"] == .int(2))
        #expect(refusal[path: "error", "message"]?.stringValue?.contains("uid 0") == true, "\(refusal)")
        #expect(try third.readLine() == nil)
        #expect(try Self.servedAsNobody(daemon), "another user is locked out")
        #expect(try second.result("daemon.info")[path: "limits", "maxConnectionsPerUser"] == .int(2))
        // A place frees up when one of the user's connections closes.
        first.close()
        try waitUntil("a place of root's to free up") {
            try daemon.connect().call("daemon.info").get()["name"] == "petspotd"
        }
    }

    @Test("the relay group has its own limit per user")
    func relayConnectionsPerUser() throws {
        let daemon = try DaemonProcess(arguments: ["--relay-group", "root", "--relay", "maxConnectionsPerUser=1", "--limit", "maxConnectionsPerUser=5"]).start()
        let first = try daemon.servedConnection()
        let refusal = try #require(try daemon.connect().readValue())
        #expect(refusal[path: "error", "data", "limit"] == "relay.maxConnectionsPerUser")
        #expect(refusal[path: "error", "data", "max"] == .int(1))
        _ = first
    }

    /// Sends `bytes` of a line that does not end: an open JSON string.
    private static func unfinished(_ conn: PetSpotConnection, _ bytes: Int) throws {
        try conn.send(Array(#"{"id":1,"method":"daemon.info","params":{"x":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: bytes))
    }

    /// A whole request of about `bytes`: refused by its size only if the budget has no room.
    private static func long(_ conn: PetSpotConnection, id: Int, _ bytes: Int) throws -> JSONValue? {
        try conn.send(Array(#"{"id":\#(id),"method":"species.list","params":{"x":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: bytes) + Array("\"}}\n".utf8))
        return try conn.readValue()
    }

    /// Waits until one of `connections` has a line to read; returns its index.
    private static func firstReadable(_ connections: [PetSpotConnection]) throws -> Int {
        var ready: Int?
        try waitUntil("one connection to be answered") {
            var fds = connections.map { conn in conn.withDescriptor { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) } }
            guard poll(&fds, nfds_t(fds.count), 100) > 0 else { return false }
            ready = fds.firstIndex { $0.revents & Int16(POLLIN) != 0 }
            return ready != nil
        }
        return ready!
    }

    /// Waits until a long line of `conn` is taken again: the user's share has room for it.
    private static func waitForRoom(_ conn: PetSpotConnection, id: Int, _ what: String) throws {
        try waitUntil(what) {
            let answer = try long(conn, id: id, 500 * kibibyte)
            return answer?["id"] == .int(id) && answer?[path: "error", "data", "limit"] != .string("limits.maxBufferedBytesPerUser")
        }
    }

    /// How many rpc.discover answers make about 3.5 MiB: past a share of 1 MiB, under the
    /// 4 MiB of limits.maxPendingOutputBytes.
    private static func unreadCount(_ daemon: DaemonProcess) throws -> Int {
        let answer = try daemon.connect().raw(#"{"id":1,"method":"rpc.discover"}"#)
        return 3584 * kibibyte / (JSONWriter.bytes(answer).count + 1)
    }

    /// Asks `count` times for rpc.discover and reads none of the answers.
    private static func askUnread(_ conn: PetSpotConnection, count: Int) throws {
        try conn.send(Array(repeating: Array(#"{"id":1,"method":"rpc.discover"}"#.utf8) + [0x0A], count: count).flatMap { $0 })
    }

    @Test("buffered bytes per user: unfinished lines past the share are refused and skipped; small requests and other users go on",
          .enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func bufferedBytesPerUser() throws {
        let share = 2 * 1024 * Self.kibibyte
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1048576", "--limit", "maxBufferedBytesPerUser=\(share)"]).start()
        // Three unfinished lines of 900 KiB: two fit in the share of 2 MiB, the last one read does not.
        let holders = try (0..<3).map { _ in try daemon.connect() }
        for conn in holders { try Self.unfinished(conn, 900 * Self.kibibyte) }
        let refusedIndex = try Self.firstReadable(holders)
        let refusal = try #require(try holders[refusedIndex].readValue())
        #expect(refusal.errorKind == "limitExceeded", "\(refusal)")
        #expect(refusal[path: "error", "data", "limit"] == "limits.maxBufferedBytesPerUser")
        #expect(refusal[path: "error", "data", "max"] == .int(share))
        #expect(refusal["id"] == .null)
        // The rest of the refused line is skipped; the connection goes on after its newline.
        let refused = holders[refusedIndex]
        try refused.send(Array(String(repeating: "b", count: 300 * Self.kibibyte).utf8) + [UInt8(ascii: "\n")])
        #expect(try refused.result("daemon.info")["name"] == "petspotd")
        // Small requests of the same user need no room of the share; another user's do not count.
        let fourth = try daemon.connect()
        #expect(try fourth.result("daemon.info")["name"] == "petspotd")
        #expect(try Self.servedAsNobody(daemon))
        // A long line of the same user has no room while the two unfinished lines hold it...
        let over = try #require(try Self.long(fourth, id: 2, 500 * Self.kibibyte))
        #expect(over[path: "error", "data", "limit"] == "limits.maxBufferedBytesPerUser", "\(over)")
        // ...and has it once one of them closes.
        holders.enumerated().first { $0.offset != refusedIndex }!.element.close()
        try Self.waitForRoom(fourth, id: 3, "the closed connection's room to come back")
    }

    @Test("answers a client has not read count against its user's share until it reads them; past it, its connection waits")
    func unreadAnswersCount() throws {
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1048576", "--limit", "maxBufferedBytesPerUser=1048576",
                                                   "--log-level", "debug"]).start()
        // Answers of about 3.5 MiB in all, under limits.maxPendingOutputBytes: each is small,
        // and the client reads none of them for now.
        let count = try Self.unreadCount(daemon)
        let silent = try daemon.connect()
        try Self.askUnread(silent, count: count)
        let other = try daemon.connect()
        try waitUntil("the unread answers to fill the share") {
            try Self.long(other, id: 2, 500 * Self.kibibyte)?[path: "error", "data", "limit"] == "limits.maxBufferedBytesPerUser"
        }
        // The silent connection takes no more of its requests in hand while its answers wait
        // past the share (4 MiB of limits.maxPendingOutputBytes would let it go on).
        try waitUntil("the silent connection to wait") { !logLines(daemon.log, containing: "a connection waits").isEmpty }
        for _ in 0..<count { #expect(try silent.readValue()?[path: "result", "openrpc"] != nil) }
        try Self.waitForRoom(other, id: 3, "the room to come back once they are read")
    }

    @Test("a connection held back past its user's share whose client never reads is closed after limits.stalledReaderTimeoutSeconds")
    func heldBackAndSilent() throws {
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1048576", "--limit", "maxBufferedBytesPerUser=1048576",
                                                   "--limit", "stalledReaderTimeoutSeconds=1", "--log-level", "debug"]).start()
        let silent = try daemon.connect()
        try Self.askUnread(silent, count: try Self.unreadCount(daemon))
        try waitUntil("the silent connection to wait") { !logLines(daemon.log, containing: "a connection waits").isEmpty }
        try waitUntil("the silent connection to be closed") {
            !logLines(daemon.log, containing: "closing a connection whose client has not read its answers").isEmpty
        }
        // Its room is back: another connection of the user sends a long line.
        let other = try daemon.connect()
        try Self.waitForRoom(other, id: 4, "the room to come back")
    }

    @Test("buffered bytes of all users together: past them a line is refused, naming the setting")
    func bufferedBytesTotal() throws {
        let total = 2 * 1024 * Self.kibibyte
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1048576", "--limit", "maxBufferedBytes=\(total)",
                                                   "--limit", "maxBufferedBytesPerUser=\(4 * total)"]).start()
        let holders = try (0..<3).map { _ in try daemon.connect() }
        for conn in holders { try Self.unfinished(conn, 900 * Self.kibibyte) }
        let refusal = try #require(try holders[try Self.firstReadable(holders)].readValue())
        #expect(refusal[path: "error", "data", "limit"] == "limits.maxBufferedBytes", "\(refusal)")
        #expect(refusal[path: "error", "data", "max"] == .int(total))
    }

    @Test("a budget below limits.maxLineBytes acts as maxLineBytes: a whole line of the limit always fits")
    func budgetAtLeastOneLine() throws {
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "3145728", "--limit", "maxBufferedBytes=1048576",
                                                   "--limit", "maxBufferedBytesPerUser=1048576"]).start()
        let conn = try daemon.connect()
        let answer = try #require(try Self.long(conn, id: 7, 3 * 1024 * Self.kibibyte - 100))
        #expect(answer["id"] == .int(7))
        #expect(answer[path: "error", "data", "limit"] == nil, "\(answer)")
    }

    @Test("once clients have let go of much memory, the daemon gives malloc's free memory back to the system")
    func freedMemoryReturned() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        // A line of 12 MiB, held while it arrives and is answered.
        let answer = try #require(try Self.long(conn, id: 1, 12 * 1024 * Self.kibibyte))
        #expect(answer["id"] == .int(1))
        try waitUntil("the freed memory to be returned") {
            !logLines(daemon.log, containing: "freed memory returned to the system").isEmpty
        }
    }

    @Test("a batch's answers count in the user's share as they are made: past it, the rest of the batch is refused unrun, naming the limit")
    func batchStopsAtShare() throws {
        let share = 1024 * Self.kibibyte
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1048576", "--limit", "maxBufferedBytesPerUser=\(share)"]).start()
        let conn = try daemon.connect()
        // 100 answers of 29 KiB each: 2.9 MiB, made whole before any of it is written.
        let batch = "[" + (1...100).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"rpc.discover"}"# }.joined(separator: ",") + "]\n"
        try conn.send(Array(batch.utf8))
        let answers = try #require(try conn.readValue()?.arrayValue)
        #expect(answers.map { $0["id"] } == (1...100).map { JSONValue.int($0) })
        let run = answers.prefix { $0[path: "result", "openrpc"] != nil }
        #expect(run.count > 1 && run.count < 100, "\(run.count) of 100 run")
        // About the share and the connection's first 64 KiB of 29 KiB answers; none past them.
        #expect(run.count * 29 * Self.kibibyte <= share + 4 * 64 * Self.kibibyte, "\(run.count) run")
        for refused in answers.dropFirst(run.count) {
            #expect(refused.errorKind == "limitExceeded", "\(refused)")
            #expect(refused[path: "error", "data", "limit"] == "limits.maxBufferedBytesPerUser")
            #expect(refused[path: "error", "data", "max"] == .int(share))
        }
        #expect(!logLines(daemon.log, containing: "a batch stopped running its requests").isEmpty)
        // Read, the answers give their room back.
        try Self.waitForRoom(conn, id: 200, "the answers' room to come back once read")
    }

    @Test("report notifications count in the user's share: past it, a watch's reports become one overflow; with room again, reports come as before")
    func reportsWithinShare() throws {
        let daemon = try DaemonProcess(arguments: ["--max-line-bytes", "1048576", "--limit", "maxBufferedBytesPerUser=1048576",
                                                   "--log-level", "debug"]).start()
        let watcher = try daemon.connect()
        let subscription = try #require(try watcher.result("reports.watch")["subscription"]?.stringValue)
        // Another connection of the user leaves 3.5 MiB of answers unread: the user is past its share.
        let silent = try daemon.connect()
        try Self.askUnread(silent, count: 120)
        try waitUntil("the silent connection to wait") { !logLines(daemon.log, containing: "a connection waits").isEmpty }

        let filer = try daemon.connect()
        _ = try fileReport(filer)
        let overflow = try #require(try watcher.nextNotification(timeout: .seconds(20)))
        #expect(overflow.method == "reports.changed")
        #expect(overflow.params["subscription"] == .string(subscription))
        #expect(overflow.params["change"] == "overflow", "\(overflow.params)")

        // The silent connection reads its answers: the next report comes whole.
        for _ in 0..<120 { #expect(try silent.readValue()?[path: "result", "openrpc"] != nil) }
        try Self.waitForRoom(filer, id: 3, "the room to come back once they are read")
        let (_, submit) = try fileReport(filer)
        let filed = try #require(try watcher.nextNotification(timeout: .seconds(20)))
        #expect(filed.params["change"] == "filed", "\(filed.params)")
        #expect(filed.params["report"]?["id"] == submit[path: "report", "id"])
    }
}

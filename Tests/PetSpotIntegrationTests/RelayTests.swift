import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// The relay's side of the socket: a member of `relay.group` claims reports, acknowledges them
/// and reads the status; everyone else finds no such methods. The relay is `nobody` run through
/// setpriv with the group `daemon` (gid 1) as a supplementary group, so membership is the one
/// SO_PEERGROUPS tells; the reports are root's.
@Suite("Relay methods", .serialized)
struct RelayTests {
    static let groupName = "daemon"
    static var groupID: UInt32? { getgrnam(groupName).map { $0.pointee.gr_gid } }

    /// A client of `daemon` under another identity, through `petspot call`.
    struct Client {
        let daemon: DaemonProcess
        let identity: [String]

        /// `nobody`, in the relay group only through a supplementary group, the last of 41: more
        /// than the daemon's first SO_PEERGROUPS read has room for.
        static func relay(_ daemon: DaemonProcess) throws -> Client {
            let gid = try #require(RelayTests.groupID)
            let others = (0..<40).map { String(60_000 + $0) }
            return Client(daemon: daemon, identity: ["--reuid", "65534", "--regid", "65534",
                                                     "--groups", (others + ["\(gid)"]).joined(separator: ",")])
        }

        /// `nobody` with the relay group as its primary group and no others.
        static func primaryRelay(_ daemon: DaemonProcess) throws -> Client {
            let gid = try #require(RelayTests.groupID)
            return Client(daemon: daemon, identity: ["--reuid", "65534", "--regid", "\(gid)", "--clear-groups"])
        }

        /// `nobody` in no group but its own.
        static func outsider(_ daemon: DaemonProcess) -> Client {
            Client(daemon: daemon, identity: ["--reuid", "65534", "--regid", "65534", "--clear-groups"])
        }

        /// The result, or the error object when the call fails.
        func call(_ method: String, _ params: String = "{}") throws -> (ok: Bool, value: JSONValue) {
            let run = try runProgram("/usr/bin/setpriv", identity + [Paths.petspot, "call", "--socket", daemon.socketPath, method, params])
            guard run.status == 0 || run.status == 1 else { throw TimedOut(description: "petspot call \(method): \(run)") }
            return (run.status == 0, try JSONParser.parse(run.stdout))
        }

        func result(_ method: String, _ params: String = "{}") throws -> JSONValue {
            let (ok, value) = try call(method, params)
            guard ok else { throw TimedOut(description: "\(method) failed: \(JSONWriter.string(value))") }
            return value
        }
    }

    static func relayDaemon(_ more: [String] = []) throws -> DaemonProcess {
        try DaemonProcess(arguments: ["--relay-group", groupName] + more).start()
    }

    static func claimedIDs(_ claim: JSONValue) -> [String] {
        claim["reports"]?.arrayValue?.compactMap { $0[path: "report", "id"]?.stringValue } ?? []
    }

    static func show(_ daemon: DaemonProcess, _ id: String) throws -> [String] {
        let show = try runProgram(Paths.petspot, ["reports", "show", id, "--socket", daemon.socketPath])
        #expect(show.status == 0, "\(show)")
        return show.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    @Test(.enabled(if: getuid() == 0 && groupID != nil, "needs root and the group daemon to run a relay as another user"))
    func claimAckStatus() throws {
        let daemon = try Self.relayDaemon()
        let root = try daemon.connect()
        let first = try fileReport(root).submit[path: "report", "id"]!.stringValue!
        let second = try fileReport(root).submit[path: "report", "id"]!.stringValue!
        let relay = try Client.relay(daemon)

        #expect(try relay.result("relay.status") == ["pending": 2, "claimed": 0, "delivered": 0, "lastDeliveredAt": .null])
        let claim = try relay.result("relay.claim", #"{"limit":1}"#)
        #expect(Self.claimedIDs(claim) == [first], "oldest first")
        #expect(claim["claimTimeoutSeconds"] == 60)
        #expect(claim["pending"] == 2)
        let entry = try #require(claim["reports"]?.arrayValue?.first)
        #expect(entry["ownerUid"] == 0)
        #expect(entry[path: "photo", "data"] == .string(Data(pngBytes).base64EncodedString()))
        #expect(entry[path: "photo", "mediaType"] == "image/png")
        #expect(entry["report"] == (try root.result("reports.get", ["reportId": .string(first)])["report"]))
        #expect(entry[path: "report", "delivery"] == ["state": "pending"])
        #expect(try relay.result("relay.status")["claimed"] == 1)
        // The other report is not under claim; the claimed one is not handed out twice.
        #expect(Self.claimedIDs(try relay.result("relay.claim")) == [second])
        #expect(try Self.show(daemon, first).contains("Delivery       pending"))

        #expect(try relay.result("relay.ack", #"{"reportIds":["\#(first)"]}"#) == ["delivered": 1, "alreadyDelivered": 0])
        let delivered = try root.result("reports.get", ["reportId": .string(first)])[path: "report", "delivery"]
        #expect(delivered?["state"] == "delivered")
        let deliveredAt = try #require(delivered?["deliveredAt"]?.stringValue)
        #expect(deliveredAt.hasSuffix("Z") && deliveredAt.count == 20, "\(deliveredAt)")
        #expect(try Self.show(daemon, first).contains("Delivery       delivered \(deliveredAt)"))
        #expect(try Self.show(daemon, second).contains("Delivery       pending"))
        let listed = try root.result("reports.list")["reports"]?.arrayValue?.map { $0["delivery"]?["state"] }
        #expect(listed == ["pending", "delivered"])

        // Membership through the primary group counts too.
        let primary = try Client.primaryRelay(daemon)
        #expect(try primary.result("relay.status")
            == ["pending": 1, "claimed": 1, "delivered": 1, "lastDeliveredAt": .string(deliveredAt)])
        #expect(try primary.result("relay.ack", #"{"reportIds":["\#(first)","\#(second)"]}"#) == ["delivered": 1, "alreadyDelivered": 1])
        #expect(try primary.result("relay.status")["claimed"] == 0)
    }

    @Test(.enabled(if: getuid() == 0 && groupID != nil, "needs root and the group daemon to run a relay as another user"))
    func unacknowledgedClaimIsHandedOutAgain() throws {
        let timeout = 2
        let daemon = try Self.relayDaemon(["--relay", "claimTimeoutSeconds=\(timeout)"])
        let id = try fileReport(try daemon.connect()).submit[path: "report", "id"]!.stringValue!
        let relay = try Client.relay(daemon)

        let claimedAt = Date()
        #expect(Self.claimedIDs(try relay.result("relay.claim")) == [id])
        let again = Self.claimedIDs(try relay.result("relay.claim"))
        // Only meaningful while the lease has surely not ended yet (a slow machine may be past it).
        if Date().timeIntervalSince(claimedAt) < Double(timeout) { #expect(again.isEmpty) }
        try waitUntil("the unacknowledged report to be handed out again") {
            Self.claimedIDs(try relay.result("relay.claim")) == [id]
        }
    }

    @Test(.enabled(if: getuid() == 0 && groupID != nil, "needs root and the group daemon to run a relay as another user"))
    func outsidersFindNoRelayMethods() throws {
        let daemon = try Self.relayDaemon()
        let root = try daemon.connect()
        let id = try fileReport(root).submit[path: "report", "id"]!.stringValue!
        let outsider = Client.outsider(daemon)

        let unknown = try outsider.call("relay.nonesuch")
        #expect(!unknown.ok)
        for (method, params) in [("relay.claim", "{}"), ("relay.ack", #"{"reportIds":["\#(id)"]}"#), ("relay.status", "{}")] {
            let answer = try outsider.call(method, params)
            #expect(!answer.ok)
            let expected = JSONWriter.string(unknown.value).replacingOccurrences(of: "relay.nonesuch", with: method)
            #expect(JSONWriter.string(answer.value) == expected)
            #expect(answer.value["message"]?.stringValue?.contains("relay.") == true && !expected.contains(", relay."))
        }
        // root is not special: its own connection gets byte for byte the unknown-method line.
        try root.send(line: #"{"jsonrpc":"2.0","id":1,"method":"relay.ack","params":{"reportIds":["\#(id)"]}}"#)
        let refused = String(decoding: try #require(try root.readLine()), as: UTF8.self)
        try root.send(line: #"{"jsonrpc":"2.0","id":1,"method":"relay.acq","params":{"reportIds":["\#(id)"]}}"#)
        let unknownLine = String(decoding: try #require(try root.readLine()), as: UTF8.self)
        #expect(refused == unknownLine.replacingOccurrences(of: "relay.acq", with: "relay.ack"))
        #expect(refused.contains("methodNotFound") && !refused.contains("relay.claim"))

        // Nothing was marked or claimed by those calls.
        #expect(try root.result("reports.get", ["reportId": .string(id)])[path: "report", "delivery"] == ["state": "pending"])
        #expect(try Client.relay(daemon).result("relay.status") == ["pending": 1, "claimed": 0, "delivered": 0, "lastDeliveredAt": .null])
        // A member's unknown-method answer does list the relay methods.
        #expect(try Client.relay(daemon).call("relay.nonesuch").value["message"]?.stringValue?.contains("relay.claim") == true)
    }

    @Test(.enabled(if: getuid() == 0 && groupID != nil, "needs root and the group daemon to run a relay as another user"))
    func deliveryOutlivesRestart() throws {
        let daemon = try Self.relayDaemon()
        let id = try fileReport(try daemon.connect()).submit[path: "report", "id"]!.stringValue!
        _ = try Client.relay(daemon).result("relay.ack", #"{"reportIds":["\#(id)"]}"#)
        let before = try daemon.connect().result("reports.get", ["reportId": .string(id)])[path: "report", "delivery"]
        #expect(before?["state"] == "delivered")
        #expect(try daemon.stop() == 0)

        try daemon.start()
        let after = try daemon.connect().result("reports.get", ["reportId": .string(id)])[path: "report", "delivery"]
        #expect(after == before)
        let status = try Client.relay(daemon).result("relay.status")
        #expect(status["delivered"] == 1 && status["pending"] == 0)
        #expect(status["lastDeliveredAt"] == before?["deliveredAt"])
        #expect(Self.claimedIDs(try Client.relay(daemon).result("relay.claim")).isEmpty)
    }

    @Test(.enabled(if: getuid() == 0 && groupID != nil, "needs root and the group daemon to run a relay as another user"))
    func claimIsForgottenBySigkill() throws {
        let daemon = try Self.relayDaemon()
        let id = try fileReport(try daemon.connect()).submit[path: "report", "id"]!.stringValue!
        let relay = try Client.relay(daemon)
        #expect(Self.claimedIDs(try relay.result("relay.claim")) == [id])
        #expect(Self.claimedIDs(try relay.result("relay.claim")).isEmpty, "under claim for 60 s")
        try daemon.kill()

        try daemon.start()
        #expect(try relay.result("relay.status") == ["pending": 1, "claimed": 0, "delivered": 0, "lastDeliveredAt": .null])
        #expect(Self.claimedIDs(try relay.result("relay.claim")) == [id], "claimable again after the restart")
    }

    @Test(.enabled(if: getuid() == 0 && groupID != nil, "needs root and the group daemon to run a relay as another user"))
    func reloadResolvesTheGroupAgain() throws {
        let daemon = try DaemonProcess(settings: ["relay": ["group": .string(Self.groupName)]]).start()
        let relay = try Client.relay(daemon)
        #expect(try relay.call("relay.status").ok)
        #expect(logLines(daemon.log, containing: "relay group not found").isEmpty)

        try daemon.rewriteConfiguration(["relay": ["group": "petspot-no-such-group"]])
        daemon.signal(SIGHUP)
        try waitUntil("the reload to take the relay methods away") {
            try relay.call("relay.status").value["data"]?["kind"] == "methodNotFound"
        }
        #expect(logLines(daemon.log, containing: "relay group not found").count == 1)

        try daemon.rewriteConfiguration(["relay": ["group": .string(Self.groupName)]])
        daemon.signal(SIGHUP)
        try waitUntil("the reload to give them back") { try relay.call("relay.status").ok }
    }
}

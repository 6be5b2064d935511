import Foundation
import PetSpotClient
import PetSpotJSON
import NIOConcurrencyHelpers
import Synchronization
import PetSpotTestSupport
import Testing

/// SplitMix64: the same seed gives the same kill moments, so a failure can be replayed
/// (`make test-faults FAULT_SEED=<seed>`, or `PETSPOT_FAULT_SEED=<seed>`).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Rounds of: several clients submit whole reports on connections of their own, SIGKILL at a
/// random moment, restart on the same file and count. 20 rounds in every `make test` (about
/// 20 s); `make test-faults FAULT_ROUNDS=200` runs more.
@Suite("SIGKILL at random moments under concurrent submits", .serialized)
struct SigkillRoundsTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["PETSPOT_FAULT_ROUNDS"] ?? "") ?? 20
    static let clients = 6

    @Test("every acknowledged report survives, none is stored twice, and the file stays whole")
    func killRounds() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["PETSPOT_FAULT_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var rng = SplitMix64(seed: seed)
        let replay = "seed \(seed) (replay: make test-faults FAULT_SEED=\(seed))"
        let daemon = try DaemonProcess()
        let submitted = NIOLockedValueBox<Set<String>>([])
        let acknowledged = NIOLockedValueBox<[String: String]>([:])
        let socketPath = daemon.socketPath
        var kills: [Int] = []

        for round in 0..<Self.rounds {
            try daemon.start()
            let before = acknowledged.withLockedValue { $0.count }
            let done = Synchronization.Atomic<Int>(0)
            for client in 0..<Self.clients {
                let thread = Thread {
                    defer { done.add(1, ordering: .relaxed) }
                    // Whole reports, one after another on one connection, until the daemon dies.
                    guard let conn = try? PetSpotConnection(socketPath: socketPath, timeout: .seconds(30)) else { return }
                    var n = 0
                    while true {
                        n += 1
                        guard let flow = try? prepareReport(conn, chip: "\(600_000 + round * 10_000 + client * 1_000 + n)") else { return }
                        submitted.withLockedValue { _ = $0.insert(flow) }
                        guard case .success(let answer)? = try? conn.call("flow.submit", ["flowId": .string(flow)]),
                              let report = answer[path: "report", "id"]?.stringValue
                        else { return }
                        acknowledged.withLockedValue { $0[flow] = report }
                    }
                }
                thread.start()
            }
            // The injected fault: SIGKILL once submits flow, after a random delay.
            try waitUntil("a first acknowledged submit in round \(round)", seconds: 30) { acknowledged.withLockedValue { $0.count } > before }
            let delay = Int.random(in: 0..<800, using: &rng)
            kills.append(delay)
            usleep(useconds_t(delay * 1000))
            try daemon.kill()
            try waitUntil("every client of round \(round) to notice", seconds: 30) { done.load(ordering: .relaxed) == Self.clients }

            // Restarted on the same file: what was acknowledged is there.
            try daemon.start()
            let stored = try Self.storedReports(daemon)
            let acked = acknowledged.withLockedValue { $0 }
            let lost = acked.filter { stored[$0.key] != $0.value }
            #expect(lost.isEmpty, "round \(round), killed \(delay) ms in: acknowledged but not stored as acknowledged: \(lost.keys.sorted()); \(replay)")
            #expect(Set(stored.keys).isSubset(of: submitted.withLockedValue { $0 }), "round \(round): stored a report never submitted; \(replay)")
            let rows = try runProgram("/usr/bin/sqlite3", [daemon.databasePath,
                                                           "PRAGMA integrity_check; SELECT count(*), count(DISTINCT flow_id), count(DISTINCT id) FROM report;"])
            #expect(rows.stdout == "ok\n\(stored.count)|\(stored.count)|\(stored.count)\n", "round \(round): \(rows.stdout)\(rows.stderr); \(replay)")
            try daemon.kill()
        }
        let acked = acknowledged.withLockedValue { $0.count }
        let sent = submitted.withLockedValue { $0.count }
        print("SigkillRoundsTests: \(Self.rounds) rounds, \(Self.clients) clients, \(acked) acknowledged of \(sent) submitted, kills at \(kills) ms; \(replay)")
        #expect(acked >= Self.rounds, "\(replay)")
        try daemon.start()
        #expect(try daemon.stop() == 0)
        let check = try runProgram("/usr/bin/sqlite3", [daemon.databasePath, "PRAGMA integrity_check;"])
        #expect(check.stdout == "ok\n", "\(check.stdout)\(check.stderr); \(replay)")
    }

    /// flow id → report id of every stored report, read over the socket page by page.
    static func storedReports(_ daemon: DaemonProcess) throws -> [String: String] {
        let conn = try daemon.servedConnection()
        var stored: [String: String] = [:]
        var cursor: JSONValue = .null
        repeat {
            var params: JSONObject = ["limit": 100]
            if cursor != .null { params["cursor"] = cursor }
            let page = try conn.result("reports.list", params)
            for report in page["reports"]!.arrayValue! {
                let flow = report["flowId"]!.stringValue!
                #expect(stored[flow] == nil, "flow \(flow) stored twice")
                stored[flow] = report["id"]!.stringValue!
            }
            cursor = page["cursor"]!
        } while cursor != .null
        return stored
    }
}

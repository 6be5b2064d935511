import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
import Synchronization
import PetSpotTestSupport
import Testing

/// A report's changes carried by petspot-relay from a real daemon into a real PostgreSQL: each
/// version in order, exactly once, the erased one without personal data, whatever dies on the way.
@Suite("Relaying report changes into PostgreSQL", .serialized)
struct RelayChangesTests {
    /// The report's row as the daemon's `reports.get` gives it now: the whole report without
    /// its delivery (jsonb compares members, not their order), its status, version and time.
    static func expectCentralCopy(_ conn: PetSpotConnection, _ postgres: PostgresServer, _ id: String, version: Int,
                                  relay: RelayProcess) throws {
        try waitUntil("version \(version) of \(id) in PostgreSQL\n\(relay.log)", seconds: 30) {
            try postgres.psql("SELECT version FROM reports WHERE id = '\(id)'") == "\(version)"
        }
        let given = try #require(try conn.result("reports.get", ["reportId": .string(id)])["report"])
        #expect(given["version"] == .int(version))
        var document = try #require(given.objectValue)
        document["delivery"] = nil
        let same = try postgres.psql("""
            SELECT (report = $j$\(JSONWriter.string(.object(document)))$j$::jsonb) || ' ' || status || ' ' || (updated_at = '\(given["updatedAt"]?.stringValue ?? "")'::timestamptz)
            FROM reports WHERE id = '\(id)'
            """)
        #expect(same == "true \(given["status"]?.stringValue ?? "?") true", "\(JSONWriter.string(.object(document)))")
        try waitUntil("version \(version) of \(id) acknowledged") {
            try conn.result("reports.get", ["reportId": .string(id)])[path: "report", "delivery", "state"] == "delivered"
        }
    }

    /// The files of table reports and of its TOAST table, as PostgreSQL has them on disk now.
    static func tableFiles(_ postgres: PostgresServer) throws -> [String] {
        try postgres.psql("CHECKPOINT")
        let paths = try postgres.psql("""
            SELECT pg_relation_filepath(oid) FROM pg_class WHERE oid = 'reports'::regclass
            OR oid = (SELECT reltoastrelid FROM pg_class WHERE oid = 'reports'::regclass)
            """)
        return paths.split(separator: "\n").map { postgres.dataDirectory + "/" + $0 }
    }

    static func filesHold(_ text: String, _ files: [String]) -> Bool {
        files.contains { path in
            // Not FileManager.contents(atPath:): it leaks a buffer on an empty file (see FileDescriptorIO).
            ((try? FileDescriptorIO.readFile(path)).map { $0.firstRange(of: Array(text.utf8)) != nil }) ?? false
        }
    }

    @Test("filed, amended, renewed, closed and erased: each version reaches the central row, woken by relay.pending; the erased row holds no personal value and no photo, and its old versions leave the table's files with VACUUM FULL")
    func wholeLife() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(box: "kiosk-1").start()
        // An hour between polls: each change leaves only because relay.pending wakes the relay.
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "kiosk-1",
                                     settings: ["pollIntervalSeconds": 3_600, "retryMaxDelaySeconds": 1]).start()
        let conn = try daemon.connect()
        let id = try #require(try fileReport(conn).submit[path: "report", "id"]?.stringValue)
        let email = "life-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        try Self.expectCentralCopy(conn, postgres, id, version: 1, relay: relay)
        // No vacuum of its own meanwhile: the old row versions stay where the updates left them.
        try postgres.psql("ALTER TABLE reports SET (autovacuum_enabled = off)")
        #expect(try postgres.psql("SELECT encode(sha256(photo), 'hex') FROM reports WHERE id = '\(id)'") == sha256Hex(pngBytes))

        _ = try conn.result("reports.amend", ["reportId": .string(id), "values": ["contactEmail": .string(email)]])
        try Self.expectCentralCopy(conn, postgres, id, version: 2, relay: relay)
        #expect(try postgres.psql("SELECT count(*) FROM reports WHERE report::text LIKE '%\(email)%'") == "1")
        _ = try conn.result("reports.renew", ["reportId": .string(id)])
        try Self.expectCentralCopy(conn, postgres, id, version: 3, relay: relay)
        _ = try conn.result("reports.close", ["reportId": .string(id), "outcome": "found"])
        try Self.expectCentralCopy(conn, postgres, id, version: 4, relay: relay)
        _ = try conn.result("reports.erase", ["reportId": .string(id)])
        try Self.expectCentralCopy(conn, postgres, id, version: 5, relay: relay)

        #expect(try postgres.storedLives()[id] == "found|5|true")
        #expect(try postgres.psql("SELECT count(*) FROM reports") == "1")
        #expect(try postgres.psql("SELECT (photo IS NULL) || ' ' || (photo_media_type IS NULL) || ' ' || (report->'values'->>'species') FROM reports WHERE id = '\(id)'")
            == "true true dog")
        for personal in [email, "owner@example.org", "616091234567890", "Beagle", "+48123456789"] {
            #expect(try postgres.psql("SELECT count(*) FROM reports WHERE report::text LIKE '%\(personal)%'") == "0", "\(personal)")
        }
        let status = try relay.status().stdout
        #expect(!relay.log.contains(email) && !status.contains(email), "\(status)")

        // The row versions the updates left behind are dead, not gone, until a vacuum.
        #expect(Self.filesHold(email, try Self.tableFiles(postgres)), "the amended versions are not in the table's files to begin with")
        try postgres.psql("VACUUM FULL reports")
        let files = try Self.tableFiles(postgres)
        #expect(!Self.filesHold(email, files) && !Self.filesHold("616091234567890", files))
        #expect(try postgres.storedLives()[id] == "found|5|true")
        #expect(try relay.stop() == 0)
    }

    @Test("changes flow while the relay, the daemon and PostgreSQL are each SIGKILLed with a batch in flight, twice: every report ends centrally at the daemon's version and status, once")
    func killedWhileChangesFlow() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["PETSPOT_FAULT_SEED"] ?? "") ?? UInt64.random(in: 1...UInt64(UInt32.max))
        var rng = SplitMix64(seed: seed)
        let replay = "seed \(seed) (replay: make test-faults FAULT_SEED=\(seed))"
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay().start()
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a", settings: RelayDeliveryTests.settings(batchSize: 4)).start()
        let ids = try RelayDeliveryTests.file(12, on: daemon)
        try waitUntil("the first reports stored\n\(relay.log)") {
            try postgres.psql("SELECT to_regclass('reports') IS NOT NULL") == "t" && postgres.psql("SELECT count(*) FROM reports") != "0"
        }
        let changes = ChangingThread(socketPath: daemon.socketPath, ids: ids, seed: rng.next())
        var victims: [String] = []
        for round in 0..<6 {
            // A batch in flight: claimed, its write waiting inside PostgreSQL.
            let holder = try postgres.lockReports()
            try postgres.waitForBlockedWrite()
            usleep(useconds_t(Int.random(in: 0..<200, using: &rng) * 1000))
            switch round % 3 {
            case 0:
                victims.append("relay")
                try relay.kill()
                try postgres.unlockReports(holder)
                try relay.start()
            case 1:
                victims.append("petspotd")
                try daemon.kill()
                try postgres.unlockReports(holder)
                try daemon.start()
            default:
                victims.append("postgres")
                try postgres.kill()
                holder.waitUntilExit()
                try postgres.start()
            }
        }
        let made = changes.stop()
        print("RelayChangesTests: \(made) changes, kills of \(victims); \(replay)")
        #expect(made > 0, "\(replay)")
        try RelayDeliveryTests.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        let reports = try allReportIDs(try daemon.connect()).count
        #expect(try postgres.psql("SELECT count(*) || ' ' || count(DISTINCT id) FROM reports") == "\(reports) \(reports)", "\(replay)")
        #expect(try postgres.psql("SELECT count(*) FROM reports WHERE erased_at IS NOT NULL AND (photo IS NOT NULL OR report::text LIKE '%owner@example.org%')") == "0")
        #expect(try postgres.psql("SELECT count(*) FROM reports WHERE version > 1") != "0", "no change reached PostgreSQL; \(replay)")
        #expect(try relay.stop() == 0)
    }
}

/// Changes reports over the socket on a thread of its own until stopped, reconnecting while the
/// daemon is away: mostly amends and renewals, some closes, a few erasures, and a new report now
/// and then, so that something always changes.
private final class ChangingThread: @unchecked Sendable {
    private let stopping = Atomic<Bool>(false)
    private let changes = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(socketPath: String, ids: [String], seed: UInt64) {
        Thread.detachNewThread { [self] in
            var rng = SplitMix64(seed: seed)
            var ids = ids
            var connection: PetSpotConnection?
            while !stopping.load(ordering: .relaxed) {
                do {
                    let conn = try connection ?? PetSpotConnection(socketPath: socketPath, timeout: .seconds(10))
                    connection = conn
                    let id = JSONValue.string(ids.randomElement(using: &rng)!)
                    let roll = Int.random(in: 0..<100, using: &rng)
                    let answer: Result<JSONValue, RPCError>
                    switch roll {
                    case 0..<45: answer = try conn.call("reports.amend", ["reportId": id, "values": ["age": .int(Int.random(in: 1...20, using: &rng))]])
                    case 45..<70: answer = try conn.call("reports.renew", ["reportId": id])
                    case 70..<80: answer = try conn.call("reports.close", ["reportId": id, "outcome": roll % 2 == 0 ? "found" : "withdrawn"])
                    case 80..<84: answer = try conn.call("reports.erase", ["reportId": id])
                    default:
                        ids.append(try fileReport(conn).submit[path: "report", "id"]?.stringValue ?? "")
                        answer = .success(.null)
                    }
                    // A closed or erased report refuses most changes: not counted.
                    if case .success = answer { changes.add(1, ordering: .relaxed) }
                } catch {
                    // The daemon is away (killed): ask again shortly.
                    connection?.close()
                    connection = nil
                    usleep(20_000)
                }
            }
            connection?.close()
            done.signal()
        }
    }

    /// Stops changing; returns how many changes the daemon took.
    func stop() -> Int {
        stopping.store(true, ordering: .relaxed)
        done.wait()
        return changes.load(ordering: .relaxed)
    }
}

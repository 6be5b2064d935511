import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// What broke the relay's promise that an acknowledged report is stored centrally exactly once,
/// or kept it from stopping: a weak synchronous_commit, a trigger that drops rows, a reload that
/// lowers the claim limit mid-batch, SIGTERM mid-write and during a claim that hangs.
@Suite("The relay under attack", .serialized)
struct RelayAttackTests {
    static let fast = RelayDeliveryTests.fast

    /// A relay whose one batch of `count` reports, claimed whole, waits inside PostgreSQL on
    /// the lock the returned process holds on the central table.
    static func relayWritingOneBatch(of count: Int, daemon: DaemonProcess, postgres: PostgresServer) throws -> (RelayProcess, Process) {
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a",
                                     settings: RelayDeliveryTests.settings(batchSize: count)).start()
        // The relay makes the central table; stopped, it leaves the reports to one claim later
        // (running, it would take them as they come, a few at a time).
        try waitUntil("the central table") { try postgres.psql("SELECT to_regclass('reports') IS NOT NULL") == "t" }
        #expect(try relay.stop() == 0)
        try RelayDeliveryTests.file(count, on: daemon)
        let holder = try postgres.lockReports()
        try relay.start()
        try postgres.waitForBlockedWrite()
        try waitUntil("the batch claimed whole\n\(relay.log)") { try daemon.relayClaimed() == count }
        return (relay, holder)
    }

    @Test("a role whose synchronous_commit is off, then PostgreSQL SIGKILLed right after the acknowledgements: every acknowledged report is there")
    func synchronousCommitOff() throws {
        let postgres = try PostgresServer()
        try postgres.psql("ALTER ROLE postgres SET synchronous_commit = off")
        // Asynchronous commits reach the WAL on disk only when the WAL writer wakes: a long sleep
        // leaves them in memory, where a crash loses them.
        try postgres.psql("ALTER SYSTEM SET wal_writer_delay = '10s'")
        try postgres.psql("ALTER SYSTEM SET wal_writer_flush_after = '1GB'")
        try postgres.psql("SELECT pg_reload_conf()")
        let daemon = try DaemonProcess.forRelay().start()
        try RelayDeliveryTests.file(200, on: daemon)
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a",
                                     settings: RelayDeliveryTests.settings(batchSize: 10)).start()
        try waitUntil("every report acknowledged\n\(relay.log)", seconds: 60) { try daemon.relayPending() == 0 }
        try postgres.kill()
        #expect(try relay.stop() == 0)
        try postgres.start()
        #expect(try postgres.psql("SELECT count(*) FROM reports") == "200")
        #expect(relay.logLines(containing: "synchronous_commit raised to on for the relay's session") >= 1, "\(relay.log)")
    }

    @Test("a BEFORE INSERT trigger that drops some rows: those are not acknowledged, the error shows in --status and the log, the others are delivered, and once the trigger goes they follow, each once")
    func triggerDropsRows() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(settings: ["relay": ["group": "root", "claimTimeoutSeconds": 1]]).start()
        let relay = try RelayProcess(daemon: daemon, postgresURL: postgres.url(), box: "a",
                                     settings: RelayDeliveryTests.settings(batchSize: 10)).start()
        try waitUntil("the central table") { try postgres.psql("SELECT to_regclass('reports') IS NOT NULL") == "t" }
        try postgres.psql("""
            CREATE FUNCTION drop_refused() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NEW.report->'values'->>'additionalDescription' = 'refused' THEN RETURN NULL; END IF;
              RETURN NEW;
            END $$
            """)
        try postgres.psql("CREATE TRIGGER drop_refused BEFORE INSERT ON reports FOR EACH ROW EXECUTE FUNCTION drop_refused()")
        let conn = try daemon.connect()
        let refused = try (0..<2).map { _ in try fileReport(conn, description: "refused").submit[path: "report", "id"]!.stringValue! }
        let kept = try (0..<3).map { _ in try fileReport(conn).submit[path: "report", "id"]!.stringValue! }

        try waitUntil("the three kept reports stored and acknowledged\n\(relay.log)") {
            try postgres.psql("SELECT count(*) FROM reports") == "3" && daemon.relayPending() == 2
        }
        for id in kept { #expect(try conn.result("reports.get", ["reportId": .string(id)])[path: "report", "delivery", "state"] == "delivered") }
        for id in refused { #expect(try conn.result("reports.get", ["reportId": .string(id)])[path: "report", "delivery", "state"] == "pending") }
        try waitUntil("the error in --status") { (try? relay.status())?.stdout.contains("not kept by table reports") == true }
        let status = try relay.status()
        #expect(status.status == 1, "\(status.stdout)")
        #expect(relay.logLines(containing: "error: PostgreSQL did not keep reports although the statement succeeded") >= 1, "\(relay.log)")
        // Retried, not given up: once the trigger is gone, they are stored and acknowledged.
        try postgres.psql("DROP TRIGGER drop_refused ON reports")
        try RelayDeliveryTests.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        try waitUntil("--status healthy again") { (try? relay.status())?.status == 0 }
    }

    @Test("a reload lowers relay.maxClaimReports while a batch of 100 is in flight: its acknowledgement is taken, and the next claims get the new maximum")
    func reloadLowersClaimLimit() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(settings: ["relay": ["group": "root", "claimTimeoutSeconds": 60, "maxClaimReports": 100]]).start()
        let (relay, holder) = try Self.relayWritingOneBatch(of: 100, daemon: daemon, postgres: postgres)
        #expect(try daemon.relayClaimed() == 100)
        try daemon.rewriteConfiguration(["relay": ["maxClaimReports": 10]])
        daemon.signal(SIGHUP)
        try waitUntil("the reload") { daemon.log.contains("reloaded") }
        try postgres.unlockReports(holder)
        try waitUntil("the batch acknowledged\n\(relay.log)") { try daemon.relayPending() == 0 }
        try RelayDeliveryTests.file(25, on: daemon)
        try RelayDeliveryTests.expectAllDeliveredOnce(daemon, postgres, box: "a", relay: relay)
        #expect(relay.logLines(containing: "petspotd does not know a report") == 0, "\(relay.log)")
        // A claim for more than the daemon now hands out gets the new maximum, not a refusal.
        #expect(try relay.stop() == 0)
        try RelayDeliveryTests.file(15, on: daemon)
        let claim = try daemon.connect().result("relay.claim", ["limit": 100])
        #expect(claim["reports"]?.arrayValue?.count == 10)
    }

    @Test("SIGTERM while a batch waits inside PostgreSQL: the relay acknowledges the batch once it is stored, then exits 0; nothing stays claimed")
    func sigtermDuringWrite() throws {
        let postgres = try PostgresServer()
        let daemon = try DaemonProcess.forRelay(settings: ["relay": ["group": "root", "claimTimeoutSeconds": 300]]).start()
        let (relay, holder) = try Self.relayWritingOneBatch(of: 5, daemon: daemon, postgres: postgres)
        let process = try #require(relay.process)
        process.terminate()
        try postgres.unlockReports(holder)
        try waitUntil("the relay to stop\n\(relay.log)", seconds: 20) { !process.isRunning }
        #expect(process.terminationStatus == 0)
        #expect(try postgres.psql("SELECT count(*) FROM reports") == "5")
        #expect(try daemon.relayPending() == 0, "\(relay.log)")
        #expect(try daemon.relayClaimed() == 0)
    }

    @Test("SIGTERM while a claim hangs on a daemon that never answers: the relay stops within seconds")
    func sigtermDuringHangingClaim() throws {
        let postgres = try PostgresServer()
        let fake = try SilentDaemon(behaviour: .neverAnswers)
        let relay = try RelayProcess(socket: fake.socketPath, postgresURL: postgres.url(), box: "a").start()
        try waitUntil("the relay to ask the silent daemon\n\(relay.log)") { fake.connections >= 1 }
        let process = try #require(relay.process)
        process.terminate()
        // The claim's own bound is 60 s: only a stop that cuts it short ends this soon.
        try waitUntil("the relay to stop\n\(relay.log)", seconds: 10) { !process.isRunning }
        #expect(process.terminationStatus == 0)
    }
}

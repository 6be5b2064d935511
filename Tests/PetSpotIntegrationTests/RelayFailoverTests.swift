import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// A central PostgreSQL that fails over: a primary with a synchronous standby, the primary
/// stopped and the standby promoted while reports flow. The relay, given both hosts and
/// target_session_attrs=read-write (libpq's multi-host string), goes on with the new primary.
@Suite("Relaying through a PostgreSQL failover", .serialized)
struct RelayFailoverTests {
    @Test("the primary stops and its synchronous standby is promoted mid-delivery: every acknowledged report is in the promoted server exactly once")
    func failover() throws {
        // Every commit waits until the standby has it on disk ('*': any standby is synchronous).
        let primary = try PostgresServer(settings: ["synchronous_standby_names=*"])
        let standby = try PostgresServer(standbyOf: primary)
        try waitUntil("the standby to stream synchronously\n\(standby.log)") {
            try primary.psql("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") == "1"
        }
        #expect(try standby.psql("SELECT pg_is_in_recovery()") == "t")

        let daemon = try DaemonProcess.forRelay().start()
        try RelayDeliveryTests.file(20, on: daemon)
        // The standby first: libpq skips it while it is read-only and takes the primary.
        let hosts = "postgresql://postgres@127.0.0.1:\(standby.port),127.0.0.1:\(primary.port)/postgres?target_session_attrs=read-write&sslmode=disable"
        let relay = try RelayProcess(daemon: daemon, postgresURL: hosts, box: "a", settings: RelayDeliveryTests.settings(batchSize: 5)).start()
        try waitUntil("the first reports stored on the primary\n\(relay.log)") {
            Int(try primary.psql("SELECT count(*) FROM reports")) ?? 0 >= 5
        }

        // Reports go on being filed while the primary stops and until the standby takes over.
        let filing = FilingThread(daemon: daemon, count: 30)
        try primary.stop()
        try waitUntil("the relay to notice\n\(relay.log)") { relay.logLines(containing: "PostgreSQL unreachable") >= 1 }
        try standby.promote()
        try filing.wait()
        try RelayDeliveryTests.file(10, on: daemon)

        try RelayDeliveryTests.expectAllDeliveredOnce(daemon, standby, box: "a", relay: relay)
        #expect(try standby.psql("SELECT count(*) FROM reports") == "60")
        #expect(relay.logLines(containing: "PostgreSQL reachable") >= 2, "\(relay.log)")
        try relay.stop()
    }
}

/// Files reports on a thread of its own, so that they arrive while the test stops servers.
private final class FilingThread: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var failure: (any Error)?

    init(daemon: DaemonProcess, count: Int) {
        let socketPath = daemon.socketPath
        Thread.detachNewThread { [self] in
            do {
                let conn = try PetSpotConnection(socketPath: socketPath, timeout: .seconds(30))
                for _ in 0..<count { _ = try fileReport(conn) }
            } catch {
                failure = error
            }
            done.signal()
        }
    }

    func wait() throws {
        done.wait()
        if let failure { throw failure }
    }
}

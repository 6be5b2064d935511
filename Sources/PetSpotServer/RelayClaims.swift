import NIOConcurrencyHelpers
import PetSpotSystem

/// Which reports a relay holds now: report id -> the end of its lease, on the daemon's clock,
/// and the version of the report it handed out.
///
/// Memory only, by design: after a restart every undelivered report can be claimed again (a
/// relay may deliver one twice; the central database takes a report once by its id). The one
/// owner is `DaemonServices`; every change happens under this type's lock.
public final class RelayClaims: Sendable {
    private struct Lease {
        let end: DaemonInstant
        let version: Int?
    }

    private let leases = NIOLockedValueBox<[String: Lease]>([:])
    private let clock: DaemonClock

    public init(clock: DaemonClock) {
        self.clock = clock
    }

    /// The ids under a lease that has not ended. Ended leases are dropped on the way.
    public func held() -> Set<String> {
        leases.withLockedValue { leases in
            Self.dropEnded(&leases, now: clock.now)
            return Set(leases.keys)
        }
    }

    /// How many reports are under a lease that has not ended.
    public var count: Int {
        leases.withLockedValue { leases in
            Self.dropEnded(&leases, now: clock.now)
            return leases.count
        }
    }

    /// Leases `ids` for `duration` from now and returns them in order, leaving out any that
    /// another claim took meanwhile (between looking at `held()` and this call): a report is
    /// never handed to two claims at once. `versions` are the versions handed out, by id.
    public func take(_ ids: [String], for duration: Duration, versions: [String: Int] = [:]) -> [String] {
        leases.withLockedValue { leases in
            let now = clock.now
            Self.dropEnded(&leases, now: now)
            let end = now.advanced(by: duration)
            var taken: [String] = []
            for id in ids where leases[id] == nil {
                leases[id] = Lease(end: end, version: versions[id])
                taken.append(id)
            }
            return taken
        }
    }

    /// The versions handed out with the leases of `ids` that have not ended.
    public func versions(of ids: some Sequence<String>) -> [String: Int] {
        leases.withLockedValue { leases in
            Self.dropEnded(&leases, now: clock.now)
            var found: [String: Int] = [:]
            for id in ids { if let version = leases[id]?.version { found[id] = version } }
            return found
        }
    }

    /// Ends the leases of `ids` (acknowledged: delivered now).
    public func release(_ ids: some Sequence<String>) {
        leases.withLockedValue { leases in
            for id in ids { leases[id] = nil }
        }
    }

    private static func dropEnded(_ leases: inout [String: Lease], now: DaemonInstant) {
        // A lease ends at its instant: from then on the report is handed out again.
        leases = leases.filter { $0.value.end > now }
    }
}

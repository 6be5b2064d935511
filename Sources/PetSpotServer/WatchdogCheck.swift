import NIOCore
import NIOPosix
import PetSpotStore

/// What the watchdog checks before each ping (with `WATCHDOG_USEC`, every half interval).
struct WatchdogCheck: Sendable {
    let group: MultiThreadedEventLoopGroup
    let services: DaemonServices
    let tracker: ConnectionTracker
    let faults: FaultLog

    /// Pings systemd's watchdog only after proving the daemon still works: every event loop
    /// runs a task and the database answers a read from the file at its path. A hung loop, a
    /// failing disk or a database file deleted or replaced means no ping, and systemd restarts
    /// the service.
    func ping(_ notifier: SystemdNotifier) async {
        do {
            for loop in group.makeIterator() {
                // A hung loop never answers; a stop must not wait for it.
                guard let answer = await loop.submit({}).resultUnlessCancelled() else { return }
                try answer.get()
            }
            _ = try await services.store.count()
        } catch {
            faults.record("watchdog", .error, "not healthy: withholding the watchdog ping", ["error": "\(error)"])
            let reason = (error as? ReportStoreError)?.clientMessage ?? "an event loop does not answer"
            notifier.notify("STATUS=Failing: \(reason)")
            return
        }
        notifier.notify("WATCHDOG=1", "STATUS=Serving: \(tracker.count) connections, \(services.registry.count) flows")
    }
}

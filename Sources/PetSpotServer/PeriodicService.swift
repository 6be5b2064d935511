import AsyncAlgorithms
import PetSpotSystem
import ServiceLifecycle

/// Work done every `interval` while the daemon runs (sweeping idle flows, writing held-back
/// fault counts, proving to systemd's watchdog that it works), and at the stop.
struct PeriodicService: Service {
    let interval: Duration
    let clock: DaemonClock
    let work: @Sendable () async -> Void
    var atStop: @Sendable () -> Void = {}

    func run() async {
        for await _ in AsyncTimerSequence(interval: interval, clock: clock).cancelOnGracefulShutdown() {
            await work()
        }
        atStop()
    }
}

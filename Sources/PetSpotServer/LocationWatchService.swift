import PetSpotLocation
import ServiceLifecycle
import NIOConcurrencyHelpers

/// The location providers' background work (the gpsd watch thread), from the moment the
/// daemon runs to its stop. Nothing of it runs before: a start that fails leaves no thread.
final class LocationWatchService: Service {
    private enum Phase { case notStarted, running, stopped }

    private let services: DaemonServices
    private let phase = NIOLockedValueBox(Phase.notStarted)

    init(services: DaemonServices) {
        self.services = services
    }

    func run() async {
        // Running first, then the providers read: a reload in between starts the new ones itself.
        phase.withLockedValue { $0 = .running }
        services.location.start()
        // Returns at graceful shutdown, throws when cancelled: either way, stop.
        try? await gracefulShutdown()
        phase.withLockedValue { $0 = .stopped }
        services.location.stop()
    }

    /// A reload put `new` in force in place of `old`: the providers it drops stop, the ones it
    /// brings start if the service is running (otherwise `run` starts them, or nobody does).
    func replaced(_ old: LocationService, with new: LocationService) {
        old.stop(keeping: new)
        if phase.withLockedValue({ $0 == .running }) { new.start() }
    }
}

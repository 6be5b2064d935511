import AsyncAlgorithms
import Logging
import PetSpotLogging
import PetSpotSystem
import ServiceLifecycle

/// Hands the kernel back the pages of the program file and its libraries that only the start ran (`StartupPages`),
/// once the start has settled: by then the services have started, reached gpsd or begun
/// retrying, and answered their first clients, so what comes back afterwards is what serving
/// runs. A stop that comes first ends it with nothing done.
struct StartupPagesService: Service {
    let after: Duration
    let clock: DaemonClock
    let logger: Logger

    func run() async {
        for await _ in AsyncTimerSequence(interval: after, clock: clock).cancelOnGracefulShutdown() {
            StartupPages.release(logger: logger)
            return
        }
    }
}

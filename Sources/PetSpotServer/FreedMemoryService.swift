import AsyncAlgorithms
import Logging
import PetSpotSystem
import ServiceLifecycle

/// Gives the kernel back the memory malloc keeps after clients held much and let go of it
/// (`trimMallocFreeMemory`): one user's unread answers or notifications on many connections are
/// many blocks of a few KiB, which free() keeps in the process for good. Looks every `interval`
/// whether what clients hold (`ClientMemoryBudget`) has fallen to half a peak of at least
/// `minimumPeak` bytes since it last gave memory back.
struct FreedMemoryService: Service {
    static let interval = Duration.seconds(5)
    static let minimumPeak = 8 * 1024 * 1024

    let budget: ClientMemoryBudget
    let clock: DaemonClock
    let logger: Logger

    func run() async {
        for await _ in AsyncTimerSequence(interval: Self.interval, clock: clock).cancelOnGracefulShutdown() {
            guard budget.fellFromPeak(minimum: Self.minimumPeak) else { continue }
            let before = residentBytes()
            trimMallocFreeMemory()
            logger.info("freed memory returned to the system", metadata: [
                "rssBefore": "\(before.map(String.init) ?? "?")", "rssAfter": "\(residentBytes().map(String.init) ?? "?")",
            ])
        }
    }
}

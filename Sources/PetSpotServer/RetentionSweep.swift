import FoundationEssentials
import Logging
import PetSpotStore

/// Retention, on the daemon's clock (REPORTS.md): a `missing` report not renewed for
/// `reports.expireAfterDays` becomes `expired`, one `found`, `withdrawn` or `expired` for
/// `reports.eraseAfterDays` is erased, from the disk too. Swept every second with the settings
/// in force then, so a reload recomputes what is due and the moment is kept within a second;
/// the first sweep, at start, takes what became due while the daemon was down. Each expiry and
/// erasure is logged once with the report's id (no personal data), told to its owner's
/// `reports.watch` and wakes the relay. The sweep is also the timer that retries a disk
/// cleanup an erasure left pending (a reader held the WAL).
struct RetentionSweep: Sendable {
    /// Reports changed in one transaction; a sweep goes on until fewer are due.
    static let batch = 100
    static let interval = Duration.seconds(1)

    let services: DaemonServices
    let logger: Logger

    func sweep() async {
        let retention = services.configuration.retention
        let store = services.store
        let now = services.clock.wallTime()
        do {
            if let due = try await store.nextDue(expireAfter: retention.expireAfter, eraseAfter: retention.eraseAfter), due <= now {
                while true {
                    let expired = try await store.expireByRetention(now: now, expireAfter: retention.expireAfter, maxReports: Self.batch)
                    told(expired, "report expired")
                    for report in expired { await expiredFromList(report.id) }
                    if expired.count < Self.batch { break }
                }
                while true {
                    let erased = try await store.eraseByRetention(now: now, eraseAfter: retention.eraseAfter, maxReports: Self.batch)
                    told(erased, "report erased by retention")
                    if erased.count < Self.batch { break }
                }
            } else if store.pendingDiskCleanup != nil {
                _ = try await store.retryDiskCleanup()
            }
        } catch {
            logger.error("retention sweep failed; trying again in a second", metadata: ["error": "\(error)"])
        }
    }

    /// An expired report left the animal list: it was missing a moment ago.
    private func expiredFromList(_ id: String) async {
        guard let now = await services.watchedAnimal(id) else { return }
        services.subscriptions.animalChanged(before: now.with(status: .missing), after: now)
    }

    private func told(_ reports: [StoredReport], _ event: String) {
        guard !reports.isEmpty else { return }
        for report in reports {
            logger.info("\(event)", metadata: ["report": "\(report.id)", "version": "\(report.version)"])
            if let view = try? services.reportView(report) {
                services.subscriptions.reportChanged(.updated, view, owner: report.ownerUID)
            }
        }
        services.pendingCount.reportsFiled()
    }
}

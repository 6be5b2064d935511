import Logging
import PetSpotStore
import ServiceLifecycle

/// Describes, once after start, the public copies of photos stored before the board had them:
/// until then the public sees no photo of those reports. A few photos at a time (they are
/// large), each cleaned (`MetadataFreePhoto`) on this task, never on an event loop; a watcher
/// of the animal list is told of each one it now sees a photo of. A stop ends it between
/// photos; what is left is taken at the next start.
struct PublicPhotoBackfill: Service {
    /// Photos read per batch: bounded memory whatever the database holds.
    static let batch = 4

    let services: DaemonServices
    let logger: Logger

    func run() async {
        _ = await cancelWhenGracefulShutdown { await self.describeAll() }
        // Done: stay until the stop reaches this service. One that returns on its own while the
        // group is stopping the others is taken by ServiceLifecycle as a failure, and petspotd
        // would exit 1 from a stop that came right after its start.
        try? await gracefulShutdown()
    }

    /// Returns how many were described.
    @discardableResult
    func describeAll() async -> Int {
        let store = services.store
        var described = 0
        do {
            while !Task.isCancelled {
                let undescribed = try await store.boardEntriesToDescribe(limit: Self.batch)
                if undescribed.isEmpty { break }
                for entry in undescribed where !Task.isCancelled {
                    let before = await services.watchedAnimal(entry.reportID)
                    let copy = BoardFields.publicPhoto(of: entry.photo.data)
                    if try await store.describePublicPhoto(id: entry.reportID, photoSHA256: entry.photo.sha256, as: copy) {
                        described += 1
                        await services.animalChanged(entry.reportID, before: before)
                    }
                }
            }
        } catch {
            logger.error("describing the public copies of stored photos failed; the rest are taken at the next start",
                         metadata: ["error": "\(error)"])
        }
        if described > 0 { logger.info("public copies of stored photos described", metadata: ["photos": "\(described)"]) }
        return described
    }
}

import Logging
import PetSpotStore
import ServiceLifecycle

/// The reports database was found damaged: the daemon stops and leaves the file as it was.
public struct DatabaseDamaged: Error, CustomStringConvertible {
    public let error: ReportStoreError
    public var description: String { error.description }
}

/// Checks a database too large to check before serving, then waits for the store to find
/// damage at any later operation. Either way, damage ends the daemon: a graceful stop, then exit
/// status 65, on which the unit does not restart; the file and its WAL stay as they were.
struct DatabaseDamageService: Service {
    let store: ReportStore
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            if store.hasDeferredCheck {
                do throws(ReportStoreError) {
                    try await store.checkDeferred()
                    logger.info("database checked", metadata: ["database": "\(store.path)"])
                } catch {
                    // Damage is told below; anything else (a lost file) by the operations that need the file.
                    if error.kind != .damaged { logger.warning("cannot check the database", metadata: ["error": "\(error)"]) }
                }
            }
            for await damage in store.damageFound {
                logger.critical("the reports database is damaged; stopping", metadata: ["error": "\(damage)"])
                throw DatabaseDamaged(error: damage)
            }
        }
    }
}

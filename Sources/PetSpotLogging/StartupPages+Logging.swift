import Logging
import PetSpotSystem

extension StartupPages {
    /// `release()`, with one log line saying what was handed back or why the pages were kept:
    /// petspotd's start and petspot-relay's first idle moment both say it so.
    public static func release(logger: Logger) {
        do {
            let released = try release()
            logger.info("startup pages released", metadata: ["mappings": "\(released.mappings)", "bytes": "\(released.bytes)"])
        } catch {
            logger.warning("startup pages kept", metadata: ["error": "\(error)"])
        }
    }
}

import Logging
import PetSpotSystem

extension StartupPages {
    /// `release()`, with one log line saying what was handed back or why the pages were kept:
    /// petspotd's start and petspot-relay's idle moments both say it so.
    public static func release(logger: Logger, level: Logger.Level = .info, message: Logger.Message = "startup pages released") {
        do {
            let released = try release()
            logger.log(level: level, message, metadata: ["mappings": "\(released.mappings)", "bytes": "\(released.bytes)"])
        } catch {
            logger.warning("startup pages kept", metadata: ["error": "\(error)"])
        }
    }
}

import Logging
import PetSpotSystem

extension StartupPages {
    /// `release()`, with one log line saying what was handed back or why the pages were kept:
    /// petspotd's start and petspot-relay's idle moments both say it so.
    /// Answers whether the pages went, so that a caller releasing again and again can stop
    /// after a kernel that refuses said so once.
    @discardableResult
    public static func release(logger: Logger, level: Logger.Level = .info, message: Logger.Message = "startup pages released") -> Bool {
        do {
            let released = try release()
            logger.log(level: level, message, metadata: ["mappings": "\(released.mappings)", "bytes": "\(released.bytes)"])
            return true
        } catch {
            logger.warning("startup pages kept", metadata: ["error": "\(error)"])
            return false
        }
    }
}

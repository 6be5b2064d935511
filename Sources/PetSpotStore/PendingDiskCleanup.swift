import FoundationEssentials

/// Erased data that may still be on the disk: the WAL could not be folded into the database
/// file and truncated yet, most often because another connection holds an old snapshot (a
/// `sqlite3 .backup` in progress). The erasure itself is committed and durable; the store tries
/// again at every write, every retention sweep and `retryDiskCleanup()`.
public struct PendingDiskCleanup: Sendable, Hashable {
    /// The first erasure not yet cleaned from the disk (or the start, for a WAL an earlier run left).
    public let since: Date
    /// Why the last attempt did not finish.
    public let reason: String
    /// Attempts made so far.
    public let attempts: Int

    public init(since: Date, reason: String, attempts: Int) {
        self.since = since
        self.reason = reason
        self.attempts = attempts
    }
}

import FoundationEssentials
import PetSpotSQLite

// Erased data leaving the disk. secure_delete zeroes what a change deletes, but the pages as
// they were stay in the WAL's older frames, and in the database file until a checkpoint writes
// the new ones over them: after an erasure the WAL is checkpointed and truncated to nothing.
extension ReportStore {
    /// Set while erased data may still be in the database file or its WAL; nil when the disk is
    /// clean. For the daemon's status and log.
    public var pendingDiskCleanup: PendingDiskCleanup? { diskCleanup.withLockedValue { $0 } }

    /// Tries now, in a turn of its own, to fold the WAL into the database file and truncate it,
    /// when erased data may still be there. Returns whether the disk is clean. Never waits for
    /// another connection: one that holds a snapshot keeps it pending.
    @discardableResult
    public func retryDiskCleanup() async throws(ReportStoreError) -> Bool {
        guard pendingDiskCleanup != nil else { return true }
        return try await operation("cannot clean erased data from the disk") { [self] db in
            await cleanDiskIfPending(db)
            return pendingDiskCleanup == nil
        }
    }

    /// After an erasure has committed, in the same turn.
    func cleanDisk(_ db: DatabaseConnection, afterErasureAt now: Date) async {
        markDiskCleanupPending(since: now)
        await cleanDiskIfPending(db)
    }

    /// After an erasure has committed, in the same turn, on the database thread.
    func cleanDisk(_ sqlite: SQLiteDatabase, afterErasureAt now: Date) {
        markDiskCleanupPending(since: now)
        cleanDiskIfPending(sqlite)
    }

    private func markDiskCleanupPending(since now: Date) {
        diskCleanup.withLockedValue { pending in
            pending = PendingDiskCleanup(
                since: pending?.since ?? now, reason: pending?.reason ?? "not yet tried", attempts: pending?.attempts ?? 0)
        }
    }

    /// At the end of a turn that wrote, and of every sweep: a cleanup left pending is tried again.
    func cleanDiskIfPending(_ db: DatabaseConnection) async {
        guard pendingDiskCleanup != nil else { return }
        noteDiskCleanup(await Self.checkpointTruncating(db))
    }

    /// The same, in a turn that runs on the database thread.
    func cleanDiskIfPending(_ sqlite: SQLiteDatabase) {
        guard pendingDiskCleanup != nil else { return }
        noteDiskCleanup(Self.checkpointTruncating(sqlite))
    }

    /// In the turn: nothing else sets or clears it meanwhile.
    private func noteDiskCleanup(_ failure: String?) {
        diskCleanup.withLockedValue { pending in
            guard let failure, let before = pending else {
                pending = nil
                return
            }
            pending = PendingDiskCleanup(since: before.since, reason: failure, attempts: before.attempts + 1)
        }
    }

    /// Folds the whole WAL into the database file and truncates it to nothing, without waiting
    /// for another connection (a busy timeout here would hold every operation of the store up).
    /// Returns nil when done, else why not.
    static func checkpointTruncating(_ db: DatabaseConnection) async -> String? {
        do {
            return try await db.withDatabase { checkpointTruncating($0) }
        } catch {
            return "the WAL checkpoint failed: \(error)"
        }
    }

    /// The same, on the database thread.
    static func checkpointTruncating(_ sqlite: SQLiteDatabase) -> String? {
        var failure: String?
        do {
            // PRAGMA takes no bound parameters; the values are constants.
            try sqlite.execute("PRAGMA busy_timeout = 0")
            // A reader or writer of another connection that stops it says so in the result, not by failing.
            if try sqlite.row("PRAGMA wal_checkpoint(TRUNCATE)")?.integer("busy") != 0 {
                failure = "another connection is using the database (a backup, say), so the WAL cannot be "
                    + "folded into the file and truncated yet"
            }
        } catch {
            failure = "the WAL checkpoint failed: \(error)"
        }
        do {
            try sqlite.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        } catch {
            failure = (failure.map { $0 + "; " } ?? "") + "cannot restore the busy timeout: \(error)"
        }
        return failure
    }
}

import Foundation
import GRDB
import PetSpotSystem
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finished reports, stored durably in one SQLite file.
///
/// All database work after opening runs on GRDB's own dispatch queues (async `read`/`write`), never on
/// the caller's thread. Writes are serialized; reads run concurrently on a WAL snapshot.
public final class ReportStore: Sendable {
    /// The database file, for error messages.
    public let path: String
    private let pool: DatabasePool
    /// Declared after `pool`: its descriptor must outlive SQLite's (see DatabaseFileWatch).
    private let watch: DatabaseFileWatch
    private let isClosed = Mutex(false)

    /// How long a statement waits for a lock held by another connection before failing.
    private static let busyTimeout: TimeInterval = 5
    /// The WAL file is truncated to this size after a checkpoint, so one large photo does not leave
    /// a large WAL file behind for the years the daemon runs.
    private static let walSizeLimitBytes = 4 * 1024 * 1024

    /// Opens (creating it and its parent directory if missing) the database, WAL mode, synchronous=FULL so a commit is durable when it returns,
    /// busy timeout, foreign keys, and runs the migrations (registered from version 1 on with DatabaseMigrator; refuses a database whose schema is newer than it knows).
    ///
    /// A new directory is created owner-only (0700) and a new file owner-only (0600): reports hold
    /// contact details. Existing files and directories keep their permissions.
    public init(path: String) throws(ReportStoreError) {
        self.path = path
        try Self.createFileIfMissing(path: path)

        var configuration = Configuration()
        configuration.label = "petspotd.reports"
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            try db.execute(sql: """
                PRAGMA synchronous = FULL;
                PRAGMA journal_size_limit = \(Self.walSizeLimitBytes);
                """)
        }

        try ReportSchema.checkCanMigrate(path: path, configuration: configuration)
        do {
            pool = try DatabasePool(path: path, configuration: configuration)
            // Opening the pool switches the writer to WAL mode and, with it, lowers its synchronous
            // setting to NORMAL, under which the last commits can be lost on power failure.
            // Raise it again after opening so every commit is on disk when submit returns.
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            try ReportSchema.migrator.migrate(pool)
        } catch {
            throw ReportStoreError(wrapping: error, path: path, action: "cannot open", fallback: .open)
        }
        watch = try DatabaseFileWatch(path: path)
    }

    /// Inserts in one transaction; returns only after the commit is durable in the file at `path`:
    /// when that file was deleted, replaced, truncated or overwritten, throws `.fileLost` instead. If a report for flowID already exists (UNIQUE constraint), returns that one unchanged
    /// (also when two submits race). `inserted` tells which happened.
    ///
    /// Throws `.conflict` if the flow's report belongs to another user (it is never handed out),
    /// or if the report id is already used by another flow.
    public func submit(_ report: NewReport) async throws(ReportStoreError) -> (report: StoredReport, inserted: Bool) {
        let path = self.path
        let result = try await writing("cannot submit report") { db -> (StoredReport, Bool) in
            // The write transaction is IMMEDIATE (GRDB's default for writes): no other writer,
            // in this process or another, can insert between this lookup and the insert.
            if let existing = try Row.fetchOne(db, sql: """
                SELECT \(StoredReport.selectedColumns) FROM report WHERE flow_id = ?
                """, arguments: [report.flowID]).map(StoredReport.init(row:)) {
                guard existing.ownerUID == report.ownerUID else {
                    throw ReportStoreError(
                        kind: .conflict, path: path,
                        message: "cannot submit report: flow \(report.flowID) was submitted by another user")
                }
                return (existing, false)
            }
            do {
                try db.execute(sql: """
                    INSERT INTO report (id, flow_id, owner_uid, submitted_at, values_json,
                                        photo_media_type, photo_sha256, photo_bytes, photo)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [
                        report.id, report.flowID, report.ownerUID, report.submittedAt, report.valuesJSON,
                        report.photo?.mediaType, report.photo?.sha256, report.photo?.data.count,
                        report.photo.map { Data($0.data) },
                    ])
            } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
                // flow_id was free (checked above), so the id is taken.
                throw ReportStoreError(
                    kind: .conflict, path: path,
                    message: "cannot submit report: report id \(report.id) already belongs to another flow")
            }
            return (StoredReport(report), true)
        }
        return (report: result.0, inserted: result.1)
    }

    /// The owner's reports, newest first (by insertion order, not by clock text), at most `limit`;
    /// `cursor` is the opaque text of a previous page's nextCursor, nil at the end. A cursor that
    /// is not one of this owner's throws ReportStoreError with kind .invalidCursor.
    /// A limit below 1 throws `.invalidLimit`; bounding it from above is the caller's business.
    public func list(ownerUID: UInt32, limit: Int, cursor: String?) async throws(ReportStoreError) -> ReportPage {
        guard limit >= 1 else {
            throw ReportStoreError(kind: .invalidLimit, path: nil, message: "invalid limit \(limit): must be at least 1")
        }
        let invalidCursor = ReportStoreError(
            kind: .invalidCursor, path: nil, message: "invalid cursor: not one returned by a reports listing")
        let after: ReportCursor?
        if let cursor {
            guard let parsed = ReportCursor(text: cursor) else { throw invalidCursor }
            after = parsed
        } else {
            after = nil
        }
        // One row more than asked tells whether another page follows, so the last page says so
        // even when the count is an exact multiple of the limit.
        let fetchLimit = limit == Int.max ? limit : limit + 1
        let rows = try await reading("cannot list reports") { db -> [StoredReport]? in
            var sql = "SELECT \(StoredReport.selectedColumns) FROM report WHERE owner_uid = :owner"
            var arguments: StatementArguments = ["owner": ownerUID, "limit": fetchLimit]
            if let after {
                guard let seq = try Int64.fetchOne(
                    db, sql: "SELECT seq FROM report WHERE id = ? AND owner_uid = ?",
                    arguments: [after.afterReportID, ownerUID])
                else { return nil }
                sql += " AND seq < :before"
                arguments += ["before": seq]
            }
            sql += " ORDER BY seq DESC LIMIT :limit"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(StoredReport.init(row:))
        }
        guard let rows else { throw invalidCursor }
        let page = rows.prefix(limit)
        let nextCursor = rows.count > limit ? page.last.map { ReportCursor(afterReportID: $0.id).text } : nil
        return ReportPage(reports: Array(page), nextCursor: nextCursor)
    }

    /// The report if it exists AND belongs to ownerUID; another user's report is nil (it does not exist for them).
    public func get(id: String, ownerUID: UInt32) async throws(ReportStoreError) -> StoredReport? {
        try await reading("cannot read report") { db in
            try Row.fetchOne(db, sql: """
                SELECT \(StoredReport.selectedColumns) FROM report WHERE id = ? AND owner_uid = ?
                """, arguments: [id, ownerUID]).map(StoredReport.init(row:))
        }
    }

    /// The photo bytes of a report the owner can see; nil if the report has no photo or is not theirs.
    public func photo(reportID: String, ownerUID: UInt32) async throws(ReportStoreError) -> StoredPhoto? {
        try await reading("cannot read photo") { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT photo_media_type, photo_sha256, photo FROM report
                WHERE id = ? AND owner_uid = ? AND photo IS NOT NULL
                """, arguments: [reportID, ownerUID])
            else { return nil }
            let data: Data = try row.decode(forColumn: "photo")
            return StoredPhoto(
                mediaType: try row.decode(forColumn: "photo_media_type"),
                sha256: try row.decode(forColumn: "photo_sha256"),
                data: [UInt8](data))
        }
    }

    /// The number of stored reports of all users.
    public func count() async throws(ReportStoreError) -> Int {
        try await reading("cannot count reports") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM report") ?? 0
        }
    }

    /// Closes the database (checkpoints WAL) for a clean shutdown.
    ///
    /// Waits for running reads and writes; later calls throw `.closed`. Closing twice is harmless.
    /// Data committed before is durable even if this throws.
    public func close() throws(ReportStoreError) {
        let wasOpen = isClosed.withLock { closed in
            defer { closed = true }
            return !closed
        }
        guard wasOpen else { return }
        // Fold the WAL back into the database file so it is self-contained at rest.
        // The barrier waits for running reads, which would otherwise keep the WAL in use.
        var checkpointError: (any Error)?
        do {
            try pool.barrierWriteWithoutTransaction { db in
                _ = try db.checkpoint(.truncate)
            }
        } catch {
            checkpointError = error
        }
        do {
            try pool.close()
        } catch {
            throw ReportStoreError(wrapping: error, path: path, action: "cannot close", fallback: .io)
        }
        watch.close()
        if let checkpointError {
            throw ReportStoreError(
                wrapping: checkpointError, path: path, action: "closed, but the WAL checkpoint failed", fallback: .io)
        }
    }

    // MARK: - Internal

    /// The writer connection's journal mode and synchronous level: what makes a returned commit survive a crash.
    func durabilitySettings() async throws -> (journalMode: String, synchronous: Int) {
        try await pool.writeWithoutTransaction { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "",
             try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1)
        }
    }

    private func reading<T: Sendable>(
        _ action: String, _ body: @Sendable (Database) throws -> T
    ) async throws(ReportStoreError) -> T {
        try checkOpen(action)
        let watch = self.watch
        do {
            return try await pool.read { db in
                try watch.check()
                return try body(db)
            }
        } catch {
            throw explain(error, action)
        }
    }

    /// Runs `body` in one write transaction; returns after the commit is durable in the file at `path`.
    private func writing<T: Sendable>(
        _ action: String, _ body: @Sendable (Database) throws -> T
    ) async throws(ReportStoreError) -> T {
        try checkOpen(action)
        let watch = self.watch
        do {
            return try await pool.writeWithoutTransaction { db in
                try watch.check()
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                // Committed, but only to the file SQLite has open: it counts once that file is
                // still the one at the path. Checked on the writer, so no other commit comes between.
                try watch.check()
                return result!
            }
        } catch {
            throw explain(error, action)
        }
    }

    /// A failure because the file is gone (a new reader cannot open it) is told as that, not as
    /// the SQLite error it caused.
    private func explain(_ error: any Error, _ action: String) -> ReportStoreError {
        let failure = ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
        guard failure.kind != .fileLost, failure.kind != .cancelled else { return failure }
        do {
            try watch.check()
            return failure
        } catch {
            return error.kind == .closed ? failure : error
        }
    }

    private func checkOpen(_ action: String) throws(ReportStoreError) {
        if isClosed.withLock({ $0 }) {
            throw ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
        }
    }

    /// Creates the parent directory (0700) and an empty database file (0600) when missing.
    /// SQLite treats an empty file as a new database.
    private static func createFileIfMissing(path: String) throws(ReportStoreError) {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ReportStoreError(kind: .open, path: path, message: "cannot create directory \(directory): \(SystemError.reason(error))")
        }
        // O_EXCL: never truncate or replace a file that appeared meanwhile.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            // Qualified: a bare `close` would name this type's method.
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #elseif canImport(Darwin)
            _ = Darwin.close(fd)
            #endif
        } else if errno != EEXIST {
            throw ReportStoreError(
                kind: .open, path: path, message: "cannot create the database file: \(String(cString: strerror(errno)))")
        }
    }
}

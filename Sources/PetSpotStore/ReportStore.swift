import SQLiteNIO
import NIOConcurrencyHelpers
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finished reports, stored durably in one SQLite file.
///
/// One connection, one database thread: every statement and every look at the files runs there
/// (SQLiteNIO's thread pool), never on an event loop or the caller's thread. Operations take turns
/// (`SerialGate`), so a read never sees a transaction that has not committed.
public final class ReportStore: Sendable {
    /// The database file, for error messages.
    public let path: String
    /// nil once closed.
    private let connection: NIOLockedValueBox<DatabaseConnection?>
    /// Closed after the connection: its descriptor must outlive SQLite's (see DatabaseFileWatch).
    private let watch: DatabaseFileWatch
    private let gate = SerialGate()
    /// Set when close begins: calls made from then on fail with `.closed`.
    private let isClosed = NIOLockedValueBox(false)
    /// Submits not yet taken into a group, oldest first, and whether a turn to take them is queued.
    private let submitQueue = NIOLockedValueBox(SubmitQueue())
    private struct SubmitQueue {
        var waiting: [PendingSubmit] = []
        var turnAskedFor = false
    }
    /// Submit transactions committed since opening: tells tests how submits were grouped.
    let committedTransactions = NIOLockedValueBox(0)
    /// Set once SQLite finds the file damaged: from then on every call fails with it, and this
    /// process neither reads nor writes the file again.
    private let damage = NIOLockedValueBox<ReportStoreError?>(nil)
    private let damageContinuation: AsyncStream<ReportStoreError>.Continuation
    /// Yields once, when the file is first found damaged: by `checkDeferred()` or any later
    /// operation. The daemon stops on it.
    public let damageFound: AsyncStream<ReportStoreError>
    /// The file was larger than the check at opening takes: `checkDeferred()` still has to run.
    private let deferredCheck: NIOLockedValueBox<Bool>

    /// How long a statement waits for a lock held by another connection (a backup, say) before failing.
    private static let busyTimeoutMilliseconds = 5000
    /// The WAL file is truncated to this size after a checkpoint, so one large photo does not leave
    /// a large WAL file behind for the years the daemon runs.
    private static let walSizeLimitBytes = 4 * 1024 * 1024

    /// Opens (creating it and its parent directory if missing) the database in WAL mode with
    /// synchronous=FULL, so a commit is durable when it returns, and runs the migrations
    /// (`ReportSchema`; refuses a foreign file and one whose schema is newer than it knows).
    ///
    /// A new directory is created owner-only (0700) and a new file owner-only (0600): reports hold
    /// contact details. Existing files and directories keep their permissions.
    ///
    /// A file of at most `checkAtOpenMaxBytes` is checked for damage (`PRAGMA quick_check`)
    /// before anything writes to it, and refused as `.damaged`, left exactly as it is; a larger
    /// one is checked by `checkDeferred()`, which the caller runs once it serves.
    public init(path: String, checkAtOpenMaxBytes: Int64 = .max) async throws(ReportStoreError) {
        self.path = path
        // Unstructured, like every operation: a cancelled caller must not leave the connection
        // open with no store to close it.
        let (connection, watch, deferred) = try await Task {
            await Self.connect(path: path, checkAtOpenMaxBytes: checkAtOpenMaxBytes)
        }.value.get()
        self.connection = NIOLockedValueBox(connection)
        self.watch = watch
        deferredCheck = NIOLockedValueBox(deferred)
        (damageFound, damageContinuation) = AsyncStream.makeStream(of: ReportStoreError.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether the file was too large to check at opening (`checkDeferred()` has not run yet).
    public var hasDeferredCheck: Bool { deferredCheck.withLockedValue { $0 } }

    /// The damage check of a file too large to check at opening, in a turn of its own (other
    /// operations wait for it). Throws `.damaged`, and `damageFound` yields, when it fails.
    public func checkDeferred() async throws(ReportStoreError) {
        guard deferredCheck.withLockedValue({ $0 }) else { return }
        let path = self.path
        try await operation("cannot check the database") { db in try await Self.checkIntact(db, path: path) }
        deferredCheck.withLockedValue { $0 = false }
    }

    /// SQLite's quick check: every page and b-tree of the file, in one pass (without the index
    /// comparisons of integrity_check). A 70 MB file takes about 25 ms from the page cache.
    private static func checkIntact(_ db: DatabaseConnection, path: String) async throws {
        let problems = try await db.rows("PRAGMA quick_check(3)").compactMap { try? $0.text("quick_check") }
        guard problems != ["ok"] else { return }
        throw ReportStoreError(damaged: "SQLite's quick_check: " + problems.joined(separator: "; "), path: path)
    }

    private static func connect(path: String, checkAtOpenMaxBytes: Int64)
        async -> Result<(DatabaseConnection, DatabaseFileWatch, deferred: Bool), ReportStoreError>
    {
        let created = Synchronization.Atomic<Bool>(false)
        let connection: DatabaseConnection
        do {
            connection = try await DatabaseConnection.open(path: path) {
                if try createFileIfMissing(path: path) { created.store(true, ordering: .relaxed) }
            }
        } catch {
            let failure = ReportStoreError(wrapping: error, path: path, action: "cannot open", fallback: .open)
            if created.load(ordering: .relaxed) { removeIfStillEmpty(path: path) }
            return .failure(failure)
        }
        do {
            let deferred = try await prepare(connection, path: path, checkAtOpenMaxBytes: checkAtOpenMaxBytes)
            let watch = try await connection.run { try DatabaseFileWatch(path: path) }
            return .success((connection, watch, deferred))
        } catch {
            // Explained before closing: the close may free what was missing (space, say).
            let failure = ReportStoreError(wrapping: error, path: path, action: "cannot open", fallback: .open)
            try? await connection.close()
            if created.load(ordering: .relaxed) { removeIfStillEmpty(path: path) }
            return .failure(failure)
        }
    }

    /// A start that created the file and could not write a database into it (a full disk) takes
    /// it away again: left empty, it would be refused at every later start as a truncated
    /// database. Only an empty file goes: one that holds anything is never deleted.
    private static func removeIfStillEmpty(path: String) {
        guard isEmptyFile(path) else { return }
        unlink(path)
        for suffix in ["-wal", "-shm", "-journal"] where isEmptyFile(path + suffix) {
            unlink(path + suffix)
        }
    }

    /// Settings, refusals and migrations, in the order that writes nothing to a file it refuses.
    /// Returns whether the damage check was left for `checkDeferred()`.
    private static func prepare(_ db: DatabaseConnection, path: String, checkAtOpenMaxBytes: Int64) async throws -> Bool {
        // PRAGMA takes no bound parameters; the values are this type's constants.
        // Also replaces SQLiteNIO's busy handler, which retries without pause and without end.
        try await db.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        // Before anything writes: a damaged file (a copy torn by a write) is refused as it is.
        var info = stat()
        let deferred = stat(path, &info) == 0 && Int64(info.st_size) > checkAtOpenMaxBytes
        if !deferred { try await checkIntact(db, path: path) }
        // Before anything writes: switching to WAL mode already changes the file.
        try ReportSchema.checkCanMigrate(try await ReportSchema.facts(of: db), path: path)
        let journalMode = try await db.row("PRAGMA journal_mode = WAL")?.text("journal_mode")
        guard journalMode == "wal" else {
            throw ReportStoreError(kind: .open, path: path, message: "cannot open: SQLite refused WAL mode (journal mode \(journalMode ?? "unknown"))")
        }
        // FULL: the WAL is synced at every commit, so a report is on disk when submit returns.
        try await db.execute("PRAGMA synchronous = FULL")
        try await db.execute("PRAGMA journal_size_limit = \(walSizeLimitBytes)")
        try await db.execute("PRAGMA foreign_keys = ON")
        try await ReportSchema.migrate(db, path: path)
        return deferred
    }

    /// Stores the report; returns only after the transaction holding it has committed durably in
    /// the file at `path`: when that file was deleted, replaced, truncated or overwritten, throws
    /// `.fileLost` instead. If a report for flowID already exists (UNIQUE constraint), returns that
    /// one unchanged (also when two submits race, or share a group). `inserted` tells which happened.
    ///
    /// Throws `.conflict` if the flow's report belongs to another user (it is never handed out),
    /// or if the report id is already used by another flow.
    ///
    /// Group commit: submits that arrive while another operation holds the connection (a commit
    /// waiting for its fsync, say) are stored together in the next transaction, one fsync for all
    /// (at most `maxGroupMembers` reports and about `maxGroupBytes`). A member refused on its own
    /// (`.conflict`) gets its error and the others commit; any other failure (I/O, a full disk, a
    /// lost file) fails every member of the group, and none of them is stored.
    public func submit(_ report: NewReport) async throws(ReportStoreError) -> (report: StoredReport, inserted: Bool) {
        let action = Self.submitAction
        try checkOpen(action)
        if Task.isCancelled {
            throw ReportStoreError(kind: .cancelled, path: path, message: "\(action): cancelled")
        }
        let pending = PendingSubmit(report)
        let asksForTurn = submitQueue.withLockedValue { queue in
            queue.waiting.append(pending)
            defer { queue.turnAskedFor = true }
            return !queue.turnAskedFor
        }
        if asksForTurn { askForGroupTurn() }
        return try await pending.outcome().get()
    }

    private static let submitAction = "cannot submit report"

    /// Bounds a group's transaction: it holds the connection (reads wait behind it) and its WAL
    /// frames are written at once. 64 reports already turn 64 fsyncs into one; more would only
    /// make the reads queued behind the group wait longer. A fixed constant, not a setting: it
    /// changes no guarantee, only how the work is batched.
    static let maxGroupMembers = 64
    /// Photos make reports large (up to limits.maxPhotoBytes each): a group stops growing once it
    /// holds this much, so a backlog of photos does not become one transaction of hundreds of MiB
    /// in the WAL. The first member always goes in, whatever its size.
    static let maxGroupBytes = walSizeLimitBytes

    /// Queues a turn of the store that commits the oldest waiting submits as one group. One turn
    /// is queued at a time: submits that arrive before it comes join the queue, and it takes them
    /// all (up to a group's bounds); reads queued meanwhile keep their places in between.
    private func askForGroupTurn() {
        // Unstructured, like every operation: once queued, a submit is stored or failed with its
        // group even if its caller is cancelled (SQLiteNIO skips the statements of a cancelled task).
        Task { [self] in
            await gate.withTurn {
                let (group, more) = takeGroup()
                // Behind whatever queued while this turn waited.
                if more { askForGroupTurn() }
                await commit(group)
            }
        }
    }

    /// The oldest waiting submits, as many as one group takes, and whether more wait after them.
    private func takeGroup() -> (group: [PendingSubmit], more: Bool) {
        submitQueue.withLockedValue { queue in
            var count = 0
            var bytes = 0
            for submit in queue.waiting {
                guard count < Self.maxGroupMembers, count == 0 || bytes + submit.bytes <= Self.maxGroupBytes else { break }
                count += 1
                bytes += submit.bytes
            }
            let group = Array(queue.waiting.prefix(count))
            queue.waiting.removeFirst(count)
            queue.turnAskedFor = !queue.waiting.isEmpty
            return (group, queue.turnAskedFor)
        }
    }

    /// Stores `group` in one transaction and answers each member; runs in a turn of the gate.
    private func commit(_ group: [PendingSubmit]) async {
        guard !group.isEmpty else { return }
        let action = Self.submitAction
        let path = self.path
        let watch = self.watch
        guard let db = connection.withLockedValue({ $0 }) else {
            let closed = ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
            for member in group { member.answer(.failure(closed)) }
            return
        }
        do {
            if let damage = damage.withLockedValue({ $0 }) { throw damage }
            try await db.run { try watch.check() }
            let reports = group.map(\.report)
            let outcomes = try await db.inTransaction {
                do {
                    return try await Self.insertGroup(reports, into: db, path: path)
                } catch let error where Self.failsOnlyItsMember(error) {
                    // A constraint of the file's own (not one a NewReport can break) refused the
                    // group's statement: SQLite undid that statement only; each member again alone.
                    return try await Self.insertEach(reports, into: db, path: path)
                }
            }
            committedTransactions.withLockedValue { $0 += 1 }
            // Committed, but only to the file SQLite has open: it counts once that file is still
            // the one at the path. Checked in the same turn, so no other commit comes between.
            try await db.run { try watch.check() }
            for (member, outcome) in zip(group, outcomes) { member.answer(outcome) }
        } catch {
            let failure = await Self.explain(error, action, path: path, watch: watch, db: db)
            noteIfDamaged(failure)
            for member in group { member.answer(.failure(failure)) }
        }
    }

    /// The body of a group's transaction in three statements, whatever the group's size (each
    /// statement is a hop to the database thread): the reports its flows already have, the new
    /// ones, their delivery rows. Answers in the order of `reports`, as if each had been stored
    /// alone in that order.
    private static func insertGroup(_ reports: [NewReport], into db: DatabaseConnection, path: String) async throws
        -> [SubmitOutcome]
    {
        var flowIDs: [String] = []
        var firstOfFlow: [String: Int] = [:]
        for (index, report) in reports.enumerated() where firstOfFlow[report.flowID] == nil {
            firstOfFlow[report.flowID] = index
            flowIDs.append(report.flowID)
        }
        var stored: [String: StoredReport] = [:]
        for row in try await db.rows("""
            SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables)
            WHERE flow_id IN (\(placeholders(flowIDs.count)))
            """, flowIDs.map { .text($0) })
        {
            let report = try StoredReport(row: row)
            stored[report.flowID] = report
        }

        // The first member of each flow not stored yet inserts it. DO NOTHING skips a member
        // whose report id is taken (the flows are free: checked above, in this transaction).
        let inserting = flowIDs.compactMap { stored[$0] == nil ? firstOfFlow[$0] : nil }
        var insertedSeq: [String: Int64] = [:]  // by flow id: one inserting member per flow
        if !inserting.isEmpty {
            var binds: [SQLiteData] = []
            binds.reserveCapacity(inserting.count * 9)
            for index in inserting { binds += reportColumns(reports[index]) }
            let rows = try await db.rows("""
                INSERT INTO report (\(insertedColumns)) VALUES \(Array(repeating: "(\(placeholders(9)))", count: inserting.count).joined(separator: ", "))
                ON CONFLICT DO NOTHING RETURNING flow_id, seq
                """, binds)
            for row in rows { insertedSeq[try row.text("flow_id")] = try row.integer("seq") }
        }
        if !insertedSeq.isEmpty {
            do {
                // In the same transaction: a report is never stored without its pending row.
                try await db.execute(
                    "INSERT INTO delivery (report_seq, delivered_at) VALUES "
                        + Array(repeating: "(?, NULL)", count: insertedSeq.count).joined(separator: ", "),
                    insertedSeq.values.map { .integer(Int($0)) })
            } catch {
                // Not any member's fault: the whole group fails, so no report is left without it.
                throw ReportStoreError(wrapping: error, path: path, action: "cannot submit report: cannot record its delivery", fallback: .io)
            }
        }

        // A member whose flow's first member was refused would have been stored in its place:
        // it is tried again alone, after the others.
        var retried: [Int: SubmitOutcome] = [:]
        for (index, report) in reports.enumerated()
        where stored[report.flowID] == nil && insertedSeq[report.flowID] == nil && firstOfFlow[report.flowID] != index {
            retried[index] = try await insertAlone(report, into: db, path: path)
        }
        return reports.enumerated().map { index, report -> SubmitOutcome in
            if let existing = stored[report.flowID] {
                return answerForStored(existing, to: report, path: path)
            }
            if let outcome = retried[index] { return outcome }
            let first = firstOfFlow[report.flowID] ?? index
            guard insertedSeq[report.flowID] != nil else { return .failure(idTaken(report, path: path)) }
            return index == first
                ? .success((StoredReport(report), true))
                : answerForStored(StoredReport(reports[first]), to: report, path: path)
        }
    }

    /// Each report stored on its own, in order, within the group's transaction.
    private static func insertEach(_ reports: [NewReport], into db: DatabaseConnection, path: String) async throws
        -> [SubmitOutcome]
    {
        var outcomes: [SubmitOutcome] = []
        outcomes.reserveCapacity(reports.count)
        for report in reports { outcomes.append(try await insertAlone(report, into: db, path: path)) }
        return outcomes
    }

    /// One report on its own: its answer, or a throw that fails the whole group.
    private static func insertAlone(_ report: NewReport, into db: DatabaseConnection, path: String) async throws
        -> SubmitOutcome
    {
        do {
            return .success(try await insert(report, into: db, path: path))
        } catch let error where failsOnlyItsMember(error) {
            // Only this member's statement was undone (the owner check writes nothing; SQLite
            // undoes a statement that breaks a constraint, not the transaction).
            return .failure(ReportStoreError(wrapping: error, path: path, action: submitAction, fallback: .io))
        }
    }

    /// A submit of a flow that has a report: that report, unchanged, if the flow is the submitter's.
    private static func answerForStored(_ existing: StoredReport, to report: NewReport, path: String) -> SubmitOutcome {
        guard existing.ownerUID == report.ownerUID else {
            return .failure(ReportStoreError(
                kind: .conflict, path: path,
                message: "cannot submit report: flow \(report.flowID) was submitted by another user"))
        }
        return .success((existing, false))
    }

    private static func idTaken(_ report: NewReport, path: String) -> ReportStoreError {
        ReportStoreError(
            kind: .conflict, path: path,
            message: "cannot submit report: report id \(report.id) already belongs to another flow")
    }

    private static let insertedColumns = """
        id, flow_id, owner_uid, submitted_at, values_json, photo_media_type, photo_sha256, photo_bytes, photo
        """

    /// The values of `insertedColumns`, in their order.
    private static func reportColumns(_ report: NewReport) -> [SQLiteData] {
        [
            .text(report.id), .text(report.flowID), .integer(Int(report.ownerUID)), .text(report.submittedAt),
            .text(report.valuesJSON),
            report.photo.map { .text($0.mediaType) } ?? .null,
            report.photo.map { .text($0.sha256) } ?? .null,
            report.photo.map { .integer($0.data.count) } ?? .null,
            report.photo.map { .blob(ByteBuffer(bytes: $0.data)) } ?? .null,
        ]
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// A report refused for what it holds, not for the state of the database: the rest of its
    /// group is stored without it.
    private static func failsOnlyItsMember(_ error: any Error) -> Bool {
        switch error {
        case let error as ReportStoreError:
            return error.kind == .conflict
        case let error as SQLiteError:
            switch error.reason {
            case .constraint, .constraintCheckFailed, .constraintNotNullFailed, .constraintPrimaryKeyFailed,
                 .constraintUniqueFailed, .constraintUniqueRowIDFailed, .constraintForeignKeyFailed,
                 .constraintStrictDataTypeFailed, .constraintTriggerFailed:
                return true
            default:
                return false
            }
        default:
            return false
        }
    }

    /// One report's statements: the flow's report if it has one, else the new one.
    private static func insert(_ report: NewReport, into db: DatabaseConnection, path: String) async throws
        -> (report: StoredReport, inserted: Bool)
    {
        if let existing = try await db.row(
            "SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables) WHERE flow_id = ?", [.text(report.flowID)]
        ).map(StoredReport.init(row:)) {
            return try answerForStored(existing, to: report, path: path).get()
        }
        do {
            try await db.execute(
                "INSERT INTO report (\(insertedColumns)) VALUES (\(placeholders(9)))", reportColumns(report))
        } catch let error as SQLiteError where error.reason == .constraintUniqueFailed {
            // flow_id was free (checked above, in this transaction), so the id is taken.
            throw idTaken(report, path: path)
        }
        do {
            // In the same transaction: a report is never stored without its pending row.
            try await db.execute("INSERT INTO delivery (report_seq, delivered_at) VALUES (last_insert_rowid(), NULL)")
        } catch {
            // Not this member's fault: the whole group fails, so its report is not left without it.
            throw ReportStoreError(wrapping: error, path: path, action: "cannot submit report: cannot record its delivery", fallback: .io)
        }
        return (StoredReport(report), true)
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
        let owner = SQLiteData.integer(Int(ownerUID))
        let rows = try await reading("cannot list reports") { db -> [StoredReport]? in
            let found: [SQLiteRow]
            if let after {
                // The cursor is resolved among the owner's reports only: another's id is no cursor.
                guard let seq = try await db.row(
                    "SELECT seq FROM report WHERE id = ? AND owner_uid = ?", [.text(after.afterReportID), owner]
                )?.integer("seq") else { return nil }
                found = try await db.rows("""
                    SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables)
                    WHERE owner_uid = ? AND seq < ? ORDER BY seq DESC LIMIT ?
                    """, [owner, .integer(Int(seq)), .integer(fetchLimit)])
            } else {
                found = try await db.rows("""
                    SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables)
                    WHERE owner_uid = ? ORDER BY seq DESC LIMIT ?
                    """, [owner, .integer(fetchLimit)])
            }
            return try found.map(StoredReport.init(row:))
        }
        guard let rows else { throw invalidCursor }
        let page = rows.prefix(limit)
        let nextCursor = rows.count > limit ? page.last.map { ReportCursor(afterReportID: $0.id).text } : nil
        return ReportPage(reports: Array(page), nextCursor: nextCursor)
    }

    /// The report if it exists AND belongs to ownerUID; another user's report is nil (it does not exist for them).
    public func get(id: String, ownerUID: UInt32) async throws(ReportStoreError) -> StoredReport? {
        try await reading("cannot read report") { db in
            try await db.row(
                "SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables) WHERE id = ? AND owner_uid = ?",
                [.text(id), .integer(Int(ownerUID))]
            ).map(StoredReport.init(row:))
        }
    }

    /// The photo bytes of a report the owner can see; nil if the report has no photo or is not theirs.
    public func photo(reportID: String, ownerUID: UInt32) async throws(ReportStoreError) -> StoredPhoto? {
        try await reading("cannot read photo") { db in
            guard let row = try await db.row("""
                SELECT photo_media_type, photo_sha256, photo FROM report
                WHERE id = ? AND owner_uid = ? AND photo IS NOT NULL
                """, [.text(reportID), .integer(Int(ownerUID))])
            else { return nil }
            return StoredPhoto(
                mediaType: try row.text("photo_media_type"),
                sha256: try row.text("photo_sha256"),
                data: try row.optionalBlob("photo") ?? [])
        }
    }

    /// Reports of all users not yet delivered, oldest first (by insertion order), with their
    /// photos: at most `maxReports`, skipping the ids in `excluding` (claimed by a relay), and
    /// stopping before the photos would exceed `maxPhotoBytes`; the first one always goes in.
    public func claimable(
        excluding: Set<String>, maxReports: Int, maxPhotoBytes: Int
    ) async throws(ReportStoreError) -> [ClaimableReport] {
        guard maxReports >= 1 else {
            throw ReportStoreError(kind: .invalidLimit, path: nil, message: "invalid limit \(maxReports): must be at least 1")
        }
        return try await reading("cannot read pending reports") { db in
            // Pages of the pending index (never the whole backlog in memory): claimed ones are
            // skipped here, so a page may yield fewer than it holds.
            let pageSize = 256
            var chosen: [Int64] = []
            var bytes = 0
            var after: Int64 = 0
            scan: while true {
                let page = try await db.rows("""
                    SELECT report.seq AS seq, report.id AS id, report.photo_bytes AS photo_bytes
                    FROM delivery JOIN report ON report.seq = delivery.report_seq
                    WHERE delivery.delivered_at IS NULL AND delivery.report_seq > ?
                    ORDER BY delivery.report_seq LIMIT ?
                    """, [.integer(Int(after)), .integer(pageSize)])
                for row in page {
                    after = try row.integer("seq")
                    guard !excluding.contains(try row.text("id")) else { continue }
                    let photoBytes = Int(try row.optionalInteger("photo_bytes") ?? 0)
                    if !chosen.isEmpty, bytes + photoBytes > maxPhotoBytes { break scan }
                    chosen.append(after)
                    bytes += photoBytes
                    if chosen.count == maxReports { break scan }
                }
                if page.count < pageSize { break }
            }
            var found: [ClaimableReport] = []
            found.reserveCapacity(chosen.count)
            for seq in chosen {
                guard let row = try await db.row("""
                    SELECT \(StoredReport.selectedColumns), photo FROM \(StoredReport.joinedTables) WHERE seq = ?
                    """, [.integer(Int(seq))]) else { continue }
                let report = try StoredReport(row: row)
                let photo = try row.optionalBlob("photo").map { data in
                    StoredPhoto(mediaType: report.photoMediaType ?? "", sha256: report.photoSHA256 ?? "", data: data)
                }
                found.append(ClaimableReport(report: report, photo: photo))
            }
            return found
        }
    }

    /// Marks the reports delivered at `deliveredAt`, all in one durable transaction. Ones
    /// delivered already keep their time; an id listed twice counts once. An id that names no
    /// report throws `.reportNotFound` naming it, and nothing is marked.
    public func markDelivered(ids: [String], at deliveredAt: String) async throws(ReportStoreError) -> DeliveryMarking {
        var seen: Set<String> = []
        let distinct = ids.filter { seen.insert($0).inserted }
        return try await operation("cannot mark reports delivered") { db in
            try await db.inTransaction { () async throws -> DeliveryMarking in
                var delivered = 0
                var already = 0
                for id in distinct {
                    guard let row = try await db.row(
                        "SELECT seq, delivered_at FROM \(StoredReport.joinedTables) WHERE id = ?", [.text(id)]
                    ) else {
                        throw ReportStoreError(kind: .reportNotFound, path: nil, message: "no report \"\(id)\"")
                    }
                    if try row.optionalText("delivered_at") != nil {
                        already += 1
                        continue
                    }
                    try await db.execute("""
                        INSERT INTO delivery (report_seq, delivered_at) VALUES (?, ?)
                        ON CONFLICT (report_seq) DO UPDATE SET delivered_at = excluded.delivered_at
                        """, [.integer(Int(try row.integer("seq"))), .text(deliveredAt)])
                    delivered += 1
                }
                return DeliveryMarking(delivered: delivered, alreadyDelivered: already)
            }
        }
    }

    /// Delivered and pending reports of all users, and the latest delivery.
    public func deliveryCounts() async throws(ReportStoreError) -> DeliveryCounts {
        try await reading("cannot count deliveries") { db in
            let row = try await db.row("""
                SELECT (SELECT COUNT(*) FROM report) AS total,
                       (SELECT COUNT(*) FROM delivery WHERE delivered_at IS NOT NULL) AS delivered,
                       (SELECT MAX(delivered_at) FROM delivery) AS last
                """)
            let total = Int(try row?.integer("total") ?? 0)
            let delivered = Int(try row?.integer("delivered") ?? 0)
            return DeliveryCounts(pending: total - delivered, delivered: delivered,
                                  lastDeliveredAt: try row?.optionalText("last"))
        }
    }

    /// The number of stored reports of all users.
    public func count() async throws(ReportStoreError) -> Int {
        try await reading("cannot count reports") { db in
            Int(try await db.row("SELECT COUNT(*) AS count FROM report")?.integer("count") ?? 0)
        }
    }

    /// Closes the database (checkpoints WAL) for a clean shutdown.
    ///
    /// Operations already called finish first; calls from now on throw `.closed`. Closing twice is
    /// harmless. Data committed before is durable even if this throws.
    ///
    /// When the file SQLite has open is no longer at the path (deleted, or another file moved
    /// there), closing would let go of the only copy of what it holds: it is first saved beside
    /// the path (`savedCopyPath`), and close throws `.fileLost` naming that file. A damaged file
    /// is not closed at all (see `DatabaseConnection.abandon()`).
    public func close() async throws(ReportStoreError) {
        let wasOpen = isClosed.withLockedValue { closed in
            defer { closed = true }
            return !closed
        }
        guard wasOpen else { return }
        let path = self.path
        let watch = self.watch
        // Unstructured, like every operation: a cancelled caller must not cut the close short.
        let outcome = await Task { [self] () -> ReportStoreError? in
            await gate.withTurn { () -> ReportStoreError? in
                let taken = connection.withLockedValue { db in
                    defer { db = nil }
                    return db
                }
                guard let db = taken else { return nil }
                if damage.withLockedValue({ $0 }) != nil {
                    await db.abandon()
                    return nil
                }
                let atPath = (try? await db.run { watch.isAtPath() }) ?? false
                // Fold the WAL back into the database file so it is self-contained at rest. For a
                // file no longer at the path this also empties the -wal file beside the path,
                // which a crash before the close would otherwise leave for the next start to
                // replay into whatever file is there now.
                var checkpointError: (any Error)?
                do {
                    // A reader in another process (a backup) can keep it from finishing, past the
                    // busy timeout: the pragma says so in its result, not by failing.
                    if try await db.row("PRAGMA wal_checkpoint(TRUNCATE)")?.integer("busy") != 0 {
                        checkpointError = ReportStoreError(
                            kind: .io, path: path,
                            message: "closed, but the WAL checkpoint could not finish: another connection "
                                + "is reading the database; its WAL file stays until the next start")
                    }
                } catch {
                    checkpointError = error
                }
                let rescue = atPath ? nil : await Self.saveCopy(of: db, path: path, inode: watch.identity.inode)
                do {
                    try await db.close()
                } catch {
                    return ReportStoreError(wrapping: error, path: path, action: "cannot close", fallback: .io)
                }
                if !atPath { watch.removeOwnEmptyWAL() }
                watch.close()
                if let rescue { return rescue }
                return checkpointError.map {
                    ReportStoreError(wrapping: $0, path: path, action: "closed, but the WAL checkpoint failed", fallback: .io)
                }
            }
        }.value
        if let outcome { throw outcome }
    }

    /// Where the reports of a file that left the path are saved: beside the path, named after
    /// the file's inode (a later loss of another file gets another name).
    static func savedCopyPath(of path: String, inode: UInt64) -> String {
        "\(path).saved-\(inode)"
    }

    /// Saves the whole database as the open connection sees it (the file that left the path
    /// and its WAL) into a new owner-only file beside the path, synced; returns the `.fileLost`
    /// error that tells where, or why it could not be saved.
    private static func saveCopy(of db: DatabaseConnection, path: String, inode: UInt64) async -> ReportStoreError {
        let lost = "the database file is no longer at its path (deleted, or another file moved there)"
        var target = savedCopyPath(of: path, inode: inode)
        do {
            // O_EXCL: never over an earlier copy; VACUUM INTO fills an empty file and keeps its mode.
            var fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            var attempt = 1
            while fd < 0 && errno == EEXIST && attempt < 100 {
                attempt += 1
                target = savedCopyPath(of: path, inode: inode) + "-\(attempt)"
                fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            }
            guard fd >= 0 else { throw SystemFailure(call: "create \(target)", errno: errno) }
            closeDescriptor(fd)
            do {
                try await db.execute("VACUUM INTO ?", [.text(target)])
                try syncFile(target)
                try syncFile(directory(of: target))
            } catch {
                unlink(target)
                throw error
            }
        } catch {
            return ReportStoreError(
                kind: .fileLost, path: path,
                message: "\(lost), and the reports it held could not be saved beside it: \(error); they are lost")
        }
        return ReportStoreError(
            kind: .fileLost, path: path,
            message: "\(lost): every report it held is saved in \(target); bring them back into the database "
                + "as docs/OPERATIONS.md shows (\"The database file replaced or deleted\")")
    }

    private struct SystemFailure: Error, CustomStringConvertible {
        let call: String
        let errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    private static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemFailure(call: "open \(path)", errno: errno) }
        defer { closeDescriptor(fd) }
        guard fsync(fd) == 0 else { throw SystemFailure(call: "fsync \(path)", errno: errno) }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func closeDescriptor(_ fd: Int32) {
        // Qualified: a bare `close` would name this type's method.
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #elseif canImport(Darwin)
        _ = Darwin.close(fd)
        #endif
    }

    // MARK: - Internal

    /// The connection's journal mode and synchronous level: what makes a returned commit survive a crash.
    func durabilitySettings() async throws -> (journalMode: String, synchronous: Int) {
        try await reading("cannot read settings") { db in
            (try await db.row("PRAGMA journal_mode")?.text("journal_mode") ?? "",
             Int(try await db.row("PRAGMA synchronous")?.integer("synchronous") ?? -1))
        }
    }

    /// Submits queued and not yet taken into a group: lets a test wait until its submits are queued.
    var queuedSubmits: Int { submitQueue.withLockedValue { $0.waiting.count } }

    /// Runs `body` in a turn of its own: operations called meanwhile wait, as they would behind a
    /// slow commit. For tests that need submits to queue up.
    func holdingTurn<T>(_ body: () async throws -> T) async throws -> T {
        try await gate.withTurn(body)
    }

    /// Runs one SQL statement on the store's connection, in its own turn: for tests that set a
    /// limit of SQLite's (`PRAGMA max_page_count`) to make the file system's failures real.
    func execute(_ sql: String) async throws(ReportStoreError) {
        try await operation("cannot run \(sql)") { db in try await db.execute(sql) }
    }

    private func reading<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (DatabaseConnection) async throws -> T
    ) async throws(ReportStoreError) -> T {
        try await operation(action, body)
    }

    /// Runs `body` in its turn on the open connection, after checking that the database file is
    /// still the one at the path.
    private func operation<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (DatabaseConnection) async throws -> T
    ) async throws(ReportStoreError) -> T {
        try checkOpen(action)
        if Task.isCancelled {
            throw ReportStoreError(kind: .cancelled, path: path, message: "\(action): cancelled")
        }
        let path = self.path
        let watch = self.watch
        // Once begun, an operation runs to its end even if its caller is cancelled: SQLiteNIO
        // skips the statements of a cancelled task, which would leave a transaction open.
        let task = Task { [self] () async throws -> T in
            try await gate.withTurn { () async throws -> T in
                guard let db = connection.withLockedValue({ $0 }) else {
                    throw ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
                }
                if let damage = damage.withLockedValue({ $0 }) { throw damage }
                do {
                    try await db.run { try watch.check() }
                    return try await body(db)
                } catch {
                    let failure = await Self.explain(error, action, path: path, watch: watch, db: db)
                    noteIfDamaged(failure)
                    throw failure
                }
            }
        }
        do {
            return try await task.value
        } catch {
            throw ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
        }
    }

    /// A failure because the file is gone (a new reader cannot open it) is told as that, not as
    /// the SQLite error it caused.
    private static func explain(
        _ error: any Error, _ action: String, path: String, watch: DatabaseFileWatch, db: DatabaseConnection
    ) async -> ReportStoreError {
        let failure = ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
        guard failure.kind != .fileLost, failure.kind != .cancelled else { return failure }
        do {
            try await db.run { try watch.check() }
            return failure
        } catch {
            let lost = ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
            return lost.kind == .fileLost ? lost : failure
        }
    }

    /// The first damage found is kept and told once through `damageFound`.
    private func noteIfDamaged(_ failure: ReportStoreError) {
        guard failure.kind == .damaged else { return }
        let first = damage.withLockedValue { damage in
            defer { if damage == nil { damage = failure } }
            return damage == nil
        }
        if first { damageContinuation.yield(failure) }
    }

    private func checkOpen(_ action: String) throws(ReportStoreError) {
        if let damage = damage.withLockedValue({ $0 }) { throw damage }
        if isClosed.withLockedValue({ $0 }) {
            throw ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
        }
    }

    /// Creates the parent directories (0700) and an empty database file (0600) when missing.
    /// SQLite treats an empty file as a new database; one this start did not create is refused.
    /// Returns whether it created the file.
    @discardableResult
    private static func createFileIfMissing(path: String) throws(ReportStoreError) -> Bool {
        try createDirectories(leadingTo: path)
        // O_EXCL: never truncate or replace a file that appeared meanwhile.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            // Qualified: a bare `close` would name this type's method.
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #elseif canImport(Darwin)
            _ = Darwin.close(fd)
            #endif
            return true
        } else if errno != EEXIST {
            throw ReportStoreError(
                kind: .open, path: path, message: "cannot create the database file: \(String(cString: strerror(errno)))")
        } else if isEmptyFile(path) {
            // SQLite would take it for a new database, and petspotd would start over on a file
            // that held reports: every start that creates the file writes a database into it.
            throw ReportStoreError(
                kind: .damaged, path: path,
                message: "cannot open: database disk image is malformed (the file is empty, yet this start did not "
                    + "create it: it was truncated, or a first start stopped before writing it); "
                    + "move it away to start a new database")
        }
        return false
    }

    private static func isEmptyFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size == 0
    }

    /// `mkdir -p` of the file's directory; what it creates is owner-only.
    private static func createDirectories(leadingTo path: String) throws(ReportStoreError) {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        let directory = (path.hasPrefix("/") ? "/" : "") + components.joined(separator: "/")
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in components {
            prefix += "/" + component
            if mkdir(prefix, 0o700) == 0 { continue }
            let failure = errno
            var info = stat()
            if failure == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
            throw ReportStoreError(
                kind: .open, path: path,
                message: "cannot create directory \(directory): \(String(cString: strerror(failure)))")
        }
    }
}

import FoundationEssentials
import PetSpotSQLite

// Submits: grouped into one transaction and one fsync while a commit is on disk.
extension ReportStore {
    /// Stores the report; returns only after the transaction holding it has committed durably in
    /// the file at `path`: when that file was deleted, replaced, truncated or overwritten, throws
    /// `.fileLost` instead. If a report for flowID already exists (UNIQUE constraint), returns that
    /// one unchanged (also when two submits race, or share a group). `inserted` tells which happened.
    ///
    /// Throws `.conflict` if the flow's report belongs to another user (it is never handed out),
    /// or if the report id is already used by another flow; `.invalidTime` if its `submittedAt`
    /// is not ISO 8601 UTC; `.invalidBoardFields` if its board fields cannot be stored. A new
    /// report is `missing`, version 1, expiring from its `submittedAt`, and on the board (the
    /// animal list) under this store's `box`, in the same transaction.
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
        guard let submitted = SubmitTime.date(report.submittedAt) else {
            throw ReportStoreError(
                kind: .invalidTime, path: nil,
                message: "\(action): submittedAt \"\(report.submittedAt)\" is not ISO 8601 UTC (\"2026-11-21T13:07:27Z\")")
        }
        if let problem = report.board.problem {
            throw ReportStoreError(kind: .invalidBoardFields, path: nil, message: "\(action): \(problem)")
        }
        let pending = PendingSubmit(report, submitted: submitted)
        let asksForTurn = submitQueue.withLockedValue { $0.enqueue(pending) }
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
    /// all (up to a group's bounds) when it begins on the database thread; reads queued meanwhile
    /// keep their places in between.
    private func askForGroupTurn() {
        // Once queued, a submit is stored or failed with its group even if its caller is
        // cancelled: the turn is no task of the caller's.
        askForTurnOnDatabaseThread { [self] sqlite in
            guard sqlite != nil else {
                commit(submitQueue.withLockedValue { $0.takeAll() }, in: nil)
                return
            }
            let (group, more) = takeGroup()
            // Behind whatever queued while this turn waited.
            if more { askForGroupTurn() }
            commit(group, in: sqlite)
        }
    }

    /// The oldest waiting submits, as many as one group takes, and whether more wait after them.
    private func takeGroup() -> (group: [PendingSubmit], more: Bool) {
        submitQueue.withLockedValue { $0.takeGroup(maxMembers: Self.maxGroupMembers, maxBytes: Self.maxGroupBytes) }
    }

    /// Stores `group` in one transaction and answers each member; runs in a turn of the gate, on
    /// the database thread (nil: the store is closed).
    private func commit(_ group: [PendingSubmit], in sqlite: SQLiteDatabase?) {
        guard !group.isEmpty else { return }
        let action = Self.submitAction
        let (path, box) = (self.path, self.box)
        guard let sqlite else {
            // The thread stops when the store closes, or abandons a damaged file.
            let closed = damage.withLockedValue { $0 }
                ?? ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
            for member in group { member.answer(.failure(closed)) }
            return
        }
        do {
            if let damage = damage.withLockedValue({ $0 }) { throw damage }
            let outcomes = try groupTransaction(sqlite) { sqlite in
                try Self.insertEach(group, box: box, into: sqlite, path: path)
            }
            // Before the answers: whoever learns of this write finds the cleanup it tried done, or pending.
            cleanDiskIfPending(sqlite)
            for (member, outcome) in zip(group, outcomes) { member.answer(outcome) }
        } catch {
            let failure = explain(error, action)
            noteIfDamaged(failure)
            for member in group { member.answer(.failure(failure)) }
        }
    }

    /// The delivery row (pending), life and board row of a new report, in the same transaction
    /// as the report: a report is never stored without them.
    private static func recordDeliveryLifeAndBoard(
        of seq: Int, _ member: PendingSubmit, box: String, into db: SQLiteDatabase, path: String
    ) throws {
        do {
            try db.execute("INSERT INTO delivery (report_seq, delivered_at, delivered_version, report_version) VALUES (?, NULL, 0, 1)",
                           [.integer(seq)])
            try db.execute("INSERT INTO report_life (report_seq, \(ReportLife.columns)) VALUES (\(placeholders(7)))",
                           [.integer(seq)] + member.life.columnValues)
            try BoardRow.insert(BoardRow.columnValues(seq: seq, member.report, life: member.life, box: box), into: db)
        } catch {
            // Not any member's fault: the whole group fails, so no report is left without them.
            throw ReportStoreError(
                wrapping: error, path: path, action: "cannot submit report: cannot record its delivery, life and board row",
                fallback: .io)
        }
    }

    /// The group's reports, each stored in order within the group's transaction, as if each had
    /// been stored alone in that order: a later member of a flow gets the report its first one stored.
    private static func insertEach(_ members: [PendingSubmit], box: String, into db: SQLiteDatabase, path: String) throws
        -> [SubmitOutcome]
    {
        try members.map { try insertAlone($0, box: box, into: db, path: path) }
    }

    /// One report on its own: its answer, or a throw that fails the whole group.
    private static func insertAlone(_ member: PendingSubmit, box: String, into db: SQLiteDatabase, path: String) throws
        -> SubmitOutcome
    {
        do {
            return .success(try insert(member, box: box, into: db, path: path))
        } catch let error where failsOnlyItsMember(error) && db.isInTransaction {
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
    private static func reportColumns(_ report: NewReport) -> [SQLiteValue] {
        [
            .text(report.id), .text(report.flowID), .integer(Int(report.ownerUID)), .text(report.submittedAt),
            .text(report.valuesJSON),
            report.photo.map { .text($0.mediaType) } ?? .null,
            report.photo.map { .text($0.sha256) } ?? .null,
            report.photo.map { .integer($0.data.count) } ?? .null,
            report.photo.map { .blob($0.data) } ?? .null,
        ]
    }

    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// A report refused for what it holds, not for the state of the database: the rest of its
    /// group is stored without it.
    private static func failsOnlyItsMember(_ error: any Error) -> Bool {
        switch error {
        case let error as ReportStoreError:
            return error.kind == .conflict
        case let error as SQLiteError:
            return error.isConstraint
        default:
            return false
        }
    }

    /// One report's statements: the flow's report if it has one, else the new one.
    private static func insert(_ member: PendingSubmit, box: String, into db: SQLiteDatabase, path: String) throws
        -> (report: StoredReport, inserted: Bool)
    {
        let report = member.report
        if let existing = try db.row(
            "SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables) WHERE flow_id = ?", [.text(report.flowID)]
        ).map(StoredReport.init(row:)) {
            return try answerForStored(existing, to: report, path: path).get()
        }
        let seq: Int64
        do {
            guard let row = try db.row(
                "INSERT INTO report (\(insertedColumns)) VALUES (\(placeholders(9))) RETURNING seq", reportColumns(report))
            else { throw ReportStoreError(kind: .io, path: path, message: "cannot submit report: SQLite returned no row for it") }
            seq = try row.integer("seq")
        } catch let error as SQLiteError where error.isUniqueConstraint {
            // flow_id was free (checked above, in this transaction), so the id is taken.
            throw idTaken(report, path: path)
        }
        // Not this member's fault if it fails: the whole group fails, so its report is not left without them.
        try recordDeliveryLifeAndBoard(of: Int(seq), member, box: box, into: db, path: path)
        return (StoredReport(report, life: member.life), true)
    }
}

import FoundationEssentials
import SQLiteNIO

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
        submitQueue.withLockedValue { $0.takeGroup(maxMembers: Self.maxGroupMembers, maxBytes: Self.maxGroupBytes) }
    }

    /// Stores `group` in one transaction and answers each member; runs in a turn of the gate.
    private func commit(_ group: [PendingSubmit]) async {
        guard !group.isEmpty else { return }
        let action = Self.submitAction
        let path = self.path
        let box = self.box
        let watch = self.watch
        guard let db = connection.withLockedValue({ $0 }) else {
            let closed = ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
            for member in group { member.answer(.failure(closed)) }
            return
        }
        do {
            if let damage = damage.withLockedValue({ $0 }) { throw damage }
            try await db.run { try watch.check() }
            let outcomes = try await db.inTransaction {
                do {
                    return try await Self.insertGroup(group, box: box, into: db, path: path)
                } catch let error where Self.failsOnlyItsMember(error) {
                    // A constraint of the file's own (not one a NewReport can break) refused the
                    // group's statement: SQLite undid that statement only; each member again alone.
                    return try await Self.insertEach(group, box: box, into: db, path: path)
                }
            }
            committedTransactions.withLockedValue { $0 += 1 }
            // Committed, but only to the file SQLite has open: it counts once that file is still
            // the one at the path. Checked in the same turn, so no other commit comes between.
            try await db.run { try watch.check() }
            // Before the answers: whoever learns of this write finds the cleanup it tried done, or pending.
            await cleanDiskIfPending(db)
            for (member, outcome) in zip(group, outcomes) { member.answer(outcome) }
        } catch {
            let failure = await Self.explain(error, action, path: path, watch: watch, db: db)
            noteIfDamaged(failure)
            for member in group { member.answer(.failure(failure)) }
        }
    }

    /// The body of a group's transaction in five statements, whatever the group's size (each
    /// statement is a hop to the database thread): the reports its flows already have, the new
    /// ones, their delivery rows, their lives, their board rows. Answers in the order of
    /// `members`, as if each had been stored alone in that order.
    private static func insertGroup(_ members: [PendingSubmit], box: String, into db: DatabaseConnection, path: String) async throws
        -> [SubmitOutcome]
    {
        let reports = members.map(\.report)
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
            let stored = insertedSeq.compactMap { flowID, seq in firstOfFlow[flowID].map { (seq: Int(seq), member: members[$0]) } }
            try await recordDeliveryLifeAndBoard(of: stored, box: box, into: db, path: path)
        }

        // A member whose flow's first member was refused would have been stored in its place:
        // it is tried again alone, after the others.
        var retried: [Int: SubmitOutcome] = [:]
        for (index, report) in reports.enumerated()
        where stored[report.flowID] == nil && insertedSeq[report.flowID] == nil && firstOfFlow[report.flowID] != index {
            retried[index] = try await insertAlone(members[index], box: box, into: db, path: path)
        }
        return reports.enumerated().map { index, report -> SubmitOutcome in
            if let existing = stored[report.flowID] {
                return answerForStored(existing, to: report, path: path)
            }
            if let outcome = retried[index] { return outcome }
            let first = firstOfFlow[report.flowID] ?? index
            guard insertedSeq[report.flowID] != nil else { return .failure(idTaken(report, path: path)) }
            return index == first
                ? .success((StoredReport(report, life: members[index].life), true))
                : answerForStored(StoredReport(reports[first], life: members[first].life), to: report, path: path)
        }
    }

    /// The delivery rows (pending), lives and board rows of new reports, in the same
    /// transaction as the reports: a report is never stored without them.
    private static func recordDeliveryLifeAndBoard(
        of stored: [(seq: Int, member: PendingSubmit)], box: String, into db: DatabaseConnection, path: String
    ) async throws {
        do {
            try await db.execute(
                "INSERT INTO delivery (report_seq, delivered_at, delivered_version, report_version) VALUES "
                    + Array(repeating: "(?, NULL, 0, 1)", count: stored.count).joined(separator: ", "),
                stored.map { .integer($0.seq) })
            try await db.execute(
                "INSERT INTO report_life (report_seq, \(ReportLife.columns)) VALUES "
                    + Array(repeating: "(\(placeholders(7)))", count: stored.count).joined(separator: ", "),
                stored.flatMap { [.integer($0.seq)] + $0.member.life.columnValues })
            try await BoardRow.insert(
                stored.map { BoardRow.columnValues(seq: $0.seq, $0.member.report, life: $0.member.life, box: box) }, into: db)
        } catch {
            // Not any member's fault: the whole group fails, so no report is left without them.
            throw ReportStoreError(
                wrapping: error, path: path, action: "cannot submit report: cannot record its delivery, life and board row",
                fallback: .io)
        }
    }

    /// Each report stored on its own, in order, within the group's transaction.
    private static func insertEach(_ members: [PendingSubmit], box: String, into db: DatabaseConnection, path: String) async throws
        -> [SubmitOutcome]
    {
        var outcomes: [SubmitOutcome] = []
        outcomes.reserveCapacity(members.count)
        for member in members { outcomes.append(try await insertAlone(member, box: box, into: db, path: path)) }
        return outcomes
    }

    /// One report on its own: its answer, or a throw that fails the whole group.
    private static func insertAlone(_ member: PendingSubmit, box: String, into db: DatabaseConnection, path: String) async throws
        -> SubmitOutcome
    {
        do {
            return .success(try await insert(member, box: box, into: db, path: path))
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
    private static func insert(_ member: PendingSubmit, box: String, into db: DatabaseConnection, path: String) async throws
        -> (report: StoredReport, inserted: Bool)
    {
        let report = member.report
        if let existing = try await db.row(
            "SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables) WHERE flow_id = ?", [.text(report.flowID)]
        ).map(StoredReport.init(row:)) {
            return try answerForStored(existing, to: report, path: path).get()
        }
        let seq: Int64
        do {
            guard let row = try await db.row(
                "INSERT INTO report (\(insertedColumns)) VALUES (\(placeholders(9))) RETURNING seq", reportColumns(report))
            else { throw ReportStoreError(kind: .io, path: path, message: "cannot submit report: SQLite returned no row for it") }
            seq = try row.integer("seq")
        } catch let error as SQLiteError where error.reason == .constraintUniqueFailed {
            // flow_id was free (checked above, in this transaction), so the id is taken.
            throw idTaken(report, path: path)
        }
        // Not this member's fault if it fails: the whole group fails, so its report is not left without them.
        try await recordDeliveryLifeAndBoard(of: [(Int(seq), member)], box: box, into: db, path: path)
        return (StoredReport(report, life: member.life), true)
    }
}

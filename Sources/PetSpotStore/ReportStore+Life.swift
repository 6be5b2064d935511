import FoundationEssentials
import PetSpotSQLite

// An owner's changes to a report after submit: close, renew, amend, erase. Each is durable
// when it returns (synchronous=FULL, as a submit), decided by `ReportLife.applying(_:at:)`;
// changes that arrive while another operation holds the connection share the next
// transaction and its one fsync, as submits do.
extension ReportStore {
    /// `reports.close`: a `missing` or `expired` report becomes `found` or `withdrawn`; the same
    /// close again answers the report unchanged.
    public func close(
        id: String, ownerUID: UInt32, outcome: ReportChange.Closing, now: Date
    ) async throws(ReportChangeError) -> ReportChangeResult {
        try await change("cannot close report", id: id, ownerUID: ownerUID, now: now) { _ in .change(.close(outcome), nil) }
    }

    /// `reports.renew`: a `missing` or `expired` report is `missing`, expiring from `now`.
    public func renew(id: String, ownerUID: UInt32, now: Date) async throws(ReportChangeError) -> ReportChangeResult {
        try await change("cannot renew report", id: id, ownerUID: ownerUID, now: now) { _ in .change(.renew, nil) }
    }

    /// `reports.amend`: `amendment` (the caller's: the flow's rules) makes the report's new
    /// values and photo of the report as it is in the transaction, so that two amendments at
    /// once each build on the other, and what the board finds it by after (`BoardFields`: the
    /// public copy's description read only with a photo replaced); the store writes what it
    /// gives, the board row in the same transaction. What it throws is the caller's refusal
    /// (`.rejected`), and nothing is written; so are board fields that cannot be stored
    /// (`.rejected` with a `ReportStoreError` of kind `.invalidBoardFields`), and a closed or
    /// erased report (`.refused`), which is told before the amendment is asked. Values and
    /// photo as they are already change nothing.
    /// `photoBytes`: about how large a photo the amendment brings, so that a group of changes
    /// stays within the bounds of a group of submits.
    public func amend(
        id: String, ownerUID: UInt32, now: Date, photoBytes: Int = 0,
        _ amendment: @escaping @Sendable (StoredReport) throws -> (valuesJSON: String, photo: PhotoAmendment, board: BoardFields)
    ) async throws(ReportChangeError) -> ReportChangeResult {
        try await change("cannot amend report", id: id, ownerUID: ownerUID, now: now, bytes: photoBytes) { stored in
            if case .refused = stored.life.applying(.amend(changesValues: true), at: now) { return .change(.amend(changesValues: true), nil) }
            let valuesJSON: String, photo: PhotoAmendment, board: BoardFields
            do {
                (valuesJSON, photo, board) = try amendment(stored)
            } catch {
                return .rejected(error)
            }
            if let problem = board.problem {
                return .rejected(ReportStoreError(kind: .invalidBoardFields, path: nil, message: "cannot amend report: \(problem)"))
            }
            let photoChanges: Bool = switch photo {
            case .keep: false
            case .replace(let new): new.sha256 != stored.photoSHA256 || new.mediaType != stored.photoMediaType
                || new.data.count != stored.photoBytes
            case .remove: stored.photoSHA256 != nil
            }
            let changes = photoChanges || valuesJSON != stored.valuesJSON
            return .change(.amend(changesValues: changes),
                           RowEdit(valuesJSON: valuesJSON, photo: photoChanges ? photo : .keep, board: board))
        }
    }

    /// `reports.amend` with values made beforehand (`valuesJSON`, checked and normalised by the
    /// caller, and the board fields read from them).
    public func amend(
        id: String, ownerUID: UInt32, valuesJSON: String, photo: PhotoAmendment, board: BoardFields, now: Date
    ) async throws(ReportChangeError) -> ReportChangeResult {
        let bytes = if case .replace(let new) = photo { new.data.count } else { 0 }
        return try await amend(id: id, ownerUID: ownerUID, now: now, photoBytes: bytes) { _ in (valuesJSON, photo, board) }
    }

    /// `reports.erase`: the report's personal data is gone for good, from the answers and from
    /// the disk (see `+DiskCleanup`); a `missing` report becomes `withdrawn`. Again on an erased
    /// report, answers it unchanged.
    public func erase(id: String, ownerUID: UInt32, now: Date) async throws(ReportChangeError) -> ReportChangeResult {
        try await change("cannot erase report", id: id, ownerUID: ownerUID, now: now) { _ in .change(.erase, nil) }
    }

    // MARK: - Internal

    /// What a change comes to, decided of the report as it is in the transaction.
    enum Decision: Sendable {
        case change(ReportChange, RowEdit?)
        /// The caller's rules refused it: nothing is written.
        case rejected(any Error)
    }

    /// What a change writes to the report's own row and its board row besides its life.
    struct RowEdit: Sendable {
        var valuesJSON: String
        var photo: PhotoAmendment
        var board: BoardFields
    }

    /// Queues an owner's change for the next group of changes, and waits for its answer.
    private func change(
        _ action: String, id: String, ownerUID: UInt32, now: Date, bytes: Int = 0,
        _ decide: @escaping @Sendable (StoredReport) -> Decision
    ) async throws(ReportChangeError) -> ReportChangeResult {
        do {
            try checkOpen(action)
        } catch {
            throw .failed(error)
        }
        if Task.isCancelled { throw .failed(ReportStoreError(kind: .cancelled, path: path, message: "\(action): cancelled")) }
        let pending = PendingChange(action: action, id: id, ownerUID: ownerUID, now: now.inWholeMilliseconds, bytes: bytes, decide: decide)
        if changeQueue.withLockedValue({ $0.enqueue(pending) }) { askForChangeTurn() }
        return try await pending.outcome().get()
    }

    /// Queues a turn of the store that makes the oldest waiting changes in one transaction.
    private func askForChangeTurn() {
        // Once queued, a change is made or failed with its group even if its caller is
        // cancelled: the turn is no task of the caller's.
        askForTurnOnDatabaseThread { [self] sqlite in
            guard sqlite != nil else {
                commit(changeQueue.withLockedValue { $0.takeAll() }, in: nil)
                return
            }
            let (group, more) = changeQueue.withLockedValue {
                $0.takeGroup(maxMembers: Self.maxGroupMembers, maxBytes: Self.maxGroupBytes)
            }
            if more { askForChangeTurn() }
            commit(group, in: sqlite)
        }
    }

    /// Makes `group`'s changes in one transaction, in their order (a change sees those before
    /// it), and answers each once it has committed durably to the file at the path. When a
    /// member fails (not refused: an error of the store), the transaction is undone and each
    /// member made alone, so that one change's failure is never another's. Runs in a turn of the
    /// gate, on the database thread (nil: the store is closed).
    private func commit(_ group: [PendingChange], in sqlite: SQLiteDatabase?) {
        guard let first = group.first else { return }
        guard let sqlite else {
            // The thread stops when the store closes, or abandons a damaged file.
            let damage = damage.withLockedValue { $0 }
            for member in group {
                let closed = damage ?? ReportStoreError(kind: .closed, path: path, message: "\(member.action): the store is closed")
                member.answer(.failure(.failed(closed)))
            }
            return
        }
        do {
            if let damage = damage.withLockedValue({ $0 }) { throw damage }
            let outcomes = try groupTransaction(sqlite) { sqlite in
                var reports = try Self.read(group, in: sqlite)
                return try group.map { try Self.make($0, on: &reports, in: sqlite) }
            }
            // Before the answers: whoever learns of this write finds the cleanup done, or pending.
            if let erasedAt = outcomes.compactMap(\.erasedAt).min() {
                cleanDisk(sqlite, afterErasureAt: erasedAt)
            } else {
                cleanDiskIfPending(sqlite)
            }
            for (member, made) in zip(group, outcomes) { member.answer(made.outcome) }
        } catch {
            let failure = explain(error, first.action)
            noteIfDamaged(failure)
            guard group.count > 1, failure.kind != .fileLost, failure.kind != .damaged, failure.kind != .closed else {
                // Each told in the words of its own change ("cannot erase report: …").
                for member in group {
                    let told = member.action == first.action ? failure : explain(error, member.action)
                    member.answer(.failure(.failed(told)))
                }
                return
            }
            for member in group { commit([member], in: sqlite) }
        }
    }

    /// The reports a group of changes is about, by id, with their row numbers: one read for
    /// the whole group.
    private static func read(_ group: [PendingChange], in db: SQLiteDatabase) throws -> [String: (report: StoredReport, seq: Int64)] {
        let ids = Array(Set(group.map(\.id)))
        var reports: [String: (report: StoredReport, seq: Int64)] = [:]
        for row in try db.rows(
            "SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables) WHERE id IN (\(placeholders(ids.count)))",
            ids.map { .text($0) })
        {
            let report = try StoredReport(row: row)
            reports[report.id] = (report, try row.integer("seq"))
        }
        return reports
    }

    /// One owner's change, inside its group's transaction: the report (the owner's, else
    /// `reportNotFound`) as the changes before it in the group left it, the change `decide`
    /// makes of it, the rules' answer, and, for a new version, its writes, which the changes
    /// after it then see; and when it erased.
    private static func make(
        _ member: PendingChange, on reports: inout [String: (report: StoredReport, seq: Int64)], in db: SQLiteDatabase
    ) throws -> (outcome: ChangeOutcome, erasedAt: Date?) {
        guard let (stored, seq) = reports[member.id], stored.ownerUID == member.ownerUID else {
            return (.failure(.refused(.reportNotFound)), nil)
        }
        let (change, edit): (ReportChange, RowEdit?)
        switch member.decide(stored) {
        case .change(let decided, let decidedEdit): (change, edit) = (decided, decidedEdit)
        case .rejected(let error): return (.failure(.rejected(error)), nil)
        }
        switch stored.life.applying(change, at: member.now) {
        case .refused(let refusal):
            return (.failure(.refused(refusal)), nil)
        case .unchanged:
            return (.success(ReportChangeResult(report: stored, changed: false)), nil)
        case .changed(let life):
            let report = try write(life, of: stored, seq: seq, edit: edit, into: db)
            reports[member.id] = (report, seq)
            return (.success(ReportChangeResult(report: report, changed: true)), life.erasedAt)
        }
    }

    /// Runs `body` in one transaction in its own turn; returns once it has committed durably
    /// to the file at the path (else throws, `.fileLost` when that file is no longer the one
    /// SQLite has open). When `body` erased (it says when), the WAL is then folded in and
    /// truncated; else a cleanup left pending is tried again.
    func writing<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (DatabaseConnection) async throws -> (T, erasedAt: Date?)
    ) async throws(ReportStoreError) -> T {
        let watch = self.watch
        return try await operation(action) { [self] db in
            let (result, erasedAt) = try await db.inTransaction { try await body(db) }
            // Committed, but only to the file SQLite has open: it counts once that file is still
            // the one at the path. Checked in the same turn, so no other commit comes between.
            try await db.run { try watch.check() }
            if let erasedAt {
                await cleanDisk(db, afterErasureAt: erasedAt)
            } else {
                await cleanDiskIfPending(db)
            }
            return result
        }
    }

    /// Writes a new version of `stored`: its life, the version its delivery waits for, what
    /// the change does to its row (erasure: the values but species and date, and the photo),
    /// and its board row (erasure: deleted). Returns the report as it now reads back.
    static func write(
        _ life: ReportLife, of stored: StoredReport, seq: Int64, edit: RowEdit?, into db: SQLiteDatabase
    ) throws -> StoredReport {
        let seqData = SQLiteValue.integer(Int(seq))
        try db.execute("""
            UPDATE report_life SET status = ?, version = ?, updated_at_ms = ?, expiry_base_ms = ?, erase_base_ms = ?,
                erased_at_ms = ?
            WHERE report_seq = ?
            """, life.columnValues + [seqData])
        try db.execute("""
            INSERT INTO delivery (report_seq, delivered_at, delivered_version, report_version) VALUES (?, NULL, 0, ?)
            ON CONFLICT (report_seq) DO UPDATE SET report_version = excluded.report_version
            """, [seqData, .integer(life.version)])
        var edit = edit
        if life.isErased && !stored.isErased {
            edit = RowEdit(valuesJSON: ErasedValues.of(stored.valuesJSON), photo: .remove, board: .none)
        }
        try BoardRow.update(seq: Int(seq), life: life, edit: edit, into: db)
        if let edit {
            switch edit.photo {
            case .keep:
                try db.execute("UPDATE report SET values_json = ? WHERE seq = ?", [.text(edit.valuesJSON), seqData])
            case .remove:
                try db.execute("""
                    UPDATE report SET values_json = ?, photo = NULL, photo_media_type = NULL, photo_sha256 = NULL,
                        photo_bytes = NULL
                    WHERE seq = ?
                    """, [.text(edit.valuesJSON), seqData])
            case .replace(let photo):
                try db.execute("""
                    UPDATE report SET values_json = ?, photo = ?, photo_media_type = ?, photo_sha256 = ?, photo_bytes = ?
                    WHERE seq = ?
                    """, [.text(edit.valuesJSON), .blob(photo.data), .text(photo.mediaType),
                          .text(photo.sha256), .integer(photo.data.count), seqData])
            }
        }
        // As it now reads back: its new version is not delivered yet.
        let photo: (mediaType: String?, sha256: String?, bytes: Int?) = switch edit?.photo {
        case nil, .keep?: (stored.photoMediaType, stored.photoSHA256, stored.photoBytes)
        case .remove?: (nil, nil, nil)
        case .replace(let new)?: (new.mediaType, new.sha256, new.data.count)
        }
        return StoredReport(
            id: stored.id, flowID: stored.flowID, ownerUID: stored.ownerUID, submittedAt: stored.submittedAt,
            valuesJSON: edit?.valuesJSON ?? stored.valuesJSON, photoMediaType: photo.mediaType, photoSHA256: photo.sha256,
            photoBytes: photo.bytes, life: life, delivery: .pending, deliveredVersion: stored.deliveredVersion)
    }
}

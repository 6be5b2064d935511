import PetSpotSQLite

// An owner's reports and photos, and the count of all.
extension ReportStore {
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
        let owner = SQLiteValue.integer(Int(ownerUID))
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

    /// The reports of any owner with these ids; an id of no report is left out.
    public func reports(ids: [String]) async throws(ReportStoreError) -> [StoredReport] {
        try await reading("cannot read reports") { db in
            var found: [StoredReport] = []
            // Within SQLite's smallest limit of bound variables per statement.
            for start in stride(from: 0, to: ids.count, by: 500) {
                let chunk = ids[start..<min(start + 500, ids.count)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try await db.rows(
                    "SELECT \(StoredReport.selectedColumns) FROM \(StoredReport.joinedTables) WHERE id IN (\(marks))", chunk.map { .text($0) })
                found += try rows.map(StoredReport.init(row:))
            }
            return found
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

    /// The number of stored reports of all users.
    public func count() async throws(ReportStoreError) -> Int {
        try await reading("cannot count reports") { db in
            Int(try await db.row("SELECT COUNT(*) AS count FROM report")?.integer("count") ?? 0)
        }
    }
}

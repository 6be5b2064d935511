import FoundationEssentials
import PetSpotSQLite

// Retention (REPORTS.md): a `missing` report not renewed for `reports.expireAfterDays` becomes
// `expired`; one `found`, `withdrawn` or `expired` for `reports.eraseAfterDays` is erased. The
// settings are the caller's, as they are now: a deadline is a stored base plus the setting.
extension ReportStore {
    /// Expires the `missing` reports whose expiry base is at or before `now - expireAfter`,
    /// oldest base first, at most `maxReports` in one durable transaction. Returns them as they
    /// are now; fewer than `maxReports` means none is left due. Also tries again a disk cleanup
    /// left pending, so a caller sweeping every few seconds is its timer.
    public func expireByRetention(
        now: Date, expireAfter: Duration, maxReports: Int
    ) async throws(ReportStoreError) -> [StoredReport] {
        try await sweep("cannot expire reports", change: .expire, base: "expiry_base_ms", now: now, after: expireAfter,
                        maxReports: maxReports)
    }

    /// Erases the reports `found`, `withdrawn` or `expired` since at or before `now - eraseAfter`,
    /// as `erase` does (from the disk too), oldest first, at most `maxReports` in one durable
    /// transaction. Returns them as they are now; fewer than `maxReports` means none is left due.
    public func eraseByRetention(
        now: Date, eraseAfter: Duration, maxReports: Int
    ) async throws(ReportStoreError) -> [StoredReport] {
        try await sweep("cannot erase reports", change: .eraseByRetention, base: "erase_base_ms", now: now,
                        after: eraseAfter, maxReports: maxReports)
    }

    /// The earliest moment a report becomes due for retention with these settings (possibly
    /// already past), or nil when none ever will without another change: when to sweep next.
    public func nextDue(expireAfter: Duration, eraseAfter: Duration) async throws(ReportStoreError) -> Date? {
        try await reading("cannot read retention deadlines") { db in
            let row = try await db.row("""
                SELECT (SELECT MIN(expiry_base_ms) FROM report_life WHERE expiry_base_ms IS NOT NULL) AS expiry,
                       (SELECT MIN(erase_base_ms) FROM report_life WHERE erase_base_ms IS NOT NULL) AS erase
                """)
            let expiry = try row?.optionalInteger("expiry").map { Date(milliseconds: $0).adding(expireAfter) }
            let erase = try row?.optionalInteger("erase").map { Date(milliseconds: $0).adding(eraseAfter) }
            return [expiry, erase].compactMap { $0 }.min()
        }
    }

    private func sweep(
        _ action: String, change: ReportChange, base column: String, now: Date, after: Duration, maxReports: Int
    ) async throws(ReportStoreError) -> [StoredReport] {
        guard maxReports >= 1 else {
            throw ReportStoreError(kind: .invalidLimit, path: nil, message: "invalid limit \(maxReports): must be at least 1")
        }
        let now = now.inWholeMilliseconds
        // Due when base + after <= now, reckoned as `ReportLife.expiresAt`/`erasesAt` do.
        let cutoff = now.milliseconds - after.wholeMilliseconds
        return try await writing(action) { db in try await db.withDatabase { sqlite in
            // The base's partial index, in order: never more rows read than are changed.
            let rows = try sqlite.rows("""
                SELECT \(StoredReport.selectedColumns) FROM report_life JOIN report ON report.seq = report_life.report_seq
                LEFT JOIN delivery ON delivery.report_seq = report.seq
                WHERE report_life.\(column) IS NOT NULL AND report_life.\(column) <= ?
                ORDER BY report_life.\(column), report_life.report_seq LIMIT ?
                """, [.integer(Int(cutoff)), .integer(maxReports)])
            var changed: [StoredReport] = []
            var erasedAt: Date?
            for row in rows {
                let stored = try StoredReport(row: row)
                // Selected by its base, so the rules allow it; they decide what it becomes.
                guard case .changed(let life) = stored.life.applying(change, at: now) else { continue }
                changed.append(try Self.write(life, of: stored, seq: try row.integer("seq"), edit: nil, into: sqlite))
                erasedAt = life.erasedAt ?? erasedAt
            }
            return (changed, erasedAt: erasedAt)
        } }
    }
}

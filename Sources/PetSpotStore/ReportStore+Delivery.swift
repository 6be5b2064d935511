import PetSpotSQLite

// What a relay claims and acknowledges, and the counts it shows.
extension ReportStore {
    /// Reports of all users whose current version is not yet delivered, oldest first (by
    /// insertion order), as they are now, with their photos (an erased report has none, and no
    /// personal values): at most `maxReports`, skipping the ids in `excluding` (claimed by a
    /// relay), and stopping before the photos would exceed `maxPhotoBytes`; the first one always
    /// goes in.
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
                    WHERE delivery.delivered_version < delivery.report_version AND delivery.report_seq > ?
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

    /// Marks versions of reports delivered at `deliveredAt`, all in one durable transaction: a
    /// report's delivered version becomes the highest of the one it had and the one given, so an
    /// older acknowledgement never lowers it. A report listed twice counts once, at its highest
    /// version. An id that names no report, or a version the report never had (below 1 or
    /// above its current one), throws `.reportNotFound` naming it, and nothing is marked.
    public func markDelivered(_ versions: [DeliveredVersion], at deliveredAt: String) async throws(ReportStoreError) -> DeliveryMarking {
        var ids: [String] = []
        var highestOf: [String: Int] = [:]
        for delivered in versions {
            if highestOf[delivered.reportID] == nil { ids.append(delivered.reportID) }
            highestOf[delivered.reportID] = max(highestOf[delivered.reportID] ?? .min, delivered.version)
        }
        let (order, highest) = (ids, highestOf)
        return try await writing("cannot mark reports delivered") { db in
            var advanced: [String] = []
            var already = 0
            for id in order {
                let version = highest[id] ?? 0
                guard let row = try await db.row("""
                    SELECT report.seq AS seq, delivered_version, report_life.version AS version
                    FROM report LEFT JOIN delivery ON delivery.report_seq = report.seq
                    LEFT JOIN report_life ON report_life.report_seq = report.seq
                    WHERE id = ?
                    """, [.text(id)]) else {
                    throw ReportStoreError(kind: .reportNotFound, path: nil, message: "no report \"\(id)\"")
                }
                let current = try row.integer("version")
                guard version >= 1, version <= current else {
                    throw ReportStoreError(
                        kind: .reportNotFound, path: nil,
                        message: "report \"\(id)\" has no version \(version) (its versions are 1 to \(current))")
                }
                if try row.optionalInteger("delivered_version") ?? 0 >= version {
                    already += 1
                    continue
                }
                try await db.execute("""
                    INSERT INTO delivery (report_seq, delivered_at, delivered_version, report_version) VALUES (?, ?, ?, ?)
                    ON CONFLICT (report_seq) DO UPDATE
                    SET delivered_at = excluded.delivered_at, delivered_version = excluded.delivered_version
                    """, [.integer(Int(try row.integer("seq"))), .text(deliveredAt), .integer(version), .integer(Int(current))])
                advanced.append(id)
            }
            return (DeliveryMarking(delivered: advanced.count, alreadyDelivered: already, newlyDelivered: advanced), erasedAt: nil)
        }
    }

    /// Reports of all users whose current version is delivered, those pending, and the latest
    /// acknowledgement.
    public func deliveryCounts() async throws(ReportStoreError) -> DeliveryCounts {
        try await reading("cannot count deliveries") { db in
            let row = try await db.row("""
                SELECT (SELECT COUNT(*) FROM report) AS total,
                       (SELECT COUNT(*) FROM delivery WHERE delivered_version >= report_version) AS delivered,
                       (SELECT MAX(delivered_at) FROM delivery) AS last
                """)
            let total = Int(try row?.integer("total") ?? 0)
            let delivered = Int(try row?.integer("delivered") ?? 0)
            return DeliveryCounts(pending: total - delivered, delivered: delivered,
                                  lastDeliveredAt: try row?.optionalText("last"))
        }
    }
}

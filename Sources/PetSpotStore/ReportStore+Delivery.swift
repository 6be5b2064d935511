import SQLiteNIO

// What a relay claims and acknowledges, and the counts it shows.
extension ReportStore {
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
                var delivered: [String] = []
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
                    delivered.append(id)
                }
                return DeliveryMarking(delivered: delivered.count, alreadyDelivered: already, newlyDelivered: delivered)
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
}

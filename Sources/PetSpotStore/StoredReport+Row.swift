import SQLiteNIO

extension StoredReport {
    /// The columns a StoredReport is read from (from `joinedTables`); the photo blob is not among them.
    static let selectedColumns = """
        id, flow_id, owner_uid, submitted_at, values_json, photo_media_type, photo_sha256, photo_bytes, delivered_at
        """

    /// A report with its delivery row. LEFT: a report without one (which no migration leaves)
    /// still reads, as pending.
    static let joinedTables = "report LEFT JOIN delivery ON delivery.report_seq = report.seq"

    /// Reads a row selected with `selectedColumns`. Throws instead of trapping on a value
    /// that does not fit (e.g. an owner uid out of UInt32 range in a tampered file).
    init(row: SQLiteRow) throws {
        self.init(
            id: try row.text("id"),
            flowID: try row.text("flow_id"),
            ownerUID: try row.integer("owner_uid", as: UInt32.self),
            submittedAt: try row.text("submitted_at"),
            valuesJSON: try row.text("values_json"),
            photoMediaType: try row.optionalText("photo_media_type"),
            photoSHA256: try row.optionalText("photo_sha256"),
            photoBytes: try row.optionalInteger("photo_bytes").map { bytes in
                guard let fitting = Int(exactly: bytes) else {
                    throw SQLiteRow.ColumnError(description: "column photo_bytes holds \(bytes), out of range")
                }
                return fitting
            },
            delivery: try row.optionalText("delivered_at").map { .delivered(at: $0) } ?? .pending)
    }
}

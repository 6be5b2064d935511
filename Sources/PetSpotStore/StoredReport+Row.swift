import FoundationEssentials
import PetSpotSQLite

extension StoredReport {
    /// The columns a StoredReport is read from (from `joinedTables`); the photo blob is not among them.
    static let selectedColumns = """
        report.seq AS seq, id, flow_id, owner_uid, submitted_at, values_json, photo_media_type, photo_sha256, \
        photo_bytes, delivered_at, delivered_version, status, version, updated_at_ms, expiry_base_ms, erase_base_ms, \
        erased_at_ms
        """

    /// A report with its delivery row and its life. LEFT: a report without a delivery row
    /// (which no migration leaves) still reads, as pending; one without its life fails to read.
    static let joinedTables = """
        report LEFT JOIN delivery ON delivery.report_seq = report.seq \
        LEFT JOIN report_life ON report_life.report_seq = report.seq
        """

    /// Reads a row selected with `selectedColumns`. Throws instead of trapping on a value
    /// that does not fit (e.g. an owner uid out of UInt32 range in a tampered file).
    init(row: SQLiteRow) throws {
        let life = try ReportLife(row: row)
        let deliveredVersion = Int(try row.optionalInteger("delivered_version") ?? 0)
        let deliveredAt = try row.optionalText("delivered_at")
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
            life: life,
            delivery: deliveredAt.map { deliveredVersion >= life.version ? .delivered(at: $0) : .pending } ?? .pending,
            deliveredVersion: deliveredVersion)
    }
}

extension ReportLife {
    /// Reads the life columns of `StoredReport.selectedColumns`.
    init(row: SQLiteRow) throws {
        let text = try row.text("status")
        guard let status = ReportStatus(rawValue: text) else {
            throw SQLiteRow.ColumnError(description: "column status holds \"\(text)\", not a status")
        }
        self.init(
            status: status,
            version: try row.integer("version", as: Int.self),
            updatedAt: Date(milliseconds: try row.integer("updated_at_ms")),
            expiryBase: try row.optionalInteger("expiry_base_ms").map(Date.init(milliseconds:)),
            eraseBase: try row.optionalInteger("erase_base_ms").map(Date.init(milliseconds:)),
            erasedAt: try row.optionalInteger("erased_at_ms").map(Date.init(milliseconds:)))
    }

    /// The values of `report_life`'s columns after report_seq, in the order of `columns`.
    static let columns = "status, version, updated_at_ms, expiry_base_ms, erase_base_ms, erased_at_ms"

    var columnValues: [SQLiteValue] {
        [
            .text(status.rawValue), .integer(version), .integer(Int(updatedAt.milliseconds)),
            expiryBase.map { .integer(Int($0.milliseconds)) } ?? .null,
            eraseBase.map { .integer(Int($0.milliseconds)) } ?? .null,
            erasedAt.map { .integer(Int($0.milliseconds)) } ?? .null,
        ]
    }
}

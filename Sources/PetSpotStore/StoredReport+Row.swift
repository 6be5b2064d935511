import GRDB

extension StoredReport {
    /// The `report` columns a StoredReport is read from; the photo blob is not among them.
    static let selectedColumns = """
        id, flow_id, owner_uid, submitted_at, values_json, photo_media_type, photo_sha256, photo_bytes
        """

    /// Reads a row selected with `selectedColumns`. Throws instead of trapping on a value
    /// that does not fit (e.g. an owner uid out of UInt32 range in a tampered file).
    init(row: Row) throws {
        self.init(
            id: try row.decode(forColumn: "id"),
            flowID: try row.decode(forColumn: "flow_id"),
            ownerUID: try row.decode(forColumn: "owner_uid"),
            submittedAt: try row.decode(forColumn: "submitted_at"),
            valuesJSON: try row.decode(forColumn: "values_json"),
            photoMediaType: try row.decode(forColumn: "photo_media_type"),
            photoSHA256: try row.decode(forColumn: "photo_sha256"),
            photoBytes: try row.decode(forColumn: "photo_bytes"))
    }
}

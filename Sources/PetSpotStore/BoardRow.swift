import PetSpotSQLite

/// The board's rows as the store writes them, in the transactions that change the reports
/// they list: a submit inserts one, a change of life updates it, erasure deletes it. The
/// R*Tree of positions follows by the table's triggers (`ReportSchema`, "v4-board").
enum BoardRow {
    static let insertedColumns = """
        report_seq, id, box, status, version, submitted_at, updated_at_ms, latitude, longitude, chip_digits, species, \
        photo_media_type, photo_bytes, photo_sha256, public_photo, public_photo_media_type, public_photo_bytes, \
        public_photo_sha256, values_json
        """
    static let insertedColumnCount = 19

    /// The values of `insertedColumns` for a report just stored as `seq`, in their order.
    static func columnValues(seq: Int, _ report: NewReport, life: ReportLife, box: String) -> [SQLiteValue] {
        [.integer(seq), .text(report.id), .text(box), .text(life.status.rawValue), .integer(life.version),
         .text(report.submittedAt), .integer(Int(life.updatedAt.milliseconds))]
            + fieldValues(report.board)
            + photoValues(report.photo, publicCopy: report.board.publicPhoto)
            + [.text(report.valuesJSON)]
    }

    static let insertStatement = "INSERT INTO board (\(insertedColumns)) VALUES ("
        + Array(repeating: "?", count: insertedColumnCount).joined(separator: ", ") + ")"

    /// Inserts one row of `columnValues`.
    static func insert(_ values: [SQLiteValue], into db: SQLiteDatabase) throws {
        try db.execute(insertStatement, values)
    }

    /// Puts a new version of an own report on the board: erased, it leaves (its position
    /// with it); else its life, and what `edit` changes of its values, fields and photo.
    static func update(seq: Int, life: ReportLife, edit: ReportStore.RowEdit?, into db: SQLiteDatabase) throws {
        if life.isErased {
            try db.execute("DELETE FROM board WHERE report_seq = ?", [.integer(seq)])
            return
        }
        var sets = "status = ?, version = ?, updated_at_ms = ?"
        var binds: [SQLiteValue] = [.text(life.status.rawValue), .integer(life.version), .integer(Int(life.updatedAt.milliseconds))]
        if let edit {
            sets += ", values_json = ?, latitude = ?, longitude = ?, chip_digits = ?, species = ?"
            binds += [.text(edit.valuesJSON)] + fieldValues(edit.board)
            switch edit.photo {
            case .keep:
                break
            case .remove:
                sets += ", \(photoColumns) = \(photoPlaceholders)"
                binds += photoValues(nil, publicCopy: nil)
            case .replace(let photo):
                sets += ", \(photoColumns) = \(photoPlaceholders)"
                binds += photoValues(photo, publicCopy: edit.board.publicPhoto)
            }
        }
        try db.execute("UPDATE board SET \(sets) WHERE report_seq = ?", binds + [.integer(seq)])
    }

    static let photoColumns = """
        (photo_media_type, photo_bytes, photo_sha256, public_photo, public_photo_media_type, public_photo_bytes, \
        public_photo_sha256)
        """

    static let photoPlaceholders = "(" + Array(repeating: "?", count: 7).joined(separator: ", ") + ")"

    /// latitude, longitude, chip_digits, species.
    static func fieldValues(_ fields: BoardFields) -> [SQLiteValue] {
        [fields.latitude.map { .integer($0) } ?? .null, fields.longitude.map { .integer($0) } ?? .null,
         fields.chipDigits.flatMap { $0.isEmpty ? nil : .text($0) } ?? .null, fields.species.map { .text($0) } ?? .null]
    }

    /// The stored photo's description and its public copy's, in the order of `photoColumns`.
    /// A report without a photo has no public one.
    static func photoValues(_ photo: StoredPhoto?, publicCopy: PhotoDescription?) -> [SQLiteValue] {
        let stored: [SQLiteValue] = photo.map { [.text($0.mediaType), .integer($0.data.count), .text($0.sha256)] }
            ?? [.null, .null, .null]
        guard photo != nil, let publicCopy else { return stored + [.text("withheld"), .null, .null, .null] }
        return stored + [.text("cleaned"), .text(publicCopy.mediaType), .integer(publicCopy.bytes), .text(publicCopy.sha256)]
    }
}

import PetSpotSQLite

// Photos stored before the board: their metadata-free copies were never described, since the
// store cannot clean a photo (PetSpotBoard's `MetadataFreePhoto` does). The daemon takes them
// a few at a time, cleans each and says what came of it; until then the public sees no photo
// of them (`PublicPhoto.notYetDescribed`).
extension ReportStore {
    /// Own reports on the board whose photo's public copy is not described yet, oldest first,
    /// with the photo's bytes: at most `limit` (photos are large). Empty once all are done.
    /// A limit below 1 throws `.invalidLimit`.
    public func boardEntriesToDescribe(limit: Int) async throws(ReportStoreError) -> [UndescribedPhoto] {
        try Self.checkLimit(limit)
        return try await reading("cannot read the photos to describe") { db in
            try await db.rows("""
                SELECT board.id AS id, report.photo_media_type AS media_type, report.photo_sha256 AS sha256,
                       report.photo AS photo
                FROM board JOIN report ON report.seq = board.report_seq
                WHERE board.public_photo = 'undescribed' AND report.photo IS NOT NULL
                ORDER BY board.seq LIMIT ?
                """, [.integer(limit)]).map { row in
                UndescribedPhoto(
                    reportID: try row.text("id"),
                    photo: StoredPhoto(mediaType: try row.text("media_type"), sha256: try row.text("sha256"),
                                       data: try row.optionalBlob("photo") ?? []))
            }
        }
    }

    /// Records the public copy of the report's photo: `copy` describes the metadata-free copy
    /// of the photo whose SHA-256 is `photoSHA256`, nil when it cannot be cleaned (the public
    /// is shown none). Durable when it returns. Returns false, changing nothing, when the
    /// report's photo is no longer that one (amended meanwhile, which described its new one),
    /// is described already, or the report left the board (erased).
    @discardableResult
    public func describePublicPhoto(id: String, photoSHA256: String, as copy: PhotoDescription?) async throws(ReportStoreError) -> Bool {
        let values: [SQLiteValue] = copy.map { [.text("cleaned"), .text($0.mediaType), .integer($0.bytes), .text($0.sha256)] }
            ?? [.text("withheld"), .null, .null, .null]
        return try await writing("cannot describe a public photo") { db in
            let changed = try await db.rows("""
                UPDATE board SET public_photo = ?, public_photo_media_type = ?, public_photo_bytes = ?, public_photo_sha256 = ?
                WHERE report_seq = (SELECT seq FROM report WHERE id = ?) AND public_photo = 'undescribed' AND photo_sha256 = ?
                RETURNING seq
                """, values + [.text(id), .text(photoSHA256)])
            return (!changed.isEmpty, erasedAt: nil)
        }
    }
}

import PetSpotSQLite

// The animal list's reads (REPORTS.md, "The animal list"): every `missing` report on the board,
// for anyone at the box. The list's rules (who sees what, distances, order, cursors) are
// PetSpotBoard's; the store finds the reports. Each read is bounded by its limit. "Listed": on
// the board, `missing`, and the copy of its report that counts (`countingCopy`).
extension ReportStore {
    /// The listed (`missing`) reports whose exact position lies in any of `boxes` and in none
    /// of `excluding`, of `species` when given, each once: at most `limit` of them, in no
    /// particular order, and whether that was all of them (`complete`). The R*Tree finds them;
    /// every position is checked again on the board's own columns.
    ///
    /// A nearest-first search asks for the boxes around its origin (PetSpotBoard's
    /// `SearchArea.boundingBoxes`, rounded outward), leaving out boxes of reports nearer than
    /// its cursor (rounded inward), measures what comes back and reads the entries it keeps
    /// with `boardEntries(ids:)`. A limit below 1 throws `.invalidLimit`.
    public func boardPlaces(
        in boxes: [ScaledBox], excluding: [ScaledBox] = [], species: String?, limit: Int
    ) async throws(ReportStoreError) -> (places: [BoardPlace], complete: Bool) {
        try Self.checkLimit(limit)
        let searched = boxes.filter { !$0.isEmpty }
        guard !searched.isEmpty else { return ([], true) }
        var selects: [String] = []
        var binds: [SQLiteValue] = []
        // Left out on the R*Tree's own columns, before the board's row is read.
        let excluded = excluding.filter { !$0.isEmpty }
        let leftOut = excluded.map { _ in
            " AND NOT (board_position.min_latitude >= ? AND board_position.max_latitude <= ?"
                + " AND board_position.min_longitude >= ? AND board_position.max_longitude <= ?)"
        }.joined()
        let leftOutBinds: [SQLiteValue] = excluded.flatMap {
            [SQLiteValue.integer($0.minLatitude), .integer($0.maxLatitude), .integer($0.minLongitude), .integer($0.maxLongitude)]
        }
        for box in searched {
            // The R*Tree's terms on its own columns, then the exact position on the board's.
            selects.append("""
                SELECT \(BoardPlace.selectedColumns) FROM board_position CROSS JOIN board ON board.seq = board_position.seq
                WHERE board_position.min_latitude >= ? AND board_position.max_latitude <= ?
                  AND board_position.min_longitude >= ? AND board_position.max_longitude <= ?
                  AND board.status = 'missing' AND board.latitude BETWEEN ? AND ? AND board.longitude BETWEEN ? AND ?
                  AND \(Self.countingCopy)
                """ + leftOut + (species == nil ? "" : " AND board.species = ?"))
            let bounds: [SQLiteValue] = [.integer(box.minLatitude), .integer(box.maxLatitude),
                                        .integer(box.minLongitude), .integer(box.maxLongitude)]
            binds += bounds + bounds + leftOutBinds + (species.map { [.text($0)] } ?? [])
        }
        // UNION: a report in two boxes that overlap is given once.
        let sql = selects.joined(separator: " UNION ") + " LIMIT ?"
        let bound = binds + [.integer(Self.oneMore(limit))]
        let fetched = try await reading("cannot search the board") { db in
            try await db.rows(sql, bound).map(BoardPlace.init(row:))
        }
        return (Array(fetched.prefix(limit)), fetched.count <= limit)
    }

    /// The listed (`missing`) reports in the list's order without an origin: newest first
    /// (`submittedAt` descending, then `id` ascending, text compared bytewise as SQLite's BINARY
    /// collation and PetSpotBoard's `AnimalOrderKey` do), after the key `after` (nil: from the
    /// start), of `species` when given, with or without a position, at most `limit`. Keyset
    /// paging: reports that come and go before the key move no page after it. A limit below 1
    /// throws `.invalidLimit`.
    public func boardNewestFirst(
        after: (submittedAt: String, id: String)?, species: String?, position: BoardPositionFilter, limit: Int
    ) async throws(ReportStoreError) -> [BoardEntry] {
        try Self.checkLimit(limit)
        // Each filter has its index: by species, without a position, or all (ReportSchema).
        var terms = ["status = 'missing'", Self.countingCopy]
        var binds: [SQLiteValue] = []
        if let species {
            terms.append("species = ?")
            binds.append(.text(species))
        }
        switch position {
        case .with: terms.append("latitude IS NOT NULL")
        case .without: terms.append("latitude IS NULL")
        case .any: break
        }
        if let after {
            // The first term bounds the index range; the second drops the key's own time up to its id.
            terms.append("submitted_at <= ?")
            terms.append("(submitted_at < ? OR id > ?)")
            binds += [.text(after.submittedAt), .text(after.submittedAt), .text(after.id)]
        }
        let sql = """
            SELECT \(BoardEntry.selectedColumns) FROM board WHERE \(terms.joined(separator: " AND "))
            ORDER BY submitted_at DESC, id LIMIT ?
            """
        let bound = binds + [.integer(limit)]
        return try await reading("cannot list the board") { db in
            try await db.rows(sql, bound).map(BoardEntry.init(row:))
        }
    }

    /// The board's entries of these report ids, whatever their status; an id of none is left
    /// out. Another box's copy of a report is an entry of its own.
    public func boardEntries(ids: [String]) async throws(ReportStoreError) -> [BoardEntry] {
        guard !ids.isEmpty else { return [] }
        return try await reading("cannot read the board") { db in
            var found: [BoardEntry] = []
            // Within SQLite's smallest limit of bound variables per statement.
            for start in stride(from: 0, to: ids.count, by: 250) {
                let chunk = ids[start..<min(start + 250, ids.count)]
                let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let binds = chunk.map { SQLiteValue.text($0) }
                found += try await db.rows(
                    "SELECT \(BoardEntry.selectedColumns) FROM board WHERE \(Self.idIn(marks))", binds + binds
                ).map(BoardEntry.init(row:))
            }
            return found
        }
    }

    /// The board's entry of a report, whatever its status (a `found` one is still on the
    /// board, off the list, until erased); of its copies, the one that counts (`countingCopy`).
    /// Nil when none: never stored, erased, or unknown here.
    public func boardEntry(id: String) async throws(ReportStoreError) -> BoardEntry? {
        try await reading("cannot read the board") { db in
            try await db.row("""
                SELECT \(BoardEntry.selectedColumns) FROM board WHERE \(Self.idIn("?"))
                ORDER BY version DESC, report_seq IS NULL, seq LIMIT 1
                """, [.text(id), .text(id)]).map(BoardEntry.init(row:))
        }
    }

    /// The listed (`missing`) reports whose chip number is `chipDigits` (ASCII digits, as
    /// PetSpotBoard's `ChipLookupKey` reads a lookup), newest first, at most `limit`. A limit
    /// below 1 throws `.invalidLimit`.
    public func boardEntries(chipDigits: String, limit: Int) async throws(ReportStoreError) -> [BoardEntry] {
        try Self.checkLimit(limit)
        return try await reading("cannot look up the board") { db in
            try await db.rows("""
                SELECT \(BoardEntry.selectedColumns) FROM board
                WHERE chip_digits = ? AND status = 'missing' AND \(Self.countingCopy)
                ORDER BY submitted_at DESC, id LIMIT ?
                """, [.text(chipDigits), .integer(limit)]).map(BoardEntry.init(row:))
        }
    }

    /// The stored photo of a listed (`missing`) report of this box, with its bytes, as it was
    /// sent (metadata and all): the caller cleans it on the way out to the public. Nil when the
    /// report is not listed, has no photo, or is another box's.
    public func boardPhoto(id: String) async throws(ReportStoreError) -> StoredPhoto? {
        try await reading("cannot read a photo of the board") { db in
            guard let row = try await db.row("""
                SELECT report.photo_media_type AS media_type, report.photo_sha256 AS sha256, report.photo AS photo
                FROM report JOIN board ON board.report_seq = report.seq
                WHERE report.id = ? AND board.status = 'missing' AND report.photo IS NOT NULL
                """, [.text(id)])
            else { return nil }
            return StoredPhoto(mediaType: try row.text("media_type"), sha256: try row.text("sha256"),
                               data: try row.optionalBlob("photo") ?? [])
        }
    }

    /// How many reports the list holds (`missing` ones on the board).
    public func boardCount() async throws(ReportStoreError) -> Int {
        try await reading("cannot count the board") { db in
            Int(try await db.row("SELECT COUNT(*) AS count FROM board WHERE status = 'missing' AND \(Self.countingCopy)")?
                .integer("count") ?? 0)
        }
    }

    /// A report the board holds more than once (its own row and a copy brought from another
    /// box, or copies from two boxes) counts once: as its highest version, the box's own on a
    /// tie, then the first stored; a newer copy that is `found` keeps an older `missing` one off
    /// the list (as PetSpotBoard's `AnimalQuery.page` reads copies). While the board holds only
    /// the box's own reports, the first test settles it once per statement.
    static let countingCopy = """
        (NOT EXISTS (SELECT 1 FROM board WHERE report_seq IS NULL) OR NOT EXISTS (
            SELECT 1 FROM board AS other
            WHERE (other.report_seq = (SELECT seq FROM report WHERE report.id = board.id) OR (other.report_seq IS NULL AND other.id = board.id))
              AND other.seq <> board.seq
              AND (other.version, other.report_seq IS NOT NULL, -other.seq) > (board.version, board.report_seq IS NOT NULL, -board.seq)))
        """

    /// Rows of the board whose report id is among `marks` (placeholders, bound twice in a row):
    /// the box's own through `report`'s index of ids, other boxes' through theirs (ReportSchema).
    static func idIn(_ marks: String) -> String {
        "(board.report_seq IN (SELECT seq FROM report WHERE report.id IN (\(marks))) OR (board.report_seq IS NULL AND board.id IN (\(marks))))"
    }

    static func checkLimit(_ limit: Int) throws(ReportStoreError) {
        guard limit >= 1 else {
            throw ReportStoreError(kind: .invalidLimit, path: nil, message: "invalid limit \(limit): must be at least 1")
        }
    }

    /// One row more than asked tells whether more were there.
    static func oneMore(_ limit: Int) -> Int { limit == Int.max ? limit : limit + 1 }
}

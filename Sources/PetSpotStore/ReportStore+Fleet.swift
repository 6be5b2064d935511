import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif
import PetSpotSQLite

// The fleet's copy (REPORTS.md: every box lists the fleet's missing pets): other boxes'
// reports, brought down by the relay, as board rows without a `report` row (`report_seq` NULL:
// no owner here, never claimed, never pending, never sent back up), their photos in
// `fleet_photo`, and the central feed position the copy is complete up to in `fleet_cursor`.
// A copy is replaced only by a higher version, and leaves the disk as an erasure does.
extension ReportStore {
    /// The feed position the copy is complete up to (0: nothing yet), and how many reports it holds.
    public func fleetState() async throws(ReportStoreError) -> (cursor: Int, reports: Int) {
        try await reading("cannot read the fleet's copy") { db in
            let cursor = try await db.row("SELECT position FROM fleet_cursor WHERE singleton = 1")?.integer("position") ?? 0
            let reports = try await db.row("SELECT COUNT(*) AS count FROM board WHERE report_seq IS NULL")?.integer("count") ?? 0
            return (Int(cursor), Int(reports))
        }
    }

    /// Applies a batch of the feed in one transaction, in order, and moves the cursor to
    /// `cursor`; then keeps the copy within `bounds`. When a copy left, erased data leaves the
    /// disk as after an erasure (`now` says when). A version not above the copy held changes
    /// nothing (the feed brought again after a lost cursor); `gone` at a version below the copy
    /// held leaves it.
    ///
    /// A copy is known by its report id alone, as the central table knows a report: a newer
    /// version filed under another box name replaces it, and `gone` removes it whatever box it
    /// names. A copy of a report this box has as its own is never stored (`ownIDs`). With
    /// `restart`, every copy is dropped first (the feed starts again from `cursor`).
    public func applyFleet(_ changes: [FleetChange], cursor: Int, bounds: FleetBounds, now: Date, restart: Bool = false) async throws(ReportStoreError) -> FleetOutcome {
        guard cursor >= 0 else {
            throw ReportStoreError(kind: .invalidLimit, path: nil, message: "invalid fleet cursor \(cursor): must be at least 0")
        }
        return try await writing("cannot store the fleet's reports") { db in
            var listed: [String] = []
            var removed: [String] = []
            var own: [String] = []
            if restart {
                let all = try await db.rows("SELECT seq, id FROM board WHERE report_seq IS NULL")
                try await Self.deleteFleetRows(try all.map { Int(try $0.integer("seq")) }, from: db)
                removed += try all.map { try $0.text("id") }
            }
            for change in changes {
                switch change {
                case .listed(let copy):
                    if try await db.row("SELECT 1 AS own FROM report WHERE id = ?", [.text(copy.id)]) != nil {
                        own.append(copy.id)
                    } else if try await Self.putFleetCopy(copy, into: db) {
                        listed.append(copy.id)
                    }
                case .gone(let id, _, let version):
                    if try await Self.deleteFleetCopy(id: id, atMost: version, from: db) { removed.append(id) }
                }
            }
            try await db.execute("""
                INSERT INTO fleet_cursor (singleton, position) VALUES (1, ?) ON CONFLICT (singleton) DO UPDATE SET position = excluded.position
                """, [.integer(cursor)])
            let evicted = try await Self.evictFleetCopies(bounds, from: db)
            let photosDropped = try await Self.dropFleetPhotos(bounds, from: db)
            let outcome = FleetOutcome(listed: listed.filter { !evicted.contains($0) }, removed: removed + evicted,
                                       evicted: evicted.count, photosDropped: photosDropped, ownIDs: own)
            return (outcome, erasedAt: outcome.removed.isEmpty && photosDropped == 0 ? nil : now)
        }
    }

    /// The board row of another box's report (the newest, should a box name have changed), and its version.
    private static func fleetRow(id: String, in db: DatabaseConnection) async throws -> (seq: Int, version: Int)? {
        guard let row = try await db.row("SELECT seq, version FROM board WHERE report_seq IS NULL AND id = ? ORDER BY version DESC LIMIT 1",
                                         [.text(id)]) else { return nil }
        return (Int(try row.integer("seq")), Int(try row.integer("version")))
    }

    /// Stores a copy over an older one (or as new); false when the one held is as new or newer.
    private static func putFleetCopy(_ copy: FleetCopy, into db: DatabaseConnection) async throws -> Bool {
        if let problem = copy.board.problem {
            throw ReportStoreError(kind: .invalidBoardFields, path: nil, message: "report \(copy.id) of box \(copy.box): \(problem)")
        }
        let held = try await fleetRow(id: copy.id, in: db)
        if let held, held.version >= copy.version { return false }
        let life: [SQLiteValue] = [.text(ReportStatus.missing.rawValue), .integer(copy.version), .text(copy.submittedAt),
                                  .integer(Int(copy.updatedAt.milliseconds))]
        let described = BoardRow.fieldValues(copy.board) + BoardRow.photoValues(copy.photo, publicCopy: copy.board.publicPhoto)
            + [.text(copy.valuesJSON)]
        let seq: Int
        if let held {
            seq = held.seq
            try await db.execute("""
                UPDATE board SET box = ?, status = ?, version = ?, submitted_at = ?, updated_at_ms = ?, latitude = ?, longitude = ?,
                    chip_digits = ?, species = ?, \(BoardRow.photoColumns) = \(BoardRow.photoPlaceholders), values_json = ?
                WHERE seq = ?
                """, [.text(copy.box)] + life + described + [.integer(seq)])
            try await db.execute("DELETE FROM fleet_photo WHERE board_seq = ?", [.integer(seq)])
        } else {
            let marks = Array(repeating: "?", count: BoardRow.insertedColumnCount).joined(separator: ", ")
            guard let row = try await db.row("INSERT INTO board (\(BoardRow.insertedColumns)) VALUES (\(marks)) RETURNING seq",
                                             [.null, .text(copy.id), .text(copy.box)] + life + described)
            else { throw ReportStoreError(kind: .io, path: nil, message: "the board gave no row for report \(copy.id)") }
            seq = Int(try row.integer("seq"))
        }
        if let photo = copy.photo {
            try await db.execute("INSERT INTO fleet_photo (board_seq, photo) VALUES (?, ?)", [.integer(seq), .blob(photo.data)])
        }
        return true
    }

    /// Deletes the copies of `id` held at `version` or below; false when there is none, or a newer one.
    private static func deleteFleetCopy(id: String, atMost version: Int, from db: DatabaseConnection) async throws -> Bool {
        let held = try await db.rows("SELECT seq FROM board WHERE report_seq IS NULL AND id = ? AND version <= ?", [.text(id), .integer(version)])
        guard !held.isEmpty else { return false }
        try await deleteFleetRows(try held.map { Int(try $0.integer("seq")) }, from: db)
        return true
    }

    private static func deleteFleetRows(_ seqs: [Int], from db: DatabaseConnection) async throws {
        for start in stride(from: 0, to: seqs.count, by: 250) {
            let chunk = seqs[start..<min(start + 250, seqs.count)].map { SQLiteValue.integer($0) }
            let marks = Array(repeating: "?", count: chunk.count).joined(separator: ",")
            try await db.execute("DELETE FROM fleet_photo WHERE board_seq IN (\(marks))", chunk)
            try await db.execute("DELETE FROM board WHERE report_seq IS NULL AND seq IN (\(marks))", chunk)
        }
    }

    /// The fleet's rows in the order they go past a bound: the farthest from the box first
    /// (those without a position before any measured), then the oldest. Distances are
    /// equirectangular on the scaled degrees, the longitude across the antimeridian the short
    /// way: an order, not a measure, and the same every time for the same rows.
    private static func evictionOrder(_ bounds: FleetBounds) -> (sql: String, binds: [SQLiteValue]) {
        guard let origin = bounds.origin else { return ("submitted_at, id", []) }
        let shrink = cos(Double(origin.latitude) / 100_000 * .pi / 180)
        return ("""
            latitude IS NULL DESC,
            (latitude - ?1) * (latitude - ?1) * 1.0
                + (min(abs(longitude - ?2), 36000000 - abs(longitude - ?2)) * ?3) * (min(abs(longitude - ?2), 36000000 - abs(longitude - ?2)) * ?3) DESC,
            submitted_at, id
            """, [.integer(origin.latitude), .integer(origin.longitude), .float(shrink)])
    }

    /// Deletes the copies past `maxReports`; returns their ids.
    private static func evictFleetCopies(_ bounds: FleetBounds, from db: DatabaseConnection) async throws -> [String] {
        let count = Int(try await db.row("SELECT COUNT(*) AS count FROM board WHERE report_seq IS NULL")?.integer("count") ?? 0)
        guard count > bounds.maxReports else { return [] }
        let order = evictionOrder(bounds)
        let rows = try await db.rows(
            "SELECT seq, id FROM board WHERE report_seq IS NULL ORDER BY \(order.sql) LIMIT ?\(order.binds.count + 1)",
            order.binds + [.integer(count - bounds.maxReports)])
        let seqs = try rows.map { Int(try $0.integer("seq")) }
        let ids = try rows.map { try $0.text("id") }
        try await deleteFleetRows(seqs, from: db)
        return ids
    }

    /// Drops the photos of the copies past `maxPhotoBytes` (their reports stay listed, without a
    /// photo, their values saying so); returns how many.
    private static func dropFleetPhotos(_ bounds: FleetBounds, from db: DatabaseConnection) async throws -> Int {
        var total = Int(try await db.row("SELECT coalesce(SUM(photo_bytes), 0) AS bytes FROM board WHERE report_seq IS NULL")?.integer("bytes") ?? 0)
        guard total > bounds.maxPhotoBytes else { return 0 }
        let order = evictionOrder(bounds)
        let rows = try await db.rows(
            "SELECT seq, photo_bytes FROM board WHERE report_seq IS NULL AND photo_bytes IS NOT NULL ORDER BY \(order.sql)", order.binds)
        var dropped: [Int] = []
        for row in rows where total > bounds.maxPhotoBytes {
            dropped.append(Int(try row.integer("seq")))
            total -= Int(try row.integer("photo_bytes"))
        }
        let none = BoardRow.photoValues(nil, publicCopy: nil)
        for seq in dropped {
            try await db.execute("DELETE FROM fleet_photo WHERE board_seq = ?", [.integer(seq)])
            try await db.execute("""
                UPDATE board SET \(BoardRow.photoColumns) = \(BoardRow.photoPlaceholders), values_json = json_set(values_json, '$.photo', json('null'))
                WHERE seq = ?
                """, none + [.integer(seq)])
        }
        return dropped.count
    }

    /// The photo of another box's listed report, as it came down.
    public func fleetPhoto(id: String, box: String) async throws(ReportStoreError) -> StoredPhoto? {
        try await reading("cannot read a photo of the fleet's copy") { db in
            guard let row = try await db.row("""
                SELECT board.photo_media_type AS media_type, board.photo_sha256 AS sha256, fleet_photo.photo AS photo
                FROM board JOIN fleet_photo ON fleet_photo.board_seq = board.seq
                WHERE board.report_seq IS NULL AND board.id = ? AND board.box = ? AND board.status = 'missing'
                """, [.text(id), .text(box)])
            else { return nil }
            return StoredPhoto(mediaType: try row.text("media_type"), sha256: try row.text("sha256"),
                               data: try row.optionalBlob("photo") ?? [])
        }
    }
}

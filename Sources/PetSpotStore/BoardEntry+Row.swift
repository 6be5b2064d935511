import FoundationEssentials
import PetSpotSQLite

extension BoardEntry {
    /// The columns an entry is read from, of `board`.
    static let selectedColumns = """
        board.report_seq AS report_seq, board.id AS id, box, board.status AS status, board.version AS version, \
        board.submitted_at AS submitted_at, board.updated_at_ms AS updated_at_ms, latitude, longitude, chip_digits, \
        species, board.photo_media_type AS photo_media_type, board.photo_bytes AS photo_bytes, \
        board.photo_sha256 AS photo_sha256, public_photo, public_photo_media_type, public_photo_bytes, \
        public_photo_sha256, board.values_json AS values_json
        """

    /// Reads a row selected with `selectedColumns`; a value that does not fit throws.
    init(row: SQLiteRow) throws {
        let statusText = try row.text("status")
        guard let status = ReportStatus(rawValue: statusText) else {
            throw SQLiteRow.ColumnError(description: "column status holds \"\(statusText)\", not a status")
        }
        let latitude = try row.optionalInteger("latitude").map { try Self.fitting($0, "latitude") }
        let longitude = try row.optionalInteger("longitude").map { try Self.fitting($0, "longitude") }
        let photo = try Self.photo(row, prefix: "")
        let publicPhoto: PublicPhoto
        switch try row.text("public_photo") {
        case "cleaned":
            guard let copy = try Self.photo(row, prefix: "public_") else {
                throw SQLiteRow.ColumnError(description: "column public_photo is cleaned, and the copy is not described")
            }
            publicPhoto = .cleaned(copy)
        case "withheld": publicPhoto = .withheld
        case "undescribed": publicPhoto = .notYetDescribed
        case let other: throw SQLiteRow.ColumnError(description: "column public_photo holds \"\(other)\"")
        }
        self.init(
            id: try row.text("id"), box: try row.text("box"), isOwn: try row.optionalInteger("report_seq") != nil,
            status: status, version: try row.integer("version", as: Int.self), submittedAt: try row.text("submitted_at"),
            updatedAt: Date(milliseconds: try row.integer("updated_at_ms")), valuesJSON: try row.text("values_json"),
            latitude: latitude, longitude: longitude, chipDigits: try row.optionalText("chip_digits"),
            species: try row.optionalText("species"), photo: photo, publicPhoto: publicPhoto)
    }

    private static func photo(_ row: SQLiteRow, prefix: String) throws -> PhotoDescription? {
        guard let sha256 = try row.optionalText(prefix + "photo_sha256") else { return nil }
        return PhotoDescription(mediaType: try row.text(prefix + "photo_media_type"),
                                bytes: try row.integer(prefix + "photo_bytes", as: Int.self), sha256: sha256)
    }

    static func fitting(_ value: Int64, _ name: String) throws -> Int {
        guard let fitting = Int(exactly: value) else { throw SQLiteRow.ColumnError(description: "column \(name) holds \(value), out of range") }
        return fitting
    }
}

extension BoardPlace {
    /// The columns a place is read from, of `board`.
    static let selectedColumns = "board.id AS id, board.version AS version, board.submitted_at AS submitted_at, latitude, longitude"

    init(row: SQLiteRow) throws {
        self.init(id: try row.text("id"), version: try row.integer("version", as: Int.self),
                  submittedAt: try row.text("submitted_at"),
                  latitude: try BoardEntry.fitting(try row.integer("latitude"), "latitude"),
                  longitude: try BoardEntry.fitting(try row.integer("longitude"), "longitude"))
    }
}

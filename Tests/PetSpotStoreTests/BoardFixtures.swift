import Foundation
import PetSpotSQLite
@testable import PetSpotStore

/// A report as the flow stores one, and the board fields the daemon reads from it: position in
/// degrees × 100 000 (nil: none), chip digits, species, a photo and its public copy.
func boardReport(
    _ number: Int,
    latitude: Int? = 5_222_968,
    longitude: Int? = 2_101_223,
    species: String? = "dog",
    chip: String? = nil,
    submittedAt: String = "2026-11-21T12:00:00Z",
    id: String? = nil,
    owner: UInt32 = 1000,
    photo: StoredPhoto? = nil,
    publicPhoto: PhotoDescription? = nil
) -> NewReport {
    let chip = chip ?? "61609\(String(format: "%010d", number))"
    let values = boardValues(latitude: latitude, longitude: longitude, species: species, chip: chip, photo: photo?.described)
    return NewReport(
        id: id ?? "report-\(number)", flowID: "flow-\(number)", ownerUID: owner, submittedAt: submittedAt,
        valuesJSON: values, photo: photo,
        board: BoardFields(latitude: latitude, longitude: longitude, chipDigits: chip, species: species, publicPhoto: publicPhoto))
}

/// A `values` object of every field, as the flow writes it.
func boardValues(latitude: Int?, longitude: Int?, species: String?, chip: String?, photo: PhotoDescription? = nil,
                 email: String = "owner@example.org") -> String {
    func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
    let photoJSON = photo.map { #"{"mediaType":"\#($0.mediaType)","bytes":\#($0.bytes),"sha256":"\#($0.sha256)"}"# } ?? "null"
    return #"{"chipNumber":\#(text(chip)),"photo":\#(photoJSON),"disappearanceDate":"2026-11-20","species":\#(text(species)),"#
        + #""race":null,"gender":"male","age":3,"latitude":\#(latitude.map(degreesText) ?? "null"),"#
        + #""longitude":\#(longitude.map(degreesText) ?? "null"),"additionalDescription":"a red collar","#
        + #""contactPhone":"+48123456789","contactEmail":\#(text(email))}"#
}

/// Degrees × 100 000 as the flow writes them: exactly 5 decimals ("-0.00001", "52.22968").
func degreesText(_ scaled: Int) -> String {
    let magnitude = scaled.magnitude
    let fraction = String(magnitude % 100_000)
    return (scaled < 0 ? "-" : "") + "\(magnitude / 100_000)." + String(repeating: "0", count: 5 - fraction.count) + fraction
}

/// A photo with its public copy described.
let sampleBoardPhoto = StoredPhoto(mediaType: "image/jpeg", sha256: String(repeating: "1a", count: 32), data: Array(repeating: 0x5A, count: 3_000))
let sampleBoardPublicPhoto = PhotoDescription(mediaType: "image/jpeg", bytes: 2_800, sha256: String(repeating: "2b", count: 32))

extension ReportStore {
    /// The ids of the listed reports with a position in `boxes`, sorted.
    func placeIDs(in boxes: [ScaledBox], species: String? = nil) async throws -> [String] {
        let found = try await boardPlaces(in: boxes, species: species, limit: 100_000)
        precondition(found.complete)
        return found.places.map(\.id).sorted()
    }

    /// Every listed report, newest first.
    func newestIDs(species: String? = nil, position: BoardPositionFilter = .any) async throws -> [String] {
        try await boardNewestFirst(after: nil, species: species, position: position, limit: 100_000).map(\.id)
    }
}

/// Rows of the board and of its R*Tree, read past the store.
func boardRowCounts(path: String) async throws -> (board: Int, positions: Int) {
    try await withPlainConnection(path: path) { db in
        let board = try db.rows("SELECT COUNT(*) AS count FROM board").first?.column("count")?.integer ?? -1
        let positions = try db.rows("SELECT COUNT(*) AS count FROM board_position").first?.column("count")?.integer ?? -1
        return (board, positions)
    }
}

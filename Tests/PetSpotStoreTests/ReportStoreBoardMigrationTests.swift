import Foundation
import PetSpotSQLite
import Testing
@testable import PetSpotStore

/// A database of the release before the board: the upgrade puts every report not erased on
/// it, read from its values with SQLite's JSON functions, and leaves its photo to describe.
@Suite("The board made from an earlier release's reports")
struct ReportStoreBoardMigrationTests {
    /// petspotd's migration "v3-life" as the release before the board ran it, after "v2-delivery",
    /// with its upgrade time (`storeNow`) written in.
    static let version3 = [
        "BEGIN IMMEDIATE",
        """
        CREATE TABLE report_life (
            report_seq INTEGER PRIMARY KEY REFERENCES report(seq),
            status TEXT NOT NULL CHECK (status IN ('missing', 'found', 'withdrawn', 'expired')),
            version INTEGER NOT NULL CHECK (version >= 1),
            updated_at_ms INTEGER NOT NULL,
            expiry_base_ms INTEGER,
            erase_base_ms INTEGER,
            erased_at_ms INTEGER,
            CHECK ((expiry_base_ms IS NOT NULL) = (status = 'missing')),
            CHECK ((erase_base_ms IS NOT NULL) = (status <> 'missing' AND erased_at_ms IS NULL)),
            CHECK (erased_at_ms IS NULL OR status <> 'missing')
        )
        """,
        "CREATE INDEX report_life_expiry ON report_life(expiry_base_ms) WHERE expiry_base_ms IS NOT NULL",
        "CREATE INDEX report_life_erase ON report_life(erase_base_ms) WHERE erase_base_ms IS NOT NULL",
        "ALTER TABLE delivery ADD COLUMN delivered_version INTEGER NOT NULL DEFAULT 0 CHECK (delivered_version >= 0)",
        "ALTER TABLE delivery ADD COLUMN report_version INTEGER NOT NULL DEFAULT 1 CHECK (report_version >= 1)",
        "UPDATE delivery SET delivered_version = 1 WHERE delivered_at IS NOT NULL",
        "DROP INDEX delivery_pending",
        "CREATE INDEX delivery_pending_version ON delivery(report_seq) WHERE delivered_version < report_version",
        """
        INSERT INTO report_life (report_seq, status, version, updated_at_ms, expiry_base_ms)
        SELECT seq, 'missing', 1, coalesce(unixepoch(submitted_at) * 1000, 1796083200000), 1796083200000 FROM report
        """,
        "INSERT INTO grdb_migrations (identifier) VALUES ('v3-life')",
        "COMMIT",
    ]

    /// A report of the earlier release with these `values`, as its submit stored it.
    static func older(_ number: Int, values: String, photo: StoredPhoto? = nil) -> NewReport {
        NewReport(id: "report-\(number)", flowID: "flow-\(number)", ownerUID: 1000, submittedAt: "2026-11-21T12:00:00Z",
                  valuesJSON: values, photo: photo, board: .none)
    }

    struct Expected: Sendable {
        let latitude: Int?
        let longitude: Int?
        let chip: String?
        let species: String?
    }

    /// Values as the flow wrote them, and as anything else may have left them; what the board reads of each.
    static let reports: [(values: String, expected: Expected)] = [
        (#"{"chipNumber":"616093900012345","species":"dog","latitude":52.22968,"longitude":21.01223}"#,
         Expected(latitude: 5_222_968, longitude: 2_101_223, chip: "616093900012345", species: "dog")),
        (#"{"chipNumber":null,"species":"cat","latitude":-0.00001,"longitude":179.99999}"#,
         Expected(latitude: -1, longitude: 17_999_999, chip: nil, species: "cat")),
        (#"{"chipNumber":"","species":null,"latitude":-89.99999,"longitude":-180.00000}"#,
         Expected(latitude: -8_999_999, longitude: -18_000_000, chip: nil, species: nil)),
        (#"{"latitude":12.34565,"longitude":-0.00005,"species":"rabbit"}"#,
         Expected(latitude: 1_234_565, longitude: -5, chip: nil, species: "rabbit")),
        (#"{"latitude":90,"longitude":-180,"chipNumber":"1"}"#, Expected(latitude: 9_000_000, longitude: -18_000_000, chip: "1", species: nil)),
        (#"{"latitude":"52.1","longitude":21.0,"chipNumber":"616-093","species":5}"#,
         Expected(latitude: nil, longitude: nil, chip: nil, species: nil)),
        (#"{"latitude":95.0,"longitude":21.0}"#, Expected(latitude: nil, longitude: nil, chip: nil, species: nil)),
        (#"{"latitude":52.0,"longitude":null,"chipNumber":616093}"#, Expected(latitude: nil, longitude: nil, chip: nil, species: nil)),
        ("not json", Expected(latitude: nil, longitude: nil, chip: nil, species: nil)),
        ("[1,2]", Expected(latitude: nil, longitude: nil, chip: nil, species: nil)),
    ]

    /// Builds a database of the release before the board: reports 1...10 of `reports` (the
    /// first with a photo), then report 11 found and report 12 erased.
    static func makeVersion3(path: String) async throws {
        try await withPlainConnection(path: path) { db in
            for statement in ReportStoreEarlierReleaseTests.grdbVersion1 { _ = try db.rows(statement) }
            for (index, report) in reports.enumerated() {
                try await ReportStoreEarlierReleaseTests.insertAsGRDBDid(
                    older(index + 1, values: report.values, photo: index == 0 ? sampleBoardPhoto : nil), into: db)
            }
            try await ReportStoreEarlierReleaseTests.insertAsGRDBDid(older(11, values: reports[0].values), into: db)
            try await ReportStoreEarlierReleaseTests.insertAsGRDBDid(older(12, values: reports[0].values), into: db)
            for statement in ReportStoreEarlierReleaseTests.version2 + version3 { _ = try db.rows(statement) }
            _ = try db.rows("""
                UPDATE report_life SET status = 'found', version = 2, expiry_base_ms = NULL, erase_base_ms = updated_at_ms
                WHERE report_seq = 11
                """)
            _ = try db.rows("""
                UPDATE report_life SET status = 'withdrawn', version = 2, expiry_base_ms = NULL, erased_at_ms = updated_at_ms
                WHERE report_seq = 12
                """)
        }
    }

    @Test("every report not erased is on the board, its position, chip and species read from its values, or none when they do not read")
    func fillsBoard() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await Self.makeVersion3(path: path)
            try await withStore(path: path) { store in
                for (index, report) in Self.reports.enumerated() {
                    let entry = try #require(try await store.boardEntry(id: "report-\(index + 1)"))
                    let expected = report.expected
                    #expect(entry.latitude == expected.latitude && entry.longitude == expected.longitude, "\(report.values)")
                    #expect(entry.chipDigits == expected.chip, "\(report.values)")
                    #expect(entry.species == expected.species, "\(report.values)")
                    #expect(entry.valuesJSON == report.values)
                    #expect(entry.box == testBox && entry.isOwn && entry.status == .missing && entry.version == 1)
                    #expect(entry.submittedAt == "2026-11-21T12:00:00Z")
                    #expect(entry.updatedAt == Date(timeIntervalSince1970: 1_795_262_400))
                    #expect(entry.photo == (index == 0 ? sampleBoardPhoto.described : nil))
                    #expect(entry.publicPhoto == (index == 0 ? .notYetDescribed : .withheld))
                }
                #expect(try await store.boardEntry(id: "report-11")?.status == .found)
                #expect(try await store.boardEntry(id: "report-12") == nil)
                #expect(try await store.boardCount() == 10)
                #expect(try await store.placeIDs(in: [.world]) == ["report-1", "report-2", "report-3", "report-4", "report-5"])
                #expect(try await store.boardEntries(chipDigits: "616093900012345", limit: 10).map(\.id) == ["report-1"])
                // The board goes on from there.
                _ = try await store.submit(boardReport(13))
                #expect(try await store.boardCount() == 11)
            }
            #expect(try await ReportStoreEarlierReleaseTests.appliedMigrations(path: path)
                == ["v1", "v2-delivery", "v3-life", "v4-board", "v5-fleet"])
            #expect(try await boardRowCounts(path: path) == (board: 12, positions: 6))
        }
    }

    @Test("the upgrade's positions are the flow's: 5 decimals read as degrees × 100 000, exactly")
    func positionsAsTheFlowReadsThem() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            // Every 5-decimal value of some awkward ranges, and random ones.
            var scaled = Array(-200...200) + Array(8_999_800...9_000_000) + Array(-9_000_000 ... -8_999_800)
            scaled += (0..<2_000).map { _ in Int.random(in: -9_000_000...9_000_000) }
            try await withPlainConnection(path: path) { db in
                for statement in ReportStoreEarlierReleaseTests.grdbVersion1 { _ = try db.rows(statement) }
                _ = try db.rows("BEGIN")
                for (index, latitude) in scaled.enumerated() {
                    let values = boardValues(latitude: latitude, longitude: -latitude * 2, species: "dog", chip: nil)
                    try await ReportStoreEarlierReleaseTests.insertAsGRDBDid(Self.older(index, values: values), into: db)
                }
                _ = try db.rows("COMMIT")
            }
            try await withStore(path: path) { store in
                let entries = try await store.boardEntries(ids: scaled.indices.map { "report-\($0)" })
                #expect(entries.count == scaled.count)
                for entry in entries {
                    let index = try #require(Int(entry.id.dropFirst("report-".count)))
                    #expect(entry.latitude == scaled[index] && entry.longitude == -scaled[index] * 2, "\(entry.valuesJSON)")
                }
            }
        }
    }

    @Test("photos stored before the board are described by the daemon, once, and only while they are the photo stored")
    func describesPhotos() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let photos = (1...3).map { number in
                StoredPhoto(mediaType: "image/jpeg", sha256: String(repeating: "\(number)f", count: 32), data: Array(repeating: UInt8(number), count: 100))
            }
            try await withPlainConnection(path: path) { db in
                for statement in ReportStoreEarlierReleaseTests.grdbVersion1 { _ = try db.rows(statement) }
                for (index, photo) in photos.enumerated() {
                    try await ReportStoreEarlierReleaseTests.insertAsGRDBDid(Self.older(index + 1, values: "{}", photo: photo), into: db)
                }
                try await ReportStoreEarlierReleaseTests.insertAsGRDBDid(Self.older(4, values: "{}"), into: db)
            }
            try await withStore(path: path) { store in
                let toDescribe = try await store.boardEntriesToDescribe(limit: 10)
                #expect(toDescribe == photos.enumerated().map { UndescribedPhoto(reportID: "report-\($0.offset + 1)", photo: $0.element) })
                #expect(try await store.boardEntriesToDescribe(limit: 2).map(\.reportID) == ["report-1", "report-2"])

                let copy = PhotoDescription(mediaType: "image/jpeg", bytes: 90, sha256: String(repeating: "0e", count: 32))
                // Not the photo stored: nothing changes.
                #expect(try await !store.describePublicPhoto(id: "report-1", photoSHA256: photos[1].sha256, as: copy))
                #expect(try await store.describePublicPhoto(id: "report-1", photoSHA256: photos[0].sha256, as: copy))
                #expect(try await store.boardEntry(id: "report-1")?.publicPhoto == .cleaned(copy))
                // Described already.
                #expect(try await !store.describePublicPhoto(id: "report-1", photoSHA256: photos[0].sha256, as: nil))
                // One that cannot be cleaned.
                #expect(try await store.describePublicPhoto(id: "report-2", photoSHA256: photos[1].sha256, as: nil))
                #expect(try await store.boardEntry(id: "report-2")?.publicPhoto == .withheld)
                // Amended meanwhile: the amendment described its new photo.
                _ = try await store.amend(id: "report-3", ownerUID: 1000, valuesJSON: "{}", photo: .replace(sampleBoardPhoto),
                                          board: BoardFields(latitude: nil, longitude: nil, chipDigits: nil, species: nil,
                                                             publicPhoto: sampleBoardPublicPhoto), now: storeNow)
                #expect(try await !store.describePublicPhoto(id: "report-3", photoSHA256: photos[2].sha256, as: copy))
                #expect(try await store.boardEntry(id: "report-3")?.publicPhoto == .cleaned(sampleBoardPublicPhoto))
                #expect(try await store.boardEntriesToDescribe(limit: 10) == [])
                // No report, no photo: nothing to describe.
                #expect(try await !store.describePublicPhoto(id: "report-4", photoSHA256: photos[0].sha256, as: copy))
                #expect(try await !store.describePublicPhoto(id: "report-9", photoSHA256: photos[0].sha256, as: copy))
            }
        }
    }
}

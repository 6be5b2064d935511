import Foundation
import PetSpotSQLite
import Testing
@testable import PetSpotStore

/// Databases as the releases built on GRDB left them: their migrator recorded applied migrations
/// by name in `grdb_migrations`. The statements below are written out, not taken from
/// `ReportSchema`, so that they stay what those releases ran whatever the schema becomes.
@Suite("Databases of earlier releases")
struct ReportStoreEarlierReleaseTests {
    /// petspotd's migration "v1" as GRDB's DatabasePool and migrator ran it: WAL mode, the
    /// migrations table on its own, then the migration and its record in one transaction.
    static let grdbVersion1 = [
        "PRAGMA journal_mode = WAL",
        "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)",
        "BEGIN IMMEDIATE TRANSACTION",
        """
        CREATE TABLE report (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- AUTOINCREMENT: never reused, so it orders by insertion
            id TEXT NOT NULL UNIQUE,
            flow_id TEXT NOT NULL UNIQUE,
            owner_uid INTEGER NOT NULL CHECK (owner_uid BETWEEN 0 AND 4294967295),
            submitted_at TEXT NOT NULL,
            values_json TEXT NOT NULL,
            photo_media_type TEXT,
            photo_sha256 TEXT,
            photo_bytes INTEGER,
            photo BLOB,
            -- A photo is all four columns or none of them.
            CHECK ((photo IS NULL AND photo_media_type IS NULL AND photo_sha256 IS NULL AND photo_bytes IS NULL)
                OR (photo IS NOT NULL AND photo_media_type IS NOT NULL AND photo_sha256 IS NOT NULL
                    AND photo_bytes = length(photo)))
        )
        """,
        "CREATE INDEX report_owner_seq ON report(owner_uid, seq DESC)",
        "PRAGMA application_id = 1347637332",
        "INSERT INTO grdb_migrations (identifier) VALUES ('v1')",
        "COMMIT TRANSACTION",
    ]

    /// Inserts `report` as the GRDB releases' submit did.
    static func insertAsGRDBDid(_ report: NewReport, into db: SQLiteDatabase) async throws {
        _ = try db.rows("""
            INSERT INTO report (id, flow_id, owner_uid, submitted_at, values_json,
                                photo_media_type, photo_sha256, photo_bytes, photo)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [
                .text(report.id), .text(report.flowID), .integer(Int(report.ownerUID)), .text(report.submittedAt),
                .text(report.valuesJSON),
                report.photo.map { .text($0.mediaType) } ?? .null,
                report.photo.map { .text($0.sha256) } ?? .null,
                report.photo.map { .integer($0.data.count) } ?? .null,
                report.photo.map { .blob($0.data) } ?? .null,
            ])
    }

    /// A report a release before report lives stored, as it reads after the upgrade: `missing`,
    /// version 1, changed last at its submit, and expiring from the upgrade (`storeNow`), not
    /// from its submit.
    static func upgraded(_ report: NewReport) -> StoredReport {
        let submitted = SubmitTime.date(report.submittedAt)!
        return StoredReport(report, life: ReportLife(status: .missing, version: 1, updatedAt: submitted,
                                                     expiryBase: storeNow, eraseBase: nil, erasedAt: nil))
    }

    static func appliedMigrations(path: String) async throws -> [String?] {
        try await withPlainConnection(path: path) { db in
            try db.rows("SELECT identifier FROM grdb_migrations ORDER BY identifier").map { $0.column("identifier")?.string }
        }
    }

    @Test("a database a GRDB release made opens with its reports, takes new ones, and keeps its migration record")
    func opensGRDBDatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]))
            let older = [sampleReport(1, photo: samplePhoto), sampleReport(2), sampleReport(3, owner: 2000)]
            try await withPlainConnection(path: path) { db in
                for statement in Self.grdbVersion1 { _ = try db.rows(statement) }
                for report in older { try await Self.insertAsGRDBDid(report, into: db) }
            }

            try await withStore(path: path) { store async throws in
                #expect(try await store.count() == 3)
                #expect(try await store.get(id: "report-1", ownerUID: 1000) == Self.upgraded(older[0]))
                #expect(try await store.photo(reportID: "report-1", ownerUID: 1000) == samplePhoto)
                #expect(try await store.list(ownerUID: 1000, limit: 10, cursor: nil).reports
                    == [Self.upgraded(older[1]), Self.upgraded(older[0])])
                // The old flows are still known: a retried submit gets the stored report.
                let retry = try await store.submit(sampleReport(9, flowID: "flow-2"))
                #expect(!retry.inserted)
                #expect(retry.report == Self.upgraded(older[1]))
                let new = try await store.submit(sampleReport(4)).report
                #expect(try await store.list(ownerUID: 1000, limit: 1, cursor: nil).reports == [new])
                let settings = try await store.durabilitySettings()
                #expect(settings.journalMode == "wal")
                #expect(settings.synchronous == 2)
            }
            #expect(try await Self.appliedMigrations(path: path) == ["v1", "v2-delivery", "v3-life", "v4-board", "v5-fleet"])
        }
    }

    @Test("a version 1 database opens with every one of its reports pending delivery, oldest first")
    func version1ReportsArePending() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let older = [sampleReport(1, photo: samplePhoto), sampleReport(2), sampleReport(3, owner: 2000)]
            try await withPlainConnection(path: path) { db in
                for statement in Self.grdbVersion1 { _ = try db.rows(statement) }
                for report in older { try await Self.insertAsGRDBDid(report, into: db) }
            }

            try await withStore(path: path) { store async throws in
                #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 3, delivered: 0, lastDeliveredAt: nil))
                #expect(try await store.get(id: "report-3", ownerUID: 2000)?.delivery == .pending)
                let claimable = try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1 << 20)
                #expect(claimable.map(\.report.id) == ["report-1", "report-2", "report-3"])
                #expect(claimable.first?.photo == samplePhoto)
            }
            let rows = try await withPlainConnection(path: path) { db in
                try db.rows("SELECT report_seq, delivered_at FROM delivery ORDER BY report_seq")
                    .map { "\($0.column("report_seq")?.integer ?? -1) \($0.column("delivered_at")?.string ?? "NULL")" }
            }
            #expect(rows == ["1 NULL", "2 NULL", "3 NULL"])
        }
    }

    @Test("a new database records its migrations as the GRDB releases did, so they can open it too")
    func recordsMigrationsAsGRDBDid() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            try await withStore(path: path) { store in _ = try await store.submit(sampleReport(1)) }

            let header = try await withPlainConnection(path: path) { db in
                (applicationID: try db.rows("PRAGMA application_id").first?.column("application_id")?.integer,
                 table: try db.rows("SELECT sql FROM sqlite_master WHERE name = 'grdb_migrations'").first?
                    .column("sql")?.string)
            }
            #expect(header.applicationID == 0x5053_5054)
            #expect(header.table == "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
            #expect(try await Self.appliedMigrations(path: path) == ["v1", "v2-delivery", "v3-life", "v4-board", "v5-fleet"])
        }
    }

    @Test("a file whose first start stopped before its first migration committed opens as a new database")
    func opensInterruptedFirstStart() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            // A GRDB release made the migrations table outside the migration's transaction.
            try await withPlainConnection(path: path) { db in
                for statement in Self.grdbVersion1.prefix(2) { _ = try db.rows(statement) }
            }

            try await withStore(path: path) { store async throws in
                #expect(try await store.count() == 0)
                #expect(try await store.submit(sampleReport(1)).inserted)
            }
            #expect(try await Self.appliedMigrations(path: path) == ["v1", "v2-delivery", "v3-life", "v4-board", "v5-fleet"])
        }
    }

    /// petspotd's migration "v2-delivery" as the releases before report lives ran it, after "v1".
    static let version2 = [
        "BEGIN IMMEDIATE",
        """
        CREATE TABLE delivery (
            report_seq INTEGER PRIMARY KEY REFERENCES report(seq),
            delivered_at TEXT  -- NULL: pending; else ISO 8601 UTC, as report.submitted_at
        )
        """,
        "CREATE INDEX delivery_pending ON delivery(report_seq) WHERE delivered_at IS NULL",
        "INSERT INTO delivery (report_seq, delivered_at) SELECT seq, NULL FROM report",
        "INSERT INTO grdb_migrations (identifier) VALUES ('v2-delivery')",
        "COMMIT",
    ]

    @Test("reports stored before report lives count from the upgrade: none expires at once, all do expireAfter later")
    func olderReportsCountFromUpgrade() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            // Submitted years before the upgrade: counted from their submit, all would be long overdue.
            let older = (1...3).map { sampleReport($0, submittedAt: "2020-0\($0)-01T08:00:00Z", photo: $0 == 1 ? samplePhoto : nil) }
            try await withPlainConnection(path: path) { db in
                for statement in Self.grdbVersion1 { _ = try db.rows(statement) }
                for report in older { try await Self.insertAsGRDBDid(report, into: db) }
            }

            let expireAfter = Duration.seconds(90 * 86_400)
            try await withStore(path: path) { store async throws in
                let read = try await store.reports(ids: older.map(\.id)).sorted { $0.id < $1.id }
                #expect(read == older.map(Self.upgraded))
                #expect(read.allSatisfy { $0.life.expiresAt(after: expireAfter) == storeNow.addingTimeInterval(90 * 86_400) })
                #expect(try await store.nextDue(expireAfter: expireAfter, eraseAfter: .zero) == storeNow.addingTimeInterval(90 * 86_400))
                #expect(try await store.expireByRetention(now: storeNow.addingTimeInterval(90 * 86_400 - 0.001),
                                                          expireAfter: expireAfter, maxReports: 100).isEmpty)
                #expect(try await store.expireByRetention(now: storeNow.addingTimeInterval(90 * 86_400),
                                                          expireAfter: expireAfter, maxReports: 100).map(\.id)
                    == ["report-1", "report-2", "report-3"])
            }
            // Opened again later, the bases stay those of the upgrade.
            try await withStore(path: path) { store async throws in
                #expect(try await store.get(id: "report-1", ownerUID: 1000)?.life.eraseBase == storeNow.addingTimeInterval(90 * 86_400))
            }
            #expect(try await Self.appliedMigrations(path: path) == ["v1", "v2-delivery", "v3-life", "v4-board", "v5-fleet"])
        }
    }

    @Test("a version 2 database keeps its deliveries: delivered reports have version 1 delivered, the others pending")
    func version2DeliveriesKept() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("reports.sqlite").path
            let older = (1...3).map { sampleReport($0) }
            try await withPlainConnection(path: path) { db in
                for statement in Self.grdbVersion1 { _ = try db.rows(statement) }
                for report in older { try await Self.insertAsGRDBDid(report, into: db) }
                for statement in Self.version2 { _ = try db.rows(statement) }
                _ = try db.rows("UPDATE delivery SET delivered_at = '2026-11-23T10:00:00Z' WHERE report_seq = 2")
            }

            try await withStore(path: path) { store async throws in
                #expect(try await store.deliveryCounts() == DeliveryCounts(pending: 2, delivered: 1, lastDeliveredAt: "2026-11-23T10:00:00Z"))
                let delivered = try await store.get(id: "report-2", ownerUID: 1000)
                #expect(delivered?.delivery == .delivered(at: "2026-11-23T10:00:00Z"))
                #expect(delivered?.deliveredVersion == 1)
                #expect(try await store.claimable(excluding: [], maxReports: 10, maxPhotoBytes: 1).map(\.report.id)
                    == ["report-1", "report-3"])
                // A change to the delivered one makes it pending again.
                _ = try await store.close(id: "report-2", ownerUID: 1000, outcome: .found, now: storeNow)
                #expect(try await store.deliveryCounts().pending == 3)
            }
            #expect(try await Self.appliedMigrations(path: path) == ["v1", "v2-delivery", "v3-life", "v4-board", "v5-fleet"])
        }
    }
}

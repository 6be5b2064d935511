import FoundationEssentials
import SQLiteNIO

/// The layout of the report database: its migrations, and the mark that tells a petspotd database
/// apart from any other SQLite file.
///
/// Applied migrations are recorded by name in `grdb_migrations`, the table and the names the
/// first releases wrote through GRDB's migrator: a database from any release opens in any other
/// that knows all of its migrations, and is refused by one that does not.
enum ReportSchema {
    /// Stored in the SQLite header (`PRAGMA application_id`) by the first migration: "PSPT".
    static let applicationID: Int32 = 0x5053_5054

    /// One step of the layout, known by its name once applied.
    struct Migration: Sendable {
        let identifier: String
        /// Run in order, one statement each: SQLiteNIO runs only the first statement of a string.
        let statements: [String]
        /// Run after `statements`, each with the time of the upgrade bound as `?1` (milliseconds
        /// since 1970, the daemon's wall time handed to the store): what rows stored before the
        /// migration count from.
        var statementsAtUpgradeTime: [String] = []
    }

    /// Where applied migrations are recorded; the name and layout are GRDB's, kept for the
    /// databases that releases built on GRDB created.
    static let migrationsTable = "grdb_migrations"

    /// Every migration this binary knows, oldest first. Never edit one: databases in the field
    /// have already run it. Add a new one instead.
    static let migrations: [Migration] = [
        Migration(identifier: "v1", statements: [
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
            // PRAGMA takes no bound parameters; the value is this type's constant.
            "PRAGMA application_id = \(applicationID)",
        ]),
        // Reports a relay has taken to the central database: one row per report, written with it.
        Migration(identifier: "v2-delivery", statements: [
            """
            CREATE TABLE delivery (
                report_seq INTEGER PRIMARY KEY REFERENCES report(seq),
                delivered_at TEXT  -- NULL: pending; else ISO 8601 UTC, as report.submitted_at
            )
            """,
            // A relay looks for the pending ones, oldest first: few among many delivered.
            "CREATE INDEX delivery_pending ON delivery(report_seq) WHERE delivered_at IS NULL",
            "INSERT INTO delivery (report_seq, delivered_at) SELECT seq, NULL FROM report",
        ]),
        // A report's life after submit (ReportLife): its status and version, and the bases its
        // retention deadlines are counted from (a deadline is a base plus a reloadable setting,
        // so it is never stored). A table of its own, not columns of `report`: a column added
        // there lands after the photo in the row, and every change would rewrite the photo.
        Migration(identifier: "v3-life", statements: [
            """
            CREATE TABLE report_life (
                report_seq INTEGER PRIMARY KEY REFERENCES report(seq),
                status TEXT NOT NULL CHECK (status IN ('missing', 'found', 'withdrawn', 'expired')),
                version INTEGER NOT NULL CHECK (version >= 1),
                -- Times in milliseconds since 1970, UTC: a base plus decimal days adds exactly.
                updated_at_ms INTEGER NOT NULL,
                expiry_base_ms INTEGER,  -- became or was renewed missing: only while missing
                erase_base_ms INTEGER,   -- became found, withdrawn or expired: until erased
                erased_at_ms INTEGER,    -- its personal data erased
                CHECK ((expiry_base_ms IS NOT NULL) = (status = 'missing')),
                CHECK ((erase_base_ms IS NOT NULL) = (status <> 'missing' AND erased_at_ms IS NULL)),
                CHECK (erased_at_ms IS NULL OR status <> 'missing')
            )
            """,
            // Retention's two sweeps and the earliest deadline: each reads its base's index in order.
            "CREATE INDEX report_life_expiry ON report_life(expiry_base_ms) WHERE expiry_base_ms IS NOT NULL",
            "CREATE INDEX report_life_erase ON report_life(erase_base_ms) WHERE erase_base_ms IS NOT NULL",
            // Delivery by version: the version a relay last acknowledged, beside the report's
            // own (written with every change), so that the pending ones are one index.
            "ALTER TABLE delivery ADD COLUMN delivered_version INTEGER NOT NULL DEFAULT 0 CHECK (delivered_version >= 0)",
            "ALTER TABLE delivery ADD COLUMN report_version INTEGER NOT NULL DEFAULT 1 CHECK (report_version >= 1)",
            "UPDATE delivery SET delivered_version = 1 WHERE delivered_at IS NOT NULL",
            "DROP INDEX delivery_pending",
            "CREATE INDEX delivery_pending_version ON delivery(report_seq) WHERE delivered_version < report_version",
        ], statementsAtUpgradeTime: [
            // Reports stored before count from the upgrade, not from their submit: an upgrade
            // must not expire a box's history at once.
            """
            INSERT INTO report_life (report_seq, status, version, updated_at_ms, expiry_base_ms)
            SELECT seq, 'missing', 1, coalesce(unixepoch(submitted_at) * 1000, ?1), ?1 FROM report
            """,
        ]),
    ]

    /// What the file's header and catalog say, read without writing anything.
    struct Facts: Sendable {
        var applicationID: Int32
        var userTables: [String]
        /// Empty when the file has no migrations table.
        var appliedMigrations: Set<String>
    }

    static func facts(of db: DatabaseConnection) async throws -> Facts {
        let applicationID = try await db.row("PRAGMA application_id")?.integer("application_id") ?? 0
        let userTables = try await db.rows(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        ).map { try $0.text("name") }
        var applied: Set<String> = []
        // Only a petspotd database's record counts: another application may have a table of that name.
        if applicationID == Self.applicationID, userTables.contains(migrationsTable) {
            applied = Set(try await db.rows("SELECT identifier FROM \(migrationsTable)").map { try $0.text("identifier") })
        }
        return Facts(applicationID: Int32(truncatingIfNeeded: applicationID), userTables: userTables,
                     appliedMigrations: applied)
    }

    /// Refuses a file that petspotd must not migrate: one that belongs to another application,
    /// or was migrated by a newer petspotd. A file with an empty schema is a new database and passes.
    static func checkCanMigrate(_ facts: Facts, path: String) throws(ReportStoreError) {
        switch facts.applicationID {
        case Self.applicationID:
            let known = migrations.map(\.identifier)
            let unknown = facts.appliedMigrations.subtracting(known).sorted()
            if !unknown.isEmpty {
                throw ReportStoreError(
                    kind: .schemaTooNew, path: path,
                    message: "schema is newer than this petspotd knows (unknown migrations: "
                        + "\(unknown.joined(separator: ", ")); known: \(known.joined(separator: ", "))); "
                        + "upgrade petspotd")
            }
        case 0 where facts.userTables.allSatisfy({ $0 == migrationsTable }):
            // A new database; or one whose first start stopped between making the migrations
            // table and committing the first migration (GRDB made the table on its own).
            break
        case 0:
            throw ReportStoreError(
                kind: .notADatabase, path: path,
                message: "not a petspotd database (it holds tables of another application: "
                    + "\(facts.userTables.prefix(5).joined(separator: ", ")))")
        default:
            throw ReportStoreError(
                kind: .notADatabase, path: path,
                message: "not a petspotd database (its application_id is \(facts.applicationID), "
                    + "petspotd's is \(Self.applicationID))")
        }
    }

    /// Runs the migrations the database has not had, in one transaction: all of them or none.
    /// The facts are read again inside it, so another process cannot migrate between the look
    /// and the change. `now` is the time of the upgrade.
    static func migrate(_ db: DatabaseConnection, path: String, now: Date) async throws {
        try await db.inTransaction {
            let facts = try await facts(of: db)
            try checkCanMigrate(facts, path: path)
            let pending = migrations.filter { !facts.appliedMigrations.contains($0.identifier) }
            guard !pending.isEmpty else { return }
            // GRDB's statement, so the table is the one its migrator made.
            try await db.execute("CREATE TABLE IF NOT EXISTS \(migrationsTable) (identifier TEXT NOT NULL PRIMARY KEY)")
            for migration in pending {
                for statement in migration.statements { try await db.execute(statement) }
                for statement in migration.statementsAtUpgradeTime {
                    try await db.execute(statement, [.integer(Int(now.milliseconds))])
                }
                try await db.execute("INSERT INTO \(migrationsTable) (identifier) VALUES (?)", [.text(migration.identifier)])
            }
        }
    }
}

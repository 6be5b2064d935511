import GRDB

/// The layout of the report database: its migrations, and the mark that tells a petspotd database
/// apart from any other SQLite file.
enum ReportSchema {
    /// Stored in the SQLite header (`PRAGMA application_id`) by the first migration: "PSPT".
    static let applicationID: Int32 = 0x5053_5054

    /// Every schema version this binary knows, oldest first. Never edit a registered migration:
    /// databases in the field have already run it. Add a new one instead.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
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
                );
                CREATE INDEX report_owner_seq ON report(owner_uid, seq DESC);
                PRAGMA application_id = \(applicationID);
                """)
        }
        return migrator
    }()

    /// Refuses, without writing anything, a file that petspotd must not migrate: one that is not
    /// SQLite, belongs to another application, or was migrated by a newer petspotd.
    /// An empty file (or one with an empty schema) is a new database and passes.
    ///
    /// This runs on a plain connection before the pool opens, because opening the pool already
    /// writes (it switches the file to WAL mode).
    static func checkCanMigrate(path: String, configuration: Configuration) throws(ReportStoreError) {
        let facts: (applicationID: Int32, userTables: [String], appliedMigrations: Set<String>)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            facts = try queue.read { db in
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let userTables = try String.fetchAll(db, sql: """
                    SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name
                    """)
                let applied = applicationID == Self.applicationID ? try migrator.appliedIdentifiers(db) : []
                return (applicationID, userTables, applied)
            }
        } catch {
            throw ReportStoreError(wrapping: error, path: path, action: "cannot open", fallback: .open)
        }

        switch facts.applicationID {
        case Self.applicationID:
            let unknown = facts.appliedMigrations.subtracting(migrator.migrations).sorted()
            if !unknown.isEmpty {
                throw ReportStoreError(
                    kind: .schemaTooNew, path: path,
                    message: "schema is newer than this petspotd knows (unknown migrations: "
                        + "\(unknown.joined(separator: ", ")); known: \(migrator.migrations.joined(separator: ", "))); "
                        + "upgrade petspotd")
            }
        case 0 where facts.userTables.isEmpty:
            break  // A new database.
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
}

import FoundationEssentials
import PetSpotSQLite

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
        /// Run in order, one statement each: `SQLiteDatabase` refuses a string of two.
        let statements: [String]
        /// Run after `statements`, each with the time of the upgrade bound as `?1` (milliseconds
        /// since 1970, the daemon's wall time handed to the store): what rows stored before the
        /// migration count from.
        var statementsAtUpgradeTime: [String] = []
        /// Run last, each with the daemon's box name bound as `?1`: what the reports stored before
        /// the migration were filed under.
        var statementsWithBoxName: [String] = []
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
        // The animal list (REPORTS.md): one row per report the list may show, the box's own and,
        // later, other boxes' (brought down by the relay: no `report` row, no owner), with what
        // the list is searched by beside a copy of its values. Erasure deletes the row.
        Migration(identifier: "v4-board", statements: [
            """
            CREATE TABLE board (
                seq INTEGER PRIMARY KEY,  -- the R*Tree's id
                report_seq INTEGER REFERENCES report(seq),  -- the box's own report; NULL: another box's
                id TEXT NOT NULL,
                box TEXT NOT NULL,  -- the box.name of the box it was filed at
                status TEXT NOT NULL CHECK (status IN ('missing', 'found', 'withdrawn', 'expired')),
                version INTEGER NOT NULL CHECK (version >= 1),
                submitted_at TEXT NOT NULL,  -- as report.submitted_at: text order is time order
                updated_at_ms INTEGER NOT NULL,
                -- The last-seen position in degrees × 100 000 (5 decimals, as the flow keeps it).
                latitude INTEGER CHECK (latitude BETWEEN -9000000 AND 9000000),
                longitude INTEGER CHECK (longitude BETWEEN -18000000 AND 18000000),
                chip_digits TEXT CHECK (chip_digits <> ''),  -- ASCII digits, as chip lookups are keyed
                species TEXT,
                -- The photo as stored, described.
                photo_media_type TEXT,
                photo_bytes INTEGER,
                photo_sha256 TEXT,
                -- Its metadata-free copy for the public: 'cleaned' and described, 'withheld' (no
                -- photo, or one that cannot be cleaned), or 'undescribed' (stored before the board:
                -- the daemon describes it, `describePublicPhoto`).
                public_photo TEXT NOT NULL CHECK (public_photo IN ('cleaned', 'withheld', 'undescribed')),
                public_photo_media_type TEXT,
                public_photo_bytes INTEGER,
                public_photo_sha256 TEXT,
                values_json TEXT NOT NULL,  -- last: the columns searched by are read without it
                CHECK ((latitude IS NULL) = (longitude IS NULL)),
                CHECK ((photo_sha256 IS NULL) = (photo_media_type IS NULL) AND (photo_sha256 IS NULL) = (photo_bytes IS NULL)),
                CHECK ((public_photo = 'cleaned') = (public_photo_sha256 IS NOT NULL)
                    AND (public_photo_sha256 IS NULL) = (public_photo_media_type IS NULL)
                    AND (public_photo_sha256 IS NULL) = (public_photo_bytes IS NULL)),
                CHECK (public_photo = 'withheld' OR photo_sha256 IS NOT NULL)
            )
            """,
            // The positions of the reports listed (missing, with a position), exactly: 32-bit
            // integers of degrees × 100 000 (an `rtree` of 32-bit floats would round them).
            "CREATE VIRTUAL TABLE board_position USING rtree_i32(seq, min_latitude, max_latitude, min_longitude, max_longitude)",
            // Kept in step with `board` by the triggers, in the statement that changes the row.
            """
            CREATE TRIGGER board_position_insert AFTER INSERT ON board
            WHEN new.status = 'missing' AND new.latitude IS NOT NULL
            BEGIN
                INSERT INTO board_position VALUES (new.seq, new.latitude, new.latitude, new.longitude, new.longitude);
            END
            """,
            """
            CREATE TRIGGER board_position_update AFTER UPDATE OF status, latitude, longitude ON board
            WHEN old.status IS NOT new.status OR old.latitude IS NOT new.latitude OR old.longitude IS NOT new.longitude
            BEGIN
                DELETE FROM board_position WHERE seq = old.seq;
                INSERT INTO board_position SELECT new.seq, new.latitude, new.latitude, new.longitude, new.longitude
                WHERE new.status = 'missing' AND new.latitude IS NOT NULL;
            END
            """,
            """
            CREATE TRIGGER board_position_delete AFTER DELETE ON board
            BEGIN
                DELETE FROM board_position WHERE seq = old.seq;
            END
            """,
            // The list newest first (AnimalOrderKey without an origin: submitted_at descending,
            // then id), by species, and the reports without a position, which follow the others
            // nearest first. Read backwards: a new report goes at the end, where SQLite appends
            // to a b-tree most cheaply.
            "CREATE INDEX board_newest ON board(submitted_at, id DESC) WHERE status = 'missing'",
            "CREATE INDEX board_species_newest ON board(species, submitted_at, id DESC) WHERE status = 'missing'",
            "CREATE INDEX board_unplaced_newest ON board(submitted_at, id DESC) WHERE status = 'missing' AND latitude IS NULL",
            "CREATE INDEX board_chip ON board(chip_digits) WHERE status = 'missing' AND chip_digits IS NOT NULL",
            // A report is found by its id through `report` when it is the box's own, through the
            // second index when another box's: no index of every id, which a submit would write
            // at a random place (ids are random) besides the report's own.
            "CREATE UNIQUE INDEX board_own ON board(report_seq) WHERE report_seq IS NOT NULL",
            // Another box's report is held once per box it was filed at.
            "CREATE UNIQUE INDEX board_other_box ON board(id, box) WHERE report_seq IS NULL",
            // Photos stored before the board, still to be described: few, and none once done.
            "CREATE INDEX board_undescribed ON board(seq) WHERE public_photo = 'undescribed'",
        ], statementsWithBoxName: [
            // Every report not erased, its position, chip and species read from its values as
            // the flow stored them (a value that does not read as one leaves the column NULL:
            // the upgrade never fails for what a report holds).
            """
            INSERT INTO board (report_seq, id, box, status, version, submitted_at, updated_at_ms, latitude, longitude,
                               chip_digits, species, photo_media_type, photo_bytes, photo_sha256, public_photo, values_json)
            SELECT seq, id, ?1, status, version, submitted_at, updated_at_ms,
                   CASE WHEN has_position THEN CAST(round(lat * 100000) AS INTEGER) END,
                   CASE WHEN has_position THEN CAST(round(lon * 100000) AS INTEGER) END,
                   CASE WHEN chip_type = 'text' AND chip <> '' AND chip NOT GLOB '*[^0-9]*' THEN chip END,
                   CASE WHEN species_type = 'text' THEN species END,
                   photo_media_type, photo_bytes, photo_sha256,
                   CASE WHEN photo_sha256 IS NULL THEN 'withheld' ELSE 'undescribed' END,
                   values_json
            FROM (
                SELECT *,
                       lat_type IN ('integer', 'real') AND lon_type IN ('integer', 'real')
                           AND abs(lat) <= 90 AND abs(lon) <= 180 AS has_position
                FROM (
                    SELECT report.seq, id, status, version, submitted_at, updated_at_ms, photo_media_type, photo_bytes,
                           photo_sha256, values_json,
                           json_type(values_json, '$.latitude') AS lat_type, json_extract(values_json, '$.latitude') AS lat,
                           json_type(values_json, '$.longitude') AS lon_type, json_extract(values_json, '$.longitude') AS lon,
                           json_type(values_json, '$.chipNumber') AS chip_type, json_extract(values_json, '$.chipNumber') AS chip,
                           json_type(values_json, '$.species') AS species_type, json_extract(values_json, '$.species') AS species
                    FROM report JOIN report_life ON report_life.report_seq = report.seq
                    WHERE erased_at_ms IS NULL AND CASE WHEN json_valid(values_json) THEN json_type(values_json) = 'object' ELSE 0 END
                )
            )
            """,
            // A report whose values are not a JSON object is listed as it is, found by nothing.
            """
            INSERT INTO board (report_seq, id, box, status, version, submitted_at, updated_at_ms, photo_media_type,
                               photo_bytes, photo_sha256, public_photo, values_json)
            SELECT report.seq, id, ?1, status, version, submitted_at, updated_at_ms, photo_media_type, photo_bytes,
                   photo_sha256, CASE WHEN photo_sha256 IS NULL THEN 'withheld' ELSE 'undescribed' END, values_json
            FROM report JOIN report_life ON report_life.report_seq = report.seq
            WHERE erased_at_ms IS NULL AND NOT CASE WHEN json_valid(values_json) THEN json_type(values_json) = 'object' ELSE 0 END
            """,
        ]),
        // The fleet's list (REPORTS.md): other boxes' reports brought down by the relay are board
        // rows without a `report` row (no owner here, never claimed, pending or sent back up);
        // their photos are kept here, and the central feed position the copy is complete up to.
        Migration(identifier: "v5-fleet", statements: [
            """
            CREATE TABLE fleet_photo (
                board_seq INTEGER PRIMARY KEY,  -- the board row of another box's report
                photo BLOB NOT NULL
            )
            """,
            """
            CREATE TABLE fleet_cursor (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                position INTEGER NOT NULL CHECK (position >= 0)
            )
            """,
            // What goes first past board.maxFleetReports: without a position to measure from,
            // the oldest; and what counts against it.
            "CREATE INDEX board_fleet_oldest ON board(submitted_at, id) WHERE report_seq IS NULL",
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
    /// and the change. `now` is the time of the upgrade, `box` the daemon's box name.
    static func migrate(_ db: DatabaseConnection, path: String, now: Date, box: String) async throws {
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
                for statement in migration.statementsWithBoxName {
                    try await db.execute(statement, [.text(box)])
                }
                try await db.execute("INSERT INTO \(migrationsTable) (identifier) VALUES (?)", [.text(migration.identifier)])
            }
        }
    }
}

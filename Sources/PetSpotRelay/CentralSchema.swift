/// The central database's tables, as numbered migrations. The relay applies the missing ones
/// on connect, in one transaction under an advisory lock, so that relays starting together
/// neither race to create a table nor apply a step twice.
///
/// A fleet is upgraded box by box, so relays that know fewer steps keep writing to a database
/// that a newer relay migrated, as long as the steps they do not know leave their statements
/// working: each step says the oldest schema its writers may know (`compatibleWith`).
/// `petspot_relay_schema`, which every relay has read since the first release, holds those
/// minimums: a relay refuses the database only when its highest row is above the steps it
/// knows. Each step applied is recorded in `petspot_relay_migrations`.
public enum CentralSchema {
    /// pg_advisory_xact_lock's key for the migration: "petspot" in ASCII, read as a number.
    public static let migrationLockKey: Int64 = 0x7065_7473_706F_74

    /// The oldest schema a relay may know and still write: its highest row. A relay of the first
    /// release reads it as the schema's version and refuses a database whose number is above 1,
    /// so only a step its statements cannot live with raises it.
    static let versionTable = "petspot_relay_schema"

    /// Every step applied, with the oldest schema its writers may know.
    static let migrationsTable = "petspot_relay_migrations"

    /// One step of the schema.
    struct Migration: Sendable {
        /// Relays that know this many steps or more write correctly once it is applied.
        let compatibleWith: Int
        let statements: [String]
    }

    /// Migration n (1-based) is `migrations[n - 1]`. Never edit a released step: add one.
    static let migrations: [Migration] = [
        Migration(compatibleWith: 1, statements: [
            """
            CREATE TABLE reports (
                id text PRIMARY KEY,
                box text NOT NULL,
                submitted_at timestamptz NOT NULL,
                report jsonb NOT NULL,
                photo bytea,
                photo_media_type text,
                received_at timestamptz NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX reports_box_submitted_at ON reports (box, submitted_at)",
        ]),
        // A report's life: its status, version, last change and, once erased, when this row lost
        // its personal data. Relays of step 1 go on inserting without naming these columns
        // (INSERT … ON CONFLICT (id) DO NOTHING): the trigger fills them from the report they
        // store, which carries the same members from a daemon of protocol revision 4 on, and
        // means a report of version 1, missing, from an older one. So they may keep writing.
        Migration(compatibleWith: 1, statements: [
            """
            ALTER TABLE reports
                ADD COLUMN status text,
                ADD COLUMN version bigint,
                ADD COLUMN updated_at timestamptz,
                ADD COLUMN erased_at timestamptz
            """,
            """
            CREATE FUNCTION reports_life_from_report() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.version IS NULL THEN
                    NEW.status := coalesce(NEW.report->>'status', 'missing');
                    NEW.version := CASE WHEN jsonb_typeof(NEW.report->'version') = 'number' AND NEW.report->>'version' ~ '^[0-9]{1,18}$'
                                        THEN (NEW.report->>'version')::bigint ELSE 1 END;
                    NEW.updated_at := CASE WHEN NEW.report->>'updatedAt' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$'
                                           THEN (NEW.report->>'updatedAt')::timestamptz ELSE NEW.submitted_at END;
                    NEW.erased_at := CASE WHEN NEW.report->'erased' = 'true'::jsonb THEN now() END;
                END IF;
                RETURN NEW;
            END
            $$
            """,
            """
            CREATE TRIGGER reports_life_from_report BEFORE INSERT ON reports
                FOR EACH ROW EXECUTE FUNCTION reports_life_from_report()
            """,
            // The rows already there, as the trigger would have filled them.
            """
            UPDATE reports SET
                status = coalesce(report->>'status', 'missing'),
                version = CASE WHEN jsonb_typeof(report->'version') = 'number' AND report->>'version' ~ '^[0-9]{1,18}$'
                               THEN (report->>'version')::bigint ELSE 1 END,
                updated_at = CASE WHEN report->>'updatedAt' ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?Z$'
                                  THEN (report->>'updatedAt')::timestamptz ELSE submitted_at END,
                erased_at = CASE WHEN report->'erased' = 'true'::jsonb THEN now() END
            """,
            """
            ALTER TABLE reports
                ALTER COLUMN status SET NOT NULL,
                ALTER COLUMN version SET NOT NULL,
                ALTER COLUMN updated_at SET NOT NULL
            """,
        ]),
        // The fleet's feed: every row written (inserted, or updated to a newer version) takes
        // the next feed position, and every box's relay brings the other boxes' rows down from
        // its cursor on. A sequence would not do: numbers are taken in one order and committed
        // in another, so a reader could pass a number that commits later. The counter is one
        // row, updated in the writing transaction: its row lock is held until the commit, so
        // positions commit in the order they are taken, and one rolled back is taken again.
        // NOTIFY (delivered at the commit, once per transaction and payload) only wakes the
        // relays; the cursor says what they have. Relays of steps 1 and 2 go on writing: the
        // trigger numbers their rows too, with its owner's right to the counter (SECURITY
        // DEFINER), so no writer's role needs a grant it did not have.
        Migration(compatibleWith: 1, statements: [
            """
            CREATE TABLE petspot_fleet_feed (
                singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
                position bigint NOT NULL
            )
            """,
            "ALTER TABLE reports ADD COLUMN feed_position bigint",
            // The rows already there, in the order they came; the counter after them.
            """
            UPDATE reports SET feed_position = numbered.position
            FROM (SELECT id, row_number() OVER (ORDER BY received_at, id) AS position FROM reports) AS numbered
            WHERE reports.id = numbered.id
            """,
            "INSERT INTO petspot_fleet_feed (position) SELECT coalesce(max(feed_position), 0) FROM reports",
            "ALTER TABLE reports ALTER COLUMN feed_position SET NOT NULL",
            "CREATE UNIQUE INDEX reports_feed_position ON reports (feed_position)",
            """
            CREATE FUNCTION reports_feed_position() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path FROM CURRENT AS $$
            BEGIN
                UPDATE petspot_fleet_feed SET position = position + 1 RETURNING position INTO NEW.feed_position;
                PERFORM pg_notify('\(fleetChannel)', '');
                RETURN NEW;
            END
            $$
            """,
            // After reports_life_from_report (triggers fire in name order), on every insert and
            // on an update that changes the row (the upsert's update runs only for a newer version).
            """
            CREATE TRIGGER reports_zz_feed_position BEFORE INSERT OR UPDATE ON reports
                FOR EACH ROW EXECUTE FUNCTION reports_feed_position()
            """,
        ]),
    ]

    /// The channel every central write notifies (LISTEN petspot_fleet): it carries no
    /// payload; a relay that hears it reads the feed from its cursor.
    public static let fleetChannel = "petspot_fleet"

    /// The steps this relay knows.
    public static var currentVersion: Int { migrations.count }
}

/// The central database's tables, as numbered migrations. The relay applies the missing ones
/// on connect, in one transaction under an advisory lock, so that relays starting together
/// neither race to create a table nor apply a step twice.
public enum CentralSchema {
    /// pg_advisory_xact_lock's key for the migration: "petspot" in ASCII, read as a number.
    public static let migrationLockKey: Int64 = 0x7065_7473_706F_74

    /// The version table; its highest row is the schema's version.
    static let versionTable = "petspot_relay_schema"

    /// Migration n (1-based) is `migrations[n - 1]`. Never edit a released step: add one.
    static let migrations: [[String]] = [
        [
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
        ],
    ]

    public static var currentVersion: Int { migrations.count }
}

import PetSpotJSON

/// The central side of petspot-relay as released before report lives (schema 1), statement for
/// statement as its CentralDatabase.swift ran them (git show c49f061:Sources/PetSpotRelay/CentralDatabase.swift),
/// here through psql: a box of a fleet not yet upgraded, writing to the same database.
struct ReleasedRelay {
    let server: PostgresServer

    /// The steps it knows.
    static let schemaVersion = 1

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    /// Its connect: the version table made if missing, the check that refuses a newer schema,
    /// and step 1 when the database has nothing yet (the released relay ran them in one
    /// transaction under the migration's advisory lock; one test is alone here).
    func connect() throws {
        try server.psql("CREATE TABLE IF NOT EXISTS petspot_relay_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
        let stored = Int(try server.psql("SELECT coalesce(max(version), 0) FROM petspot_relay_schema")) ?? -1
        guard stored <= Self.schemaVersion else {
            throw Refused(description: "the central schema is at version \(stored), newer than this relay knows (\(Self.schemaVersion)); upgrade the relay")
        }
        guard stored < Self.schemaVersion else { return }
        try server.psql("""
            BEGIN;
            CREATE TABLE reports (
                id text PRIMARY KEY,
                box text NOT NULL,
                submitted_at timestamptz NOT NULL,
                report jsonb NOT NULL,
                photo bytea,
                photo_media_type text,
                received_at timestamptz NOT NULL DEFAULT now()
            );
            CREATE INDEX reports_box_submitted_at ON reports (box, submitted_at);
            INSERT INTO petspot_relay_schema (version) VALUES (1);
            COMMIT
            """)
    }

    /// Its write of a one-report batch (parameters: the box, then id, time, document, photo in
    /// base64, media type); the ids RETURNING gave.
    func insert(box: String, id: String, submittedAt: String, report: JSONValue, photoBase64: String? = nil, mediaType: String? = nil) throws -> [String] {
        func literal(_ text: String?) -> String { text.map { "$q$\($0)$q$" } ?? "NULL" }
        let returned = try server.psql("""
            PREPARE released_insert (text, text, text, text, text, text) AS
            INSERT INTO reports (id, box, submitted_at, report, photo, photo_media_type)
            VALUES ($2, $1, $3::timestamptz, $4::jsonb, decode($5, 'base64'), $6)
            ON CONFLICT (id) DO NOTHING
            RETURNING id;
            EXECUTE released_insert (\(literal(box)), \(literal(id)), \(literal(submittedAt)), \(literal(JSONWriter.string(report))),
                                     \(literal(photoBase64)), \(literal(mediaType)))
            """, quiet: true)
        return returned.split(separator: "\n").map(String.init)
    }

    /// Its check after a write that RETURNING did not cover: which ids the table holds.
    func stored(_ ids: [String]) throws -> [String] {
        let list = ids.map { "$q$\($0)$q$" }.joined(separator: ", ")
        return try server.psql("SELECT id FROM reports WHERE id IN (\(list))").split(separator: "\n").map(String.init).sorted()
    }
}

import Logging
import PetSpotJSON

/// The central PostgreSQL: one libpq connection, made on first use and again after it broke,
/// with the schema brought up to date each time it is made. libpq blocks, so every call runs on
/// this database's own thread (`PostgresThread`), which also keeps them one at a time:
/// the actor is reentrant across those waits, and the relay makes one call at a time anyway.
public actor CentralDatabase {
    public let target: PostgresConnectionString
    private let logger: Logger
    private let thread = PostgresThread()
    private var session: PostgresSession?

    public init(target: PostgresConnectionString, logger: Logger) {
        self.target = target
        self.logger = logger
    }

    /// Closes the session and waits for the database's thread to end: at exit, so that no libpq
    /// call is cut off and the thread's memory is not left behind for the process to exit under.
    public func shutdown() async {
        await close()
        await thread.shutdown()
    }

    /// What one batch did: reports written now (new, or a newer version over an older one),
    /// those PostgreSQL already had at their version or a newer one, and those it did not keep
    /// although the statement succeeded (a trigger or rule of the central table that drops
    /// rows): only the first two may be acknowledged.
    public struct WriteOutcome: Sendable, Equatable {
        public let written: Int
        public let alreadyStored: Int
        /// Ids verifiably not in the table at their version after the commit, in the batch's order.
        public let notStored: [String]

        public init(written: Int, alreadyStored: Int, notStored: [String] = []) {
            self.written = written
            self.alreadyStored = alreadyStored
            self.notStored = notStored
        }
    }

    /// Stores a batch; returns once PostgreSQL has committed it. Each report's row takes the
    /// claimed version only over an older one: a batch written twice, or a version that arrives
    /// after a newer one (a second relay, a claim that expired), leaves the row as it is.
    ///
    /// One statement, hence one round trip and one implicit transaction, whatever the batch
    /// size: a row of parameters per report (`batchSize` at most 10,000, 6 each: well under
    /// PostgreSQL's 65,535).
    public func write(_ batch: [ClaimedReport], box: String) async throws(CentralDatabaseError) -> WriteOutcome {
        let reports = Self.newestOfEach(batch)
        guard !reports.isEmpty else { return WriteOutcome(written: 0, alreadyStored: 0) }
        let upsert = Self.upsert(reports, box: box, logger: logger)
        let large = upsert.parameters.byteCount > PostgresSession.keptOutputBytes
        return try await withSession { session throws(CentralDatabaseError) in
            // Photos grew libpq's buffer: let it go with the session, the next batch connects anew.
            defer { if large { session.close() } }
            let returned = Set(try session.execute(upsert.sql, upsert.parameters).firstColumn)
            guard returned.count < reports.count else { return WriteOutcome(written: returned.count, alreadyStored: 0) }
            // A report RETURNING left out was either there before at its version or a newer one
            // (the update's WHERE), or dropped by the table's own trigger or rule: only the
            // table can tell, after the commit.
            let unreturned = reports.filter { !returned.contains($0.id) }
            let check = Self.storedCheck(unreturned)
            let present = Set(try session.execute(check.sql, check.parameters).firstColumn)
            let notStored = unreturned.map(\.id).filter { !present.contains($0) }
            return WriteOutcome(written: returned.count, alreadyStored: present.count, notStored: notStored)
        }
    }

    /// One report per id, at the highest version the batch holds, in the order of first
    /// appearance: an upsert may not touch a row twice. A claim never names a report twice;
    /// this keeps a daemon that did from stopping the queue.
    static func newestOfEach(_ reports: [ClaimedReport]) -> [ClaimedReport] {
        var index: [String: Int] = [:]
        var newest: [ClaimedReport] = []
        newest.reserveCapacity(reports.count)
        for report in reports {
            if let at = index[report.id] {
                if report.version > newest[at].version { newest[at] = report }
            } else {
                index[report.id] = newest.count
                newest.append(report)
            }
        }
        return newest
    }

    /// The upsert of a batch and its parameters: the box once, then per report its id, times,
    /// document, photo (base64, decoded by PostgreSQL, so a batch of photos is not decoded
    /// here) and media type. The version, status and erasure go into the statement as literals
    /// (a number, one of four words, now() or NULL), which keeps six parameters per report. The
    /// parameters hold one more copy of the batch: the margin over relay.maxClaimBytes that
    /// docs/PERFORMANCE.md gives.
    ///
    /// A row changes only for a higher version: an older one arriving late never overwrites a
    /// newer one. `box`, `submitted_at` and `received_at` stay as first stored; `erased_at`
    /// says when the row first lost its personal data.
    static func upsert(_ reports: [ClaimedReport], box: String, logger: Logger) -> (sql: String, parameters: PostgresParameters) {
        var parameters = PostgresParameters(reservingBytes: reports.reduce(box.utf8.count) { $0 + 320 + ($1.photo?.base64.utf8.count ?? 0) })
        let boxParameter = parameters.append(box)
        var rows: [String] = []
        rows.reserveCapacity(reports.count)
        for report in reports {
            let document: String
            if report.report.containsNULCharacter {
                logger.warning("a report holds U+0000, which PostgreSQL cannot store; it is stored as U+FFFD", metadata: ["report": "\(report.id)"])
                document = JSONWriter.string(report.report.replacingNULCharacters)
            } else {
                document = JSONWriter.string(report.report)
            }
            let id = parameters.append(report.id)
            let submitted = parameters.append(report.submittedAt)
            let json = parameters.append(document)
            let photo = parameters.append(report.photo?.base64)
            let mediaType = parameters.append(report.photo?.mediaType)
            let updated = parameters.append(report.updatedAt)
            rows.append("(\(id), \(boxParameter), \(submitted)::timestamptz, \(json)::jsonb, decode(\(photo), 'base64'), \(mediaType), "
                + "'\(report.status.rawValue)', \(report.version), \(updated)::timestamptz, \(report.erased ? "now()" : "NULL"))")
        }
        let sql = """
            INSERT INTO reports AS stored (id, box, submitted_at, report, photo, photo_media_type, status, version, updated_at, erased_at)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT (id) DO UPDATE SET
                report = excluded.report, photo = excluded.photo, photo_media_type = excluded.photo_media_type,
                status = excluded.status, version = excluded.version, updated_at = excluded.updated_at,
                erased_at = coalesce(stored.erased_at, excluded.erased_at)
            WHERE stored.version < excluded.version
            RETURNING id
            """
        return (sql, parameters)
    }

    /// The ids of `reports` whose row holds their version or a newer one.
    static func storedCheck(_ reports: [ClaimedReport]) -> (sql: String, parameters: PostgresParameters) {
        var parameters = PostgresParameters()
        let rows = reports.map { "(\(parameters.append($0.id)), \($0.version))" }
        let sql = """
            SELECT stored.id FROM (VALUES \(rows.joined(separator: ", "))) AS claimed (id, version)
            JOIN reports AS stored ON stored.id = claimed.id AND stored.version >= claimed.version
            """
        return (sql, parameters)
    }

    /// Connects now (bringing the schema up to date) if not connected; for a start-up check and tests.
    public func connect() async throws(CentralDatabaseError) {
        try await withSession { _ in }
    }

    public func close() async {
        guard let session else { return }
        self.session = nil
        await thread.close(session)
    }

    /// The steps the schema has as stored, for tests.
    public func schemaVersion() async throws(CentralDatabaseError) -> Int {
        try await withSession { session throws(CentralDatabaseError) in try Self.storedSchema(session).applied }
    }

    /// The session's synchronous_commit, for tests.
    func synchronousCommit() async throws(CentralDatabaseError) -> String {
        try await withSession { session throws(CentralDatabaseError) in try Self.synchronousCommit(of: session) }
    }

    /// Runs `body` on the database's thread with a usable session, connecting (and migrating)
    /// first when there is none; a session that broke is dropped, so the next call connects again.
    private func withSession<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws(CentralDatabaseError) -> T) async throws(CentralDatabaseError) -> T {
        let target = target, logger = logger
        do {
            let (kept, value) = try await thread.run(current: session, connect: { () throws(CentralDatabaseError) in
                try Self.connected(target, logger: logger)
            }, body)
            session = kept
            return value
        } catch {
            session = nil
            throw error
        }
    }

    /// A new session with the schema brought up to date and durable commits required.
    static func connected(_ target: PostgresConnectionString, logger: Logger) throws(CentralDatabaseError) -> PostgresSession {
        let session = try PostgresSession.connect(target, logger: logger)
        try migrate(session, logger: logger)
        try requireDurableCommits(session, logger: logger)
        return session
    }

    /// The levels of synchronous_commit at which a commit that returned is on the server's disk
    /// (and, with synchronous standbys, on theirs): a relay acknowledges a report to the daemon,
    /// which may then never send it again, only once PostgreSQL keeps it for good.
    static let durableCommitLevels: Set<String> = ["on", "remote_apply"]

    /// Raises the session's synchronous_commit to `on` when the role's, database's or server's
    /// default is weaker (off, local, remote_write); a stronger one (remote_apply) stays.
    static func requireDurableCommits(_ session: PostgresSession, logger: Logger) throws(CentralDatabaseError) {
        let level = try synchronousCommit(of: session)
        guard !durableCommitLevels.contains(level) else { return }
        try session.execute("SET synchronous_commit = on")
        logger.notice("synchronous_commit raised to on for the relay's session", metadata: ["default": "\(level)"])
    }

    static func synchronousCommit(of session: PostgresSession) throws(CentralDatabaseError) -> String {
        try session.execute("SHOW synchronous_commit").firstColumn.first ?? ""
    }

    /// The schema as stored: the steps the migrations table records, and the oldest schema a
    /// writer may know. Relays of the first release recorded their steps in the version table
    /// alone, each its own number: every step up to `required` is applied.
    struct StoredSchema: Equatable {
        let recorded: Int
        let required: Int
        var applied: Int { max(recorded, required) }
    }

    /// Reads the two schema tables (both made beforehand).
    static func storedSchema(_ session: PostgresSession) throws(CentralDatabaseError) -> StoredSchema {
        StoredSchema(recorded: try number(session, "SELECT coalesce(max(step), 0) FROM \(CentralSchema.migrationsTable)"),
                     required: try number(session, "SELECT coalesce(max(version), 0) FROM \(CentralSchema.versionTable)"))
    }

    private static func number(_ session: PostgresSession, _ sql: String) throws(CentralDatabaseError) -> Int {
        Int(try session.execute(sql).firstColumn.first ?? "") ?? 0
    }

    /// Applies the missing migrations in one transaction, holding the migration lock. A database
    /// with steps this relay does not know is written to as long as none of them requires a
    /// newer writer; otherwise it is refused and nothing is written.
    static func migrate(_ session: PostgresSession, logger: Logger) throws(CentralDatabaseError) {
        try session.execute("BEGIN")
        do throws(CentralDatabaseError) {
            try session.execute("SELECT pg_advisory_xact_lock(\(CentralSchema.migrationLockKey))")
            try session.execute(
                "CREATE TABLE IF NOT EXISTS \(CentralSchema.versionTable) (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            try session.execute("""
                CREATE TABLE IF NOT EXISTS \(CentralSchema.migrationsTable) (
                    step integer PRIMARY KEY, compatible_with integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """)
            let stored = try storedSchema(session)
            guard stored.required <= CentralSchema.currentVersion else {
                throw CentralDatabaseError(kind: .schema, "the central schema (version \(stored.applied)) needs a relay that knows version \(stored.required) or newer; this relay knows up to \(CentralSchema.currentVersion): upgrade the relay")
            }
            if stored.recorded < stored.required {
                // Steps of the first release's relays, recorded by the rule they followed.
                try session.execute("""
                    INSERT INTO \(CentralSchema.migrationsTable) (step, compatible_with)
                    SELECT version, version FROM \(CentralSchema.versionTable) WHERE version > \(stored.recorded)
                    """)
            }
            if stored.applied > CentralSchema.currentVersion {
                logger.notice("the central schema is newer than this relay knows; its newer steps leave this relay's writes as they were", metadata: [
                    "version": "\(stored.applied)", "known": "\(CentralSchema.currentVersion)",
                ])
            }
            var required = stored.required
            for version in stride(from: stored.applied + 1, through: CentralSchema.currentVersion, by: 1) {
                let migration = CentralSchema.migrations[version - 1]
                for statement in migration.statements {
                    try session.execute(statement)
                }
                try session.execute("INSERT INTO \(CentralSchema.migrationsTable) (step, compatible_with) VALUES (\(version), \(migration.compatibleWith))")
                if migration.compatibleWith > required {
                    try session.execute("INSERT INTO \(CentralSchema.versionTable) (version) VALUES (\(migration.compatibleWith)) ON CONFLICT DO NOTHING")
                    required = migration.compatibleWith
                }
                logger.notice("central schema migrated", metadata: ["version": "\(version)"])
            }
            try session.execute("COMMIT")
        } catch {
            _ = try? session.execute("ROLLBACK")
            throw error
        }
    }
}

import Logging
import NIOPosix
import PetSpotJSON

/// The central PostgreSQL: one libpq connection, made on first use and again after it broke,
/// with the schema brought up to date each time it is made. libpq blocks, so every call runs on
/// this database's own thread (an `NIOThreadPool` of one), which also keeps them one at a time:
/// the actor is reentrant across those waits, and the relay makes one call at a time anyway.
public actor CentralDatabase {
    public let target: PostgresConnectionString
    private let logger: Logger
    private let thread: NIOThreadPool
    private var session: PostgresSession?

    public init(target: PostgresConnectionString, logger: Logger) {
        self.target = target
        self.logger = logger
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    deinit {
        thread.shutdownGracefully { _ in }
    }

    /// Closes the session and waits for the database's thread to end: at exit, so that no libpq
    /// call is cut off and the thread's memory is not left behind for the process to exit under.
    public func shutdown() async {
        await close()
        try? await thread.shutdownGracefully()
    }

    /// What one batch did: reports written now, those PostgreSQL already had, and those it did
    /// not keep although the statement succeeded (a trigger or rule of the central table that
    /// drops rows): only the first two may be acknowledged.
    public struct WriteOutcome: Sendable, Equatable {
        public let inserted: Int
        public let alreadyStored: Int
        /// Ids verifiably not in the table after the commit, in the batch's order.
        public let notStored: [String]

        public init(inserted: Int, alreadyStored: Int, notStored: [String] = []) {
            self.inserted = inserted
            self.alreadyStored = alreadyStored
            self.notStored = notStored
        }
    }

    /// Stores a batch; returns once PostgreSQL has committed it. Reports already stored (same id)
    /// are left as they are, so a batch written twice stores each report once.
    ///
    /// One statement, hence one round trip and one implicit transaction, whatever the batch
    /// size: a row of parameters per report (`batchSize` at most 10,000, 5 each: well under
    /// PostgreSQL's 65,535).
    public func write(_ reports: [ClaimedReport], box: String) async throws(CentralDatabaseError) -> WriteOutcome {
        guard !reports.isEmpty else { return WriteOutcome(inserted: 0, alreadyStored: 0) }
        let insert = Self.insertion(reports, box: box, logger: logger)
        let ids = reports.map(\.id)
        let large = insert.parameters.byteCount > PostgresSession.keptOutputBytes
        return try await withSession { session throws(CentralDatabaseError) in
            // Photos grew libpq's buffer: let it go with the session, the next batch connects anew.
            defer { if large { session.close() } }
            let returned = Set(try session.execute(insert.sql, insert.parameters).firstColumn)
            guard returned.count < ids.count else { return WriteOutcome(inserted: returned.count, alreadyStored: 0) }
            // An id RETURNING left out was either there before (ON CONFLICT) or dropped by the
            // table's own trigger or rule: only the table can tell, after the commit.
            let unreturned = ids.filter { !returned.contains($0) }
            var check = PostgresParameters()
            let placeholders = unreturned.map { check.append($0) }
            let present = Set(try session.execute("SELECT id FROM reports WHERE id IN (\(placeholders.joined(separator: ", ")))", check).firstColumn)
            let notStored = unreturned.filter { !present.contains($0) }
            return WriteOutcome(inserted: returned.count, alreadyStored: present.count, notStored: notStored)
        }
    }

    /// The INSERT of a batch and its parameters: the box once, then per report its id, time,
    /// document, photo (base64, decoded by PostgreSQL, so a batch of photos is not decoded
    /// here) and media type. The parameters hold one more copy of the batch: the margin over
    /// relay.maxClaimBytes that docs/PERFORMANCE.md gives.
    static func insertion(_ reports: [ClaimedReport], box: String, logger: Logger) -> (sql: String, parameters: PostgresParameters) {
        var parameters = PostgresParameters(reservingBytes: reports.reduce(box.utf8.count) { $0 + 256 + ($1.photo?.base64.utf8.count ?? 0) })
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
            rows.append("(\(id), \(boxParameter), \(submitted)::timestamptz, \(json)::jsonb, decode(\(photo), 'base64'), \(mediaType))")
        }
        let sql = """
            INSERT INTO reports (id, box, submitted_at, report, photo, photo_media_type)
            VALUES \(rows.joined(separator: ", "))
            ON CONFLICT (id) DO NOTHING
            RETURNING id
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
        // PQfinish says goodbye to the server: a write, so on the database's thread too.
        _ = try? await thread.runIfActive { session.close() }
    }

    /// The schema's version as stored, for tests and --status.
    public func schemaVersion() async throws(CentralDatabaseError) -> Int {
        try await withSession { session throws(CentralDatabaseError) in try Self.storedVersion(session) }
    }

    /// The session's synchronous_commit, for tests.
    func synchronousCommit() async throws(CentralDatabaseError) -> String {
        try await withSession { session throws(CentralDatabaseError) in try Self.synchronousCommit(of: session) }
    }

    /// Runs `body` on the database's thread with a usable session, connecting (and migrating)
    /// first when there is none; a session that broke is dropped, so the next call connects again.
    private func withSession<T: Sendable>(_ body: @escaping @Sendable (PostgresSession) throws(CentralDatabaseError) -> T) async throws(CentralDatabaseError) -> T {
        let current = session
        let target = target, logger = logger
        let outcome: Result<(PostgresSession?, T), CentralDatabaseError>
        do {
            outcome = try await thread.runIfActive { () -> Result<(PostgresSession?, T), CentralDatabaseError> in
                do throws(CentralDatabaseError) {
                    let session: PostgresSession
                    if let current, current.isUsable {
                        session = current
                    } else {
                        session = try Self.connected(target, logger: logger)
                    }
                    do throws(CentralDatabaseError) {
                        let value = try body(session)
                        // Kept only while it can serve the next call (not closed after a large batch).
                        return .success((session.isUsable ? session : nil, value))
                    } catch {
                        // After a failure the session is suspect (broken, or inside an aborted
                        // transaction): a new one costs a connect, a wrong one could cost a report.
                        session.close()
                        return .failure(error)
                    }
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            throw CentralDatabaseError(kind: .unreachable, "the relay is stopping")
        }
        switch outcome {
        case .success(let (kept, value)):
            session = kept
            return value
        case .failure(let error):
            session = nil
            throw error
        }
    }

    /// A new session with the schema brought up to date and durable commits required.
    private static func connected(_ target: PostgresConnectionString, logger: Logger) throws(CentralDatabaseError) -> PostgresSession {
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

    static func storedVersion(_ session: PostgresSession) throws(CentralDatabaseError) -> Int {
        Int(try session.execute("SELECT coalesce(max(version), 0) FROM \(CentralSchema.versionTable)").firstColumn.first ?? "") ?? 0
    }

    /// Applies the missing migrations in one transaction, holding the migration lock.
    static func migrate(_ session: PostgresSession, logger: Logger) throws(CentralDatabaseError) {
        try session.execute("BEGIN")
        do throws(CentralDatabaseError) {
            try session.execute("SELECT pg_advisory_xact_lock(\(CentralSchema.migrationLockKey))")
            try session.execute(
                "CREATE TABLE IF NOT EXISTS \(CentralSchema.versionTable) (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())")
            let stored = try storedVersion(session)
            guard stored <= CentralSchema.currentVersion else {
                throw CentralDatabaseError(kind: .schema, "the central schema is at version \(stored), newer than this relay knows (\(CentralSchema.currentVersion)); upgrade the relay")
            }
            for version in stride(from: stored + 1, through: CentralSchema.currentVersion, by: 1) {
                for statement in CentralSchema.migrations[version - 1] {
                    try session.execute(statement)
                }
                try session.execute("INSERT INTO \(CentralSchema.versionTable) (version) VALUES (\(version))")
                logger.notice("central schema migrated", metadata: ["version": "\(version)"])
            }
            try session.execute("COMMIT")
        } catch {
            _ = try? session.execute("ROLLBACK")
            throw error
        }
    }
}

import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PetSpotJSON
import PostgresNIO

/// The central PostgreSQL: one connection, made on first use and again after it broke, with the
/// schema brought up to date each time it is made.
public actor CentralDatabase {
    public let url: PostgresURL
    private let logger: Logger
    private var connection: PostgresConnection?
    private var nextConnectionID = 1

    public init(url: PostgresURL, logger: Logger) {
        self.url = url
        self.logger = logger
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
    /// size: the batch travels as parallel arrays that unnest() turns back into rows.
    public func write(_ reports: [ClaimedReport], box: String) async throws(CentralDatabaseError) -> WriteOutcome {
        guard !reports.isEmpty else { return WriteOutcome(inserted: 0, alreadyStored: 0) }
        let connection = try await connected()
        var ids: [String] = [], submitted: [String] = [], documents: [String] = [], photos: [String] = [], mediaTypes: [String] = []
        ids.reserveCapacity(reports.count)
        for report in reports {
            ids.append(report.id)
            submitted.append(report.submittedAt)
            if report.report.containsNULCharacter {
                logger.warning("a report holds U+0000, which PostgreSQL cannot store; it is stored as U+FFFD", metadata: ["report": "\(report.id)"])
                documents.append(JSONWriter.string(report.report.replacingNULCharacters))
            } else {
                documents.append(JSONWriter.string(report.report))
            }
            // Parallel arrays cannot carry a null here, so "" stands for "no photo" and the
            // media type, never empty for a photo, tells which.
            photos.append(report.photo?.base64 ?? "")
            mediaTypes.append(report.photo?.mediaType ?? "")
        }
        let query: PostgresQuery = """
            INSERT INTO reports (id, box, submitted_at, report, photo, photo_media_type)
            SELECT r.id, \(box), r.submitted_at::timestamptz, r.report::jsonb,
                   CASE WHEN r.media_type = '' THEN NULL ELSE decode(r.photo, 'base64') END,
                   NULLIF(r.media_type, '')
            FROM unnest(\(ids)::text[], \(submitted)::text[], \(documents)::text[], \(photos)::text[], \(mediaTypes)::text[])
                 AS r(id, submitted_at, report, photo, media_type)
            ON CONFLICT (id) DO NOTHING
            RETURNING id
            """
        do {
            var returned = Set<String>()
            for try await id in try await connection.query(query, logger: logger).decode(String.self) { returned.insert(id) }
            guard returned.count < reports.count else { return WriteOutcome(inserted: returned.count, alreadyStored: 0) }
            // An id RETURNING left out was either there before (ON CONFLICT) or dropped by the
            // table's own trigger or rule: only the table can tell, after the commit.
            let unreturned = ids.filter { !returned.contains($0) }
            var present = Set<String>()
            let check: PostgresQuery = "SELECT id FROM reports WHERE id = ANY(\(unreturned)::text[])"
            for try await id in try await connection.query(check, logger: logger).decode(String.self) { present.insert(id) }
            let notStored = unreturned.filter { !present.contains($0) }
            return WriteOutcome(inserted: returned.count, alreadyStored: present.count, notStored: notStored)
        } catch {
            throw await broke(error)
        }
    }

    /// Connects now (bringing the schema up to date) if not connected; for a start-up check and tests.
    public func connect() async throws(CentralDatabaseError) {
        _ = try await connected()
    }

    public func close() async {
        if let connection {
            self.connection = nil
            try? await connection.close()
        }
    }

    /// The schema's version as stored, for tests and --status.
    public func schemaVersion() async throws(CentralDatabaseError) -> Int {
        let connection = try await connected()
        do {
            return try await Self.storedVersion(connection, logger: logger)
        } catch {
            throw await broke(error)
        }
    }

    private func connected() async throws(CentralDatabaseError) -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        connection = nil
        let configuration = try Self.configuration(for: url)
        let id = nextConnectionID
        nextConnectionID += 1
        let made: PostgresConnection
        do {
            made = try await PostgresConnection.connect(configuration: configuration, id: id, logger: logger)
        } catch {
            throw CentralDatabaseError(error, url: url)
        }
        do {
            try await Self.migrate(made, logger: logger)
            try await Self.requireDurableCommits(made, logger: logger)
        } catch {
            try? await made.close()
            throw CentralDatabaseError(error, url: url)
        }
        connection = made
        return made
    }

    /// The levels of synchronous_commit at which a commit that returned is on the server's disk
    /// (and, with synchronous standbys, on theirs): a relay acknowledges a report to the daemon,
    /// which may then never send it again, only once PostgreSQL keeps it for good.
    static let durableCommitLevels: Set<String> = ["on", "remote_apply"]

    /// Raises the session's synchronous_commit to `on` when the role's, database's or server's
    /// default is weaker (off, local, remote_write); a stronger one (remote_apply) stays.
    static func requireDurableCommits(_ connection: PostgresConnection, logger: Logger) async throws {
        let level = try await synchronousCommit(of: connection, logger: logger)
        guard !durableCommitLevels.contains(level) else { return }
        _ = try await connection.query("SET synchronous_commit = on", logger: logger)
        logger.notice("synchronous_commit raised to on for the relay's session", metadata: ["default": "\(level)"])
    }

    static func synchronousCommit(of connection: PostgresConnection, logger: Logger) async throws -> String {
        for try await value in try await connection.query("SHOW synchronous_commit", logger: logger).decode(String.self) { return value }
        return ""
    }

    /// The session's synchronous_commit, for tests.
    func synchronousCommit() async throws(CentralDatabaseError) -> String {
        let connection = try await connected()
        do {
            return try await Self.synchronousCommit(of: connection, logger: logger)
        } catch {
            throw await broke(error)
        }
    }

    /// Drops a connection that failed, so that the next call makes a new one.
    private func broke(_ error: any Error) async -> CentralDatabaseError {
        if let connection {
            self.connection = nil
            try? await connection.close()
        }
        return CentralDatabaseError(error, url: url)
    }

    static func configuration(for url: PostgresURL) throws(CentralDatabaseError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch url.sslMode {
        case .disable:
            tls = .disable
        case .require:
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .none
            do {
                tls = .require(try NIOSSLContext(configuration: settings))
            } catch {
                throw CentralDatabaseError(kind: .tls, "cannot set up TLS: \(error)")
            }
        case .verifyFull:
            var settings = TLSConfiguration.makeClientConfiguration()
            // Full verification checks the chain and the name: a host name against the
            // certificate's DNS names, an IP address against its IP addresses.
            settings.certificateVerification = .fullVerification
            if let root = url.sslRootCert {
                do {
                    settings.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(root))
                } catch {
                    throw CentralDatabaseError(kind: .tls, "sslrootcert \(root) cannot be read as PEM certificates: \(error)")
                }
            }
            do {
                tls = .require(try NIOSSLContext(configuration: settings))
            } catch {
                throw CentralDatabaseError(kind: .tls, "cannot set up TLS: \(error)")
            }
        }
        var configuration = PostgresConnection.Configuration(host: url.host, port: url.port, username: url.user,
                                                             password: url.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = .seconds(10)
        return configuration
    }

    static func storedVersion(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM petspot_relay_schema", logger: logger)
        for try await version in rows.decode(Int.self) { return version }
        return 0
    }

    /// Applies the missing migrations in one transaction, holding the migration lock.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query("BEGIN", logger: logger)
        do {
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(CentralSchema.migrationLockKey))", logger: logger)
            _ = try await connection.query(
                "CREATE TABLE IF NOT EXISTS petspot_relay_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
                logger: logger)
            let stored = try await storedVersion(connection, logger: logger)
            guard stored <= CentralSchema.currentVersion else {
                throw SchemaTooNew(stored: stored, known: CentralSchema.currentVersion)
            }
            for version in stride(from: stored + 1, through: CentralSchema.currentVersion, by: 1) {
                for statement in CentralSchema.migrations[version - 1] {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                _ = try await connection.query("INSERT INTO petspot_relay_schema (version) VALUES (\(version))", logger: logger)
                logger.notice("central schema migrated", metadata: ["version": "\(version)"])
            }
            _ = try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }
}

/// The central database holds a schema from a newer relay; writing into it could lose data.
struct SchemaTooNew: Error, CustomStringConvertible {
    let stored: Int
    let known: Int
    var description: String {
        "the central schema is at version \(stored), newer than this relay knows (\(known)); upgrade the relay"
    }
}

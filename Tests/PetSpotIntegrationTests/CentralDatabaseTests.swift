import Foundation
import Logging
import PetSpotJSON
import PetSpotProtocol
import PetSpotRelay
import Testing

/// The relay's PostgreSQL side against a real PostgreSQL: schema, idempotent batches, TLS.
@Suite("The central PostgreSQL", .serialized)
struct CentralDatabaseTests {
    static let logger: Logger = {
        var logger = Logger(label: "test.postgres")
        logger.logLevel = .warning
        return logger
    }()

    func database(_ url: String) throws -> CentralDatabase {
        CentralDatabase(target: try PostgresConnectionString(parsing: url), logger: Self.logger)
    }

    static func report(_ id: String, photo: [UInt8]? = pngBytes, submittedAt: String = "2026-11-21T13:07:27Z", version: Int = 1,
                       status: ReportView.Status = .missing, erased: Bool = false, email: String? = "owner@example.org") -> ClaimedReport {
        let updatedAt = version == 1 ? submittedAt : "2026-11-22T08:00:0\(version % 10)Z"
        return ClaimedReport(
            id: id, submittedAt: submittedAt,
            report: ["id": .string(id), "flowId": .string("f-\(id)"), "submittedAt": .string(submittedAt), "status": .string(status.rawValue),
                     "version": .int(version), "updatedAt": .string(updatedAt), "expiresAt": nil, "erased": .bool(erased),
                     "values": ["species": "dog", "chipNumber": erased ? nil : "616091234567890", "contactEmail": erased ? nil : .optional(email)]],
            photo: photo.map { .init(mediaType: "image/png", sha256: sha256Hex($0), base64: Data($0).base64EncodedString()) },
            status: status, version: version, updatedAt: updatedAt, erased: erased)
    }

    /// One stored row's life: "status|version|erased", erased being whether erased_at is set.
    static func life(_ server: PostgresServer, _ id: String) throws -> String {
        try server.psql("SELECT status || '|' || version || '|' || (erased_at IS NOT NULL) FROM reports WHERE id = '\(id)'")
    }

    @Test("the schema is created on connect, once, even by relays connecting together")
    func schemaCreatedOnce() async throws {
        let server = try PostgresServer()
        let relays = try (0..<4).map { _ in try database(server.url()) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for relay in relays { group.addTask { try await relay.connect() } }
            try await group.waitForAll()
        }
        for relay in relays {
            #expect(try await relay.schemaVersion() == CentralSchema.currentVersion)
            await relay.close()
        }
        // Every step recorded once; none so far needs a newer writer than the first release.
        #expect(try server.psql("SELECT string_agg(step || ':' || compatible_with, ',' ORDER BY step) FROM petspot_relay_migrations") == "1:1,2:1,3:1")
        #expect(try server.psql("SELECT string_agg(version::text, ',') FROM petspot_relay_schema") == "1")
        #expect(try server.psql("SELECT column_name || ':' || data_type || ':' || is_nullable FROM information_schema.columns WHERE table_name = 'reports' ORDER BY ordinal_position")
            .split(separator: "\n") == [
                "id:text:NO", "box:text:NO", "submitted_at:timestamp with time zone:NO", "report:jsonb:NO",
                "photo:bytea:YES", "photo_media_type:text:YES", "received_at:timestamp with time zone:NO",
                "status:text:NO", "version:bigint:NO", "updated_at:timestamp with time zone:NO", "erased_at:timestamp with time zone:YES",
                "feed_position:bigint:NO",
            ])
        #expect(try server.psql("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'reports'::regclass AND i.indisprimary") == "id")
    }

    @Test("a schema that needs a newer relay is refused, nothing written; one whose newer steps are additive is written to")
    func newerSchema() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        try await relay.connect()
        await relay.close()
        // A later step this relay does not know, which its writers need not know either.
        try server.psql("INSERT INTO petspot_relay_migrations (step, compatible_with) VALUES (\(CentralSchema.currentVersion + 1), 1)")
        #expect(try await relay.write([Self.report("r1")], box: "a") == .init(written: 1, alreadyStored: 0))
        #expect(try await relay.schemaVersion() == CentralSchema.currentVersion + 1)
        await relay.close()
        // A later step that needs writers to know it.
        try server.psql("INSERT INTO petspot_relay_migrations (step, compatible_with) VALUES (\(CentralSchema.currentVersion + 2), \(CentralSchema.currentVersion + 2))")
        try server.psql("INSERT INTO petspot_relay_schema (version) VALUES (\(CentralSchema.currentVersion + 2))")
        do {
            _ = try await relay.write([Self.report("r2")], box: "a")
            Issue.record("wrote into a schema that needs a newer relay")
        } catch {
            #expect(error.kind == .schema)
            #expect(error.description == "the central schema (version \(CentralSchema.currentVersion + 2)) needs a relay that knows version \(CentralSchema.currentVersion + 2) or newer; this relay knows up to \(CentralSchema.currentVersion): upgrade the relay")
        }
        #expect(try server.psql("SELECT string_agg(id, ',') FROM reports") == "r1")
    }

    @Test("a batch written twice stores each report once, photo bytes intact")
    func idempotentBatches() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let batch = [Self.report("r1"), Self.report("r2", photo: nil), Self.report("r3", photo: big)]
        let first = try await relay.write(batch, box: "kiosk-1")
        #expect(first == .init(written: 3, alreadyStored: 0))
        // At-least-once: the same batch again, and one overlapping it.
        let again = try await relay.write(batch, box: "kiosk-1")
        #expect(again == .init(written: 0, alreadyStored: 3))
        let overlapping = try await relay.write([Self.report("r3", photo: big), Self.report("r4")], box: "kiosk-1")
        #expect(overlapping == .init(written: 1, alreadyStored: 1))
        #expect(try server.psql("SELECT id || '|' || box || '|' || coalesce(photo_media_type, '-') || '|' || coalesce(encode(sha256(photo), 'hex'), '-') FROM reports ORDER BY id")
            .split(separator: "\n") == [
                "r1|kiosk-1|image/png|\(sha256Hex(pngBytes))",
                "r2|kiosk-1|-|-",
                "r3|kiosk-1|image/png|\(sha256Hex(big))",
                "r4|kiosk-1|image/png|\(sha256Hex(pngBytes))",
            ])
        #expect(try server.psql("SELECT report->'values'->>'species' || ' ' || (submitted_at = '2026-11-21T13:07:27Z') FROM reports WHERE id = 'r1'") == "dog true")
        #expect(try server.psql("SELECT count(*) FROM reports WHERE report ? 'delivery' OR received_at IS NULL") == "0")
        await relay.close()
    }

    @Test("PostgreSQL stopped: a clear error; started again: the same writer goes on")
    func reconnects() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        _ = try await relay.write([Self.report("r1")], box: "a")
        try server.stop()
        do {
            _ = try await relay.write([Self.report("r2")], box: "a")
            Issue.record("wrote with PostgreSQL stopped")
        } catch {
            #expect(error.kind == .unreachable)
            #expect(error.description.contains("127.0.0.1:\(server.port)"), "\(error.description)")
        }
        try server.start()
        #expect(try await relay.write([Self.report("r2"), Self.report("r1")], box: "a") == .init(written: 1, alreadyStored: 1))
        try server.kill()
        await #expect(throws: CentralDatabaseError.self) { try await relay.write([Self.report("r3")], box: "a") }
        try server.start()
        #expect(try await relay.write([Self.report("r3")], box: "a") == .init(written: 1, alreadyStored: 0))
        #expect(try server.psql("SELECT string_agg(id, ',' ORDER BY id) FROM reports") == "r1,r2,r3")
        await relay.close()
    }

    @Test("TLS verify-full: the right CA by IP and by name is accepted; a wrong CA is refused clearly")
    func tlsVerifyFull() async throws {
        let server = try PostgresServer(tls: true)
        let tls = try #require(server.tls)
        for host in ["127.0.0.1", "localhost"] {
            let relay = try database(server.url(sslMode: "verify-full", host: host, rootCert: tls.caCertificate))
            #expect(try await relay.write([Self.report("r-\(host)")], box: "a") == .init(written: 1, alreadyStored: 0))
            await relay.close()
        }
        #expect(try server.psql("SELECT count(*) FROM pg_stat_ssl WHERE ssl") != "")

        let wrong = try database(server.url(sslMode: "verify-full", rootCert: tls.otherCACertificate))
        do {
            _ = try await wrong.write([Self.report("r-wrong")], box: "a")
            Issue.record("a server signed by another CA was trusted")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.description.hasPrefix("TLS refused: the certificate of the PostgreSQL server at 127.0.0.1:\(server.port) did not verify against sslrootcert \(tls.otherCACertificate)"), "\(error.description)")
        }
        let otherName = try database(server.url(sslMode: "verify-full", host: "127.0.0.2", rootCert: tls.caCertificate))
        do {
            try await otherName.connect()
            Issue.record("a certificate for 127.0.0.1 and localhost was accepted for 127.0.0.2")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.description.hasPrefix("TLS refused: the certificate of the PostgreSQL server at 127.0.0.2:\(server.port) does not name 127.0.0.2"), "\(error.description)")
        }
        let missing = try database(server.url(sslMode: "verify-full", rootCert: "/nonexistent/ca.pem"))
        do {
            try await missing.connect()
            Issue.record("connected without its CA file")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.description.hasPrefix("TLS refused: sslrootcert /nonexistent/ca.pem cannot be read: "), "\(error.description)")
            #expect(error.description.contains("does not exist"), "\(error.description)")
        }
        // sslmode=require encrypts without checking who answers.
        let unchecked = try database(server.url(sslMode: "require"))
        #expect(try await unchecked.write([Self.report("r-require")], box: "a") == .init(written: 1, alreadyStored: 0))
        await unchecked.close()
        #expect(try server.psql("SELECT string_agg(id, ',' ORDER BY id) FROM reports") == "r-127.0.0.1,r-localhost,r-require")
    }

    @Test("TLS asked of a server without it is refused clearly")
    func tlsNotOffered() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url(sslMode: "require"))
        do {
            try await relay.connect()
            Issue.record("connected without TLS")
        } catch {
            #expect(error.kind == .tls)
            #expect(error.description == "TLS refused: the PostgreSQL server at 127.0.0.1:\(server.port) does not offer TLS (sslmode=require)")
        }
    }
}

extension CentralDatabaseTests {
    @Test("a session ended by the server mid-write (as a fast stop does) counts as PostgreSQL away, not as a refusal")
    func terminatedSession() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        try await relay.connect()
        // Another session holds the table, so that the write waits inside PostgreSQL ...
        let holder = try server.lockReports()
        defer { if holder.isRunning { holder.terminate() } }
        let write = Task { try await relay.write([Self.report("r1")], box: "a") }
        // ... and its session is ended while it waits.
        try server.waitForBlockedWrite()
        try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'INSERT INTO reports%'")
        do {
            _ = try await write.value
            Issue.record("the write of an ended session succeeded")
        } catch let error as CentralDatabaseError {
            #expect(error.kind == .unreachable, "\(error.description)")
            #expect(error.description.hasPrefix("PostgreSQL at 127.0.0.1:\(server.port) is not available: "), "\(error.description)")
        }
        try server.unlockReports(holder)
        #expect(try await relay.write([Self.report("r1")], box: "a") == .init(written: 1, alreadyStored: 0))
        await relay.close()
    }
}

extension CentralDatabaseTests {
    @Test("a report holding U+0000, which jsonb refuses, is stored with U+FFFD instead of stopping the queue")
    func nulCharacter() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        let report = ClaimedReport(id: "r-nul", submittedAt: "2026-11-21T13:07:27Z",
                                   report: ["id": "r-nul", "values": ["additionalDescription": "brown\u{0}collar", "a\u{0}": ["x\u{0}"]]], photo: nil,
                                   status: .missing, version: 1, updatedAt: "2026-11-21T13:07:27Z", erased: false)
        #expect(try await relay.write([report, Self.report("r-ok")], box: "a") == .init(written: 2, alreadyStored: 0))
        #expect(try server.psql("SELECT report->'values'->>'additionalDescription' FROM reports WHERE id = 'r-nul'") == "brown\u{FFFD}collar")
        #expect(try server.psql("SELECT report->'values'->'a\u{FFFD}'->>0 FROM reports WHERE id = 'r-nul'") == "x\u{FFFD}")
        await relay.close()
    }
}

extension CentralDatabaseTests {
    @Test("versions: a newer one replaces the row, an older one arriving late never does, the same one again changes nothing; a batch naming a report twice keeps its newest")
    func versionsInOrder() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        #expect(try await relay.write([Self.report("r1"), Self.report("r2")], box: "kiosk-1") == .init(written: 2, alreadyStored: 0))
        let received = try server.psql("SELECT received_at FROM reports WHERE id = 'r1'")
        #expect(try await relay.write([Self.report("r1", version: 3, email: "third@example.org")], box: "kiosk-1") == .init(written: 1, alreadyStored: 0))
        #expect(try Self.life(server, "r1") == "missing|3|false")
        // Version 2, claimed before version 3 and written after it (a second relay, a claim
        // that expired): stored already, as far as the relay may acknowledge, and not written.
        #expect(try await relay.write([Self.report("r1", version: 2, status: .found, email: "second@example.org")], box: "kiosk-2")
            == .init(written: 0, alreadyStored: 1))
        #expect(try Self.life(server, "r1") == "missing|3|false")
        #expect(try server.psql("SELECT report->>'version' || ' ' || (report->'values'->>'contactEmail') || ' ' || box || ' ' || (received_at = '\(received)') FROM reports WHERE id = 'r1'")
            == "3 third@example.org kiosk-1 true")
        #expect(try await relay.write([Self.report("r1", version: 3, email: "third@example.org")], box: "kiosk-1") == .init(written: 0, alreadyStored: 1))
        // Twice in one batch: the newest is written, and the statement does not fail.
        #expect(try await relay.write([Self.report("r2", version: 4), Self.report("r2", version: 5, status: .withdrawn), Self.report("r2", version: 2)], box: "kiosk-1")
            == .init(written: 1, alreadyStored: 0))
        #expect(try Self.life(server, "r2") == "withdrawn|5|false")
        #expect(try server.psql("SELECT updated_at = '2026-11-22T08:00:05Z' FROM reports WHERE id = 'r2'") == "t")
        await relay.close()
    }

    @Test("an erased report's row keeps no personal value and no photo, and says since when; a later version keeps that time")
    func erasedRow() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        let email = "erased-\(UUID().uuidString.prefix(8).lowercased())@example.org"
        _ = try await relay.write([Self.report("r1", email: email)], box: "a")
        #expect(try server.psql("SELECT count(*) FROM reports WHERE report::text LIKE '%\(email)%' AND photo IS NOT NULL") == "1")
        #expect(try await relay.write([Self.report("r1", version: 3, status: .withdrawn, erased: true)], box: "a") == .init(written: 1, alreadyStored: 0))
        #expect(try Self.life(server, "r1") == "withdrawn|3|true")
        #expect(try server.psql("SELECT count(*) FROM reports WHERE report::text LIKE '%\(email)%' OR report::text LIKE '%616091234567890%'") == "0")
        #expect(try server.psql("SELECT (photo IS NULL) || ' ' || (photo_media_type IS NULL) || ' ' || (report->'values'->>'species') FROM reports WHERE id = 'r1'") == "true true dog")
        let erasedAt = try server.psql("SELECT erased_at FROM reports WHERE id = 'r1'")
        // Version 2, late: the row stays erased.
        #expect(try await relay.write([Self.report("r1", version: 2, email: email)], box: "a") == .init(written: 0, alreadyStored: 1))
        #expect(try server.psql("SELECT count(*) FROM reports WHERE report::text LIKE '%\(email)%' OR photo IS NOT NULL") == "0")
        _ = try await relay.write([Self.report("r1", version: 4, status: .withdrawn, erased: true)], box: "a")
        #expect(try server.psql("SELECT version || ' ' || (erased_at = '\(erasedAt)') FROM reports WHERE id = 'r1'") == "4 true")
        await relay.close()
    }
}

extension CentralDatabaseTests {
    /// A report as a daemon of protocol revision 3 gave it (no life yet), or of revision 4.
    static func claimedDocument(_ id: String, version: Int? = nil, status: String = "missing", erased: Bool = false) -> JSONValue {
        var document: JSONObject = ["id": .string(id), "flowId": .string("f-\(id)"), "submittedAt": "2026-11-21T13:07:27Z"]
        if let version {
            document["status"] = .string(status)
            document["version"] = .int(version)
            document["updatedAt"] = "2026-11-23T09:30:00Z"
            document["expiresAt"] = .null
            document["erased"] = .bool(erased)
        }
        document["values"] = ["species": "cat", "contactEmail": erased ? nil : "owner@example.org"]
        return .object(document)
    }

    @Test("a fleet upgraded box by box: a relay of the first release accepts the schema this one migrated and keeps writing; its rows have their life from the report, and none is overwritten by an older version")
    func releasedRelayAfterMigration() async throws {
        let server = try PostgresServer()
        let released = ReleasedRelay(server: server)
        // Before the upgrade: the released relay made the schema and stored a report of a
        // daemon of revision 3, and one of a daemon of revision 4 (its box's daemon upgraded first).
        try released.connect()
        #expect(try released.insert(box: "old", id: "r3", submittedAt: "2026-11-21T13:07:27Z", report: Self.claimedDocument("r3"),
                                    photoBase64: Data(pngBytes).base64EncodedString(), mediaType: "image/png") == ["r3"])
        #expect(try released.insert(box: "old", id: "r4", submittedAt: "2026-11-21T13:07:27Z",
                                    report: Self.claimedDocument("r4", version: 4, status: "found")) == ["r4"])

        // The first upgraded box's relay migrates the rows already there.
        let relay = try database(server.url())
        try await relay.connect()
        #expect(try await relay.schemaVersion() == CentralSchema.currentVersion)
        #expect(try Self.life(server, "r3") == "missing|1|false")
        #expect(try Self.life(server, "r4") == "found|4|false")
        #expect(try server.psql("SELECT updated_at = '2026-11-21T13:07:27Z' FROM reports WHERE id = 'r3'") == "t")
        #expect(try server.psql("SELECT string_agg(step || ':' || compatible_with, ',' ORDER BY step) FROM petspot_relay_migrations") == "1:1,2:1,3:1")

        // The released relay, on a box not yet upgraded, accepts the database and goes on.
        try released.connect()
        #expect(try released.insert(box: "old", id: "r5", submittedAt: "2026-11-21T13:07:27Z",
                                    report: Self.claimedDocument("r5", version: 3, status: "withdrawn", erased: true)) == ["r5"])
        #expect(try released.insert(box: "old", id: "r6", submittedAt: "2026-11-21T13:07:27Z", report: Self.claimedDocument("r6")) == ["r6"])
        #expect(try Self.life(server, "r5") == "withdrawn|3|true")
        #expect(try Self.life(server, "r6") == "missing|1|false")
        #expect(try server.psql("SELECT updated_at = '2026-11-23T09:30:00Z' FROM reports WHERE id = 'r5'") == "t")
        // A copy again: nothing returned, and its check finds the row.
        #expect(try released.insert(box: "old", id: "r6", submittedAt: "2026-11-21T13:07:27Z", report: Self.claimedDocument("r6")).isEmpty)
        #expect(try released.stored(["r6", "r-none"]) == ["r6"])

        // What the released relay stored is never overwritten by an older version; a newer one replaces it.
        #expect(try await relay.write([Self.report("r4", version: 2), Self.report("r5", version: 2)], box: "new") == .init(written: 0, alreadyStored: 2))
        #expect(try Self.life(server, "r4") == "found|4|false")
        #expect(try Self.life(server, "r5") == "withdrawn|3|true")
        #expect(try await relay.write([Self.report("r4", version: 5, status: .found, erased: true), Self.report("r6", version: 2)], box: "new")
            == .init(written: 2, alreadyStored: 0))
        #expect(try Self.life(server, "r4") == "found|5|true")
        #expect(try Self.life(server, "r6") == "missing|2|false")
        await relay.close()

        // A step that needs writers to know it stops the released relay, as it always did.
        try server.psql("INSERT INTO petspot_relay_schema (version) VALUES (\(CentralSchema.currentVersion + 1))")
        #expect(throws: ReleasedRelay.Refused.self) { try released.connect() }
    }

    @Test("a database this relay made first is written to by a relay of the first release too")
    func releasedRelayOnNewDatabase() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        try await relay.connect()
        await relay.close()
        let released = ReleasedRelay(server: server)
        try released.connect()
        #expect(try released.insert(box: "old", id: "r1", submittedAt: "2026-11-21T13:07:27Z", report: Self.claimedDocument("r1", version: 2)) == ["r1"])
        #expect(try Self.life(server, "r1") == "missing|2|false")
        #expect(try await relay.write([Self.report("r1", version: 1)], box: "new") == .init(written: 0, alreadyStored: 1))
        #expect(try server.psql("SELECT box FROM reports WHERE id = 'r1'") == "old")
        await relay.close()
    }
}

import Foundation
import Logging
import PetSpotJSON
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

    static func report(_ id: String, photo: [UInt8]? = pngBytes, submittedAt: String = "2026-11-21T13:07:27Z") -> ClaimedReport {
        ClaimedReport(
            id: id, submittedAt: submittedAt,
            report: ["id": .string(id), "flowId": .string("f-\(id)"), "submittedAt": .string(submittedAt), "values": ["species": "dog", "chipNumber": "616091234567890"]],
            photo: photo.map { .init(mediaType: "image/png", sha256: sha256Hex($0), base64: Data($0).base64EncodedString()) })
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
        #expect(try server.psql("SELECT count(*) FROM petspot_relay_schema") == "\(CentralSchema.currentVersion)")
        #expect(try server.psql("SELECT column_name || ':' || data_type || ':' || is_nullable FROM information_schema.columns WHERE table_name = 'reports' ORDER BY ordinal_position")
            .split(separator: "\n") == [
                "id:text:NO", "box:text:NO", "submitted_at:timestamp with time zone:NO", "report:jsonb:NO",
                "photo:bytea:YES", "photo_media_type:text:YES", "received_at:timestamp with time zone:NO",
            ])
        #expect(try server.psql("SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'reports'::regclass AND i.indisprimary") == "id")
    }

    @Test("a schema newer than the relay is refused, nothing written")
    func newerSchemaRefused() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        try await relay.connect()
        await relay.close()
        try server.psql("INSERT INTO petspot_relay_schema (version) VALUES (\(CentralSchema.currentVersion + 1))")
        do {
            _ = try await relay.write([Self.report("r1")], box: "a")
            Issue.record("wrote into a newer schema")
        } catch {
            #expect(error.kind == .schema)
            #expect(error.description.contains("newer than this relay knows"))
        }
        #expect(try server.psql("SELECT count(*) FROM reports") == "0")
    }

    @Test("a batch written twice stores each report once, photo bytes intact")
    func idempotentBatches() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        let big = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let batch = [Self.report("r1"), Self.report("r2", photo: nil), Self.report("r3", photo: big)]
        let first = try await relay.write(batch, box: "kiosk-1")
        #expect(first == .init(inserted: 3, alreadyStored: 0))
        // At-least-once: the same batch again, and one overlapping it.
        let again = try await relay.write(batch, box: "kiosk-1")
        #expect(again == .init(inserted: 0, alreadyStored: 3))
        let overlapping = try await relay.write([Self.report("r3", photo: big), Self.report("r4")], box: "kiosk-1")
        #expect(overlapping == .init(inserted: 1, alreadyStored: 1))
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
        #expect(try await relay.write([Self.report("r2"), Self.report("r1")], box: "a") == .init(inserted: 1, alreadyStored: 1))
        try server.kill()
        await #expect(throws: CentralDatabaseError.self) { try await relay.write([Self.report("r3")], box: "a") }
        try server.start()
        #expect(try await relay.write([Self.report("r3")], box: "a") == .init(inserted: 1, alreadyStored: 0))
        #expect(try server.psql("SELECT string_agg(id, ',' ORDER BY id) FROM reports") == "r1,r2,r3")
        await relay.close()
    }

    @Test("TLS verify-full: the right CA by IP and by name is accepted; a wrong CA is refused clearly")
    func tlsVerifyFull() async throws {
        let server = try PostgresServer(tls: true)
        let tls = try #require(server.tls)
        for host in ["127.0.0.1", "localhost"] {
            let relay = try database(server.url(sslMode: "verify-full", host: host, rootCert: tls.caCertificate))
            #expect(try await relay.write([Self.report("r-\(host)")], box: "a") == .init(inserted: 1, alreadyStored: 0))
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
        #expect(try await unchecked.write([Self.report("r-require")], box: "a") == .init(inserted: 1, alreadyStored: 0))
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
        #expect(try await relay.write([Self.report("r1")], box: "a") == .init(inserted: 1, alreadyStored: 0))
        await relay.close()
    }
}

extension CentralDatabaseTests {
    @Test("a report holding U+0000, which jsonb refuses, is stored with U+FFFD instead of stopping the queue")
    func nulCharacter() async throws {
        let server = try PostgresServer()
        let relay = try database(server.url())
        let report = ClaimedReport(id: "r-nul", submittedAt: "2026-11-21T13:07:27Z",
                                   report: ["id": "r-nul", "values": ["additionalDescription": "brown\u{0}collar", "a\u{0}": ["x\u{0}"]]], photo: nil)
        #expect(try await relay.write([report, Self.report("r-ok")], box: "a") == .init(inserted: 2, alreadyStored: 0))
        #expect(try server.psql("SELECT report->'values'->>'additionalDescription' FROM reports WHERE id = 'r-nul'") == "brown\u{FFFD}collar")
        #expect(try server.psql("SELECT report->'values'->'a\u{FFFD}'->>0 FROM reports WHERE id = 'r-nul'") == "x\u{FFFD}")
        await relay.close()
    }
}

@testable import PetSpotRelay
import Testing

/// libpq's words sorted into what the relay does: wait quietly (unreachable) or report an error
/// that needs someone (tls, server).
@Suite("libpq's connection errors, sorted")
struct CentralDatabaseErrorTests {
    @Test("each message gets the kind waiting would or would not mend", arguments: [
        ("connection to server at \"pgssl.example.org\" (10.0.0.5), port 5432 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n",
         CentralDatabaseError.Kind.unreachable),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: SSL SYSCALL error: EOF detected\n", .unreachable),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: FATAL:  remaining connection slots are reserved for non-replication superuser connections\n", .unreachable),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: FATAL:  too many connections for role \"relay\"\n", .unreachable),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: FATAL:  the database system is starting up\n", .unreachable),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: server is in hot standby mode\n", .unreachable),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: session is read-only\n", .server),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: FATAL:  password authentication failed for user \"relay\"\n", .server),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: FATAL:  no pg_hba.conf entry for host \"10.0.0.9\", user \"relay\", database \"central\", no encryption\n", .server),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: SSL error: certificate verify failed\n", .tls),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: server does not support SSL, but SSL was required\n", .tls),
        ("connection to server at \"db\" (10.0.0.5), port 5432 failed: fe_sendauth: no password supplied\n", .server),
    ])
    func sorted(_ message: String, _ kind: CentralDatabaseError.Kind) throws {
        let target = try PostgresConnectionString(parsing: "host=db dbname=central user=relay")
        let error = CentralDatabaseError(connecting: message, to: target)
        #expect(error.kind == kind, "\(error.reason)")
        #expect(!error.reason.contains("\n"))
    }

    @Test("a failed statement: SQLSTATE classes 57, 08 and 53 and a broken or standby session wait; the rest is a refusal")
    func statements() {
        #expect(CentralDatabaseError(failed: "terminating connection due to administrator command", sqlState: "57P01", at: "db:5432").kind == .unreachable)
        #expect(CentralDatabaseError(failed: "sorry, too many clients already", sqlState: "53300", at: "db:5432").kind == .unreachable)
        #expect(CentralDatabaseError(failed: "server closed the connection unexpectedly", sqlState: nil, at: "db:5432").kind == .unreachable)
        #expect(CentralDatabaseError(failed: "cannot execute INSERT in a read-only transaction", sqlState: "25006", at: "db:5432").kind == .server)
        #expect(CentralDatabaseError(failed: "cannot execute INSERT in a read-only transaction", sqlState: "25006", at: "db:5432", broken: true).kind == .unreachable)
        #expect(CentralDatabaseError(failed: "permission denied for table reports", sqlState: "42501", at: "db:5432").kind == .server)
    }
}

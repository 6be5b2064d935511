/// Why the central database could not take a batch, in words an operator can act on: libpq's
/// own message, sorted into what the relay does about it (wait for PostgreSQL, or report a
/// refusal that waiting will not mend).
public struct CentralDatabaseError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// TLS was refused or failed: a wrong CA, a name that does not match, no TLS on the server.
        case tls
        /// Nothing listens, the network is down, the connection broke, or no server takes writes.
        case unreachable
        /// PostgreSQL answered with an error (authentication, permissions, a bad statement).
        case server
        /// The schema has a step this relay would write wrongly under: it needs a newer relay.
        case schema
    }

    public let kind: Kind
    public let reason: String

    public var description: String { reason }

    public init(kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    /// A connection libpq could not make; `message` is PQerrorMessage's text, one part per
    /// host tried.
    init(connecting message: String, to target: PostgresConnectionString) {
        let at = target.servers
        let said = Self.oneLine(message)
        let lower = said.lowercased()
        if lower.contains("no password supplied") {
            self.init(kind: .server, "PostgreSQL at \(at) asks for a password and none was given: put it in the connection string, in a password file (~/.pgpass, passfile) or in the credential \(RelayConfiguration.passwordCredential) (docs/OPERATIONS.md)")
        } else if Self.outage(lower) {
            self.init(kind: .unreachable, "cannot reach PostgreSQL at \(at): \(said)")
        } else if lower.contains("does not support ssl") {
            self.init(kind: .tls, "TLS refused: the PostgreSQL server at \(at) does not offer TLS (sslmode=\(target.value("sslmode") ?? "prefer"))")
        } else if lower.contains("certificate verify failed") {
            let roots = target.value("sslrootcert").map { "sslrootcert \($0)" } ?? "~/.postgresql/root.crt"
            self.init(kind: .tls, "TLS refused: the certificate of the PostgreSQL server at \(at) did not verify against \(roots): \(said)")
        } else if lower.contains("does not match host name") {
            self.init(kind: .tls, "TLS refused: the certificate of the PostgreSQL server at \(at) does not name \(target.value("host") ?? "the host asked for"): \(said)")
        } else if lower.contains("root certificate file"), let roots = target.value("sslrootcert") {
            self.init(kind: .tls, "TLS refused: sslrootcert \(roots) cannot be read: \(said)")
        } else if lower.contains("root certificate file") {
            self.init(kind: .tls, "TLS refused: sslmode=\(target.value("sslmode") ?? "verify-full") needs the CA that signed the server's certificate: give sslrootcert=FILE, or put it in ~/.postgresql/root.crt: \(said)")
        } else if Self.tlsPhrases.contains(where: lower.contains) {
            self.init(kind: .tls, "TLS refused by or for the PostgreSQL server at \(at): \(said)")
        } else if lower.contains("fatal:") || lower.contains("session is read-only") {
            self.init(kind: .server, "PostgreSQL at \(at) refused the relay: \(said)")
        } else {
            self.init(kind: .unreachable, "cannot reach PostgreSQL at \(at): \(said)")
        }
    }

    /// A statement that failed: the server's message and SQLSTATE, or libpq's when the
    /// connection itself broke (`broken`: also a standby that no longer takes writes).
    init(failed message: String, sqlState: String?, at server: String, broken: Bool = false) {
        let said = Self.oneLine(message)
        let state = sqlState.map { " (SQLSTATE \($0))" } ?? ""
        // A server shutting down (57P01 on a fast stop), a broken connection (08…) or one out of
        // resources (53…, too many connections) is an outage, not a refusal.
        if broken || sqlState == nil || ["57", "08", "53"].contains(sqlState.map { String($0.prefix(2)) } ?? "") {
            self.init(kind: .unreachable, "PostgreSQL at \(server) is not available: \(said)\(state)")
        } else {
            self.init(kind: .server, "PostgreSQL at \(server) refused: \(said)\(state)")
        }
    }

    /// A server that is starting, stopping, recovering, full or a standby, or a network that
    /// failed: waiting mends it. Checked before any TLS wording, which a reset connection
    /// ("SSL SYSCALL error") or a host's name may also hold.
    private static func outage(_ lower: String) -> Bool {
        ["starting up", "shutting down", "recovery mode", "too many clients", "remaining connection slots",
         "too many connections", "terminating connection", "hot standby", "not yet accepting connections",
         "connection refused", "timeout expired", "could not translate host name", "no route to host",
         "network is unreachable", "ssl syscall error", "server closed the connection", "could not receive data",
         "could not send data", "connection reset", "connection timed out"].contains { lower.contains($0) }
    }

    /// libpq's own words for a TLS failure (not any "ssl" in the text: a host may be called so).
    private static let tlsPhrases = ["ssl error", "ssl negotiation", "sslmode value", "server certificate",
                                     "channel binding", "could not load private key", "could not open certificate"]

    /// libpq's multi-line text on one line: log lines and the state file hold one line each.
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingPrefix(while: \.isWhitespace) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}

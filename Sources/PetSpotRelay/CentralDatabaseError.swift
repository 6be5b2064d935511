#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOSSL
import PostgresNIO

/// Why the central database could not take a batch, in words an operator can act on.
///
/// PSQLError's own description is deliberately vague (it may otherwise leak query text); this
/// reads its code, the server's message and the underlying error instead.
public struct CentralDatabaseError: Error, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// TLS was refused or failed: a wrong CA, a name that does not match, no TLS on the server.
        case tls
        /// Nothing listens, the network is down, or the connection broke.
        case unreachable
        /// PostgreSQL answered with an error (authentication, permissions, a bad statement).
        case server
        /// The schema is newer than this relay.
        case schema
    }

    public let kind: Kind
    public let reason: String

    public var description: String { reason }

    public init(kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    init(_ error: any Error, url: PostgresURL) {
        if let error = error as? CentralDatabaseError {
            self = error
            return
        }
        if let tooNew = error as? SchemaTooNew {
            self.init(kind: .schema, tooNew.description)
            return
        }
        let at = "\(url.host):\(url.port)"
        guard let psql = error as? PSQLError else {
            self.init(Self.classify(error, at: at, url: url))
            return
        }
        switch psql.code {
        case .authMechanismRequiresPassword:
            self.init(kind: .server, "PostgreSQL at \(at) asks for a password and none was given: put it in the URL or in the credential \(RelayConfiguration.passwordCredential) (docs/OPERATIONS.md)")
        case .sslUnsupported:
            self.init(kind: .tls, "TLS refused: the PostgreSQL server at \(at) does not offer TLS (sslmode=\(url.sslMode.rawValue))")
        case .server:
            let message = psql.serverInfo?[.message] ?? "no message"
            let sqlState = psql.serverInfo?[.sqlState] ?? ""
            let state = sqlState.isEmpty ? "" : " (SQLSTATE \(sqlState))"
            // A server shutting down (57P01 on a fast stop), a broken connection (08…) or one
            // out of resources (53…, too many connections) is an outage, not a refusal.
            if ["57", "08", "53"].contains(String(sqlState.prefix(2))) {
                self.init(kind: .unreachable, "PostgreSQL at \(at) is not available: \(message)\(state)")
            } else {
                self.init(kind: .server, "PostgreSQL at \(at) refused: \(message)\(state)")
            }
        default:
            if let underlying = psql.underlying {
                self.init(Self.classify(underlying, at: at, url: url))
            } else {
                self.init(kind: .unreachable, "the connection to PostgreSQL at \(at) failed: \(psql.code)")
            }
        }
    }

    private init(_ pair: (Kind, String)) {
        self.init(kind: pair.0, pair.1)
    }

    private static func classify(_ error: any Error, at: String, url: PostgresURL) -> (Kind, String) {
        if let ssl = error as? NIOSSLError {
            let trust = url.sslRootCert.map { " against sslrootcert \($0)" } ?? " against the system's trusted roots"
            switch ssl {
            case .handshakeFailed(let inner):
                return (.tls, "TLS refused: the certificate of the PostgreSQL server at \(at) did not verify\(trust): \(inner)")
            default:
                return (.tls, "TLS refused by or for the PostgreSQL server at \(at): \(ssl)")
            }
        }
        if let extra = error as? NIOSSLExtraError {
            return (.tls, "TLS refused: the certificate of the PostgreSQL server at \(at) does not name \(url.host): \(extra)")
        }
        if let io = error as? IOError {
            return (.unreachable, "cannot reach PostgreSQL at \(at): \(plain(io))")
        }
        if let connect = error as? NIOConnectionError {
            let reasons = connect.connectionErrors.map { plain($0.error) }
            let reason = reasons.first ?? connect.dnsAAAAError.map { "\($0)" } ?? connect.dnsAError.map { "\($0)" } ?? "no address"
            return (.unreachable, "cannot reach PostgreSQL at \(at): \(reason)")
        }
        if error is ChannelError {
            return (.unreachable, "the connection to PostgreSQL at \(at) broke: \(error)")
        }
        return (.unreachable, "PostgreSQL at \(at): \(String(reflecting: error))")
    }

    /// An IOError as the system says it ("Connection refused"), without NIO's wrapping.
    private static func plain(_ error: any Error) -> String {
        guard let io = error as? IOError else { return "\(error)" }
        return String(cString: strerror(io.errnoCode))
    }
}

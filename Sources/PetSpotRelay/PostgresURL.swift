/// Where the central PostgreSQL is and how to reach it, read from a libpq-style URL:
/// `postgres://user:password@host:port/database?sslmode=verify-full&sslrootcert=/path/ca.pem`.
///
/// Parsed here rather than with postgres-kit's parser: that package would bring sql-kit and
/// async-kit into the relay for one function, and its parser accepts less than libpq's
/// (no sslrootcert). Only what the relay uses is accepted; anything else is refused by name.
public struct PostgresURL: Sendable, Equatable {
    public enum SSLMode: String, Sendable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS, without checking who answers: protects against listeners, not impostors.
        case require
        /// TLS, with the server's certificate checked against `sslrootcert` (or the system's
        /// roots) and its name against the host.
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var sslMode: SSLMode
    public var sslRootCert: String?

    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String,
                sslMode: SSLMode = .disable, sslRootCert: String? = nil) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.sslMode = sslMode
        self.sslRootCert = sslRootCert
    }

    /// The URL with its password replaced, fit for a log line or a status page.
    public var redacted: String {
        var text = "postgres://\(user)\(password == nil ? "" : ":***")@\(host.contains(":") ? "[\(host)]" : host):\(port)/\(database)?sslmode=\(sslMode.rawValue)"
        if let sslRootCert { text += "&sslrootcert=\(sslRootCert)" }
        return text
    }

    public init(parsing text: String) throws(PostgresURLError) {
        func fail(_ problem: String) -> PostgresURLError { PostgresURLError(url: text, problem: problem) }
        var rest = Substring(text)
        guard let scheme = rest.firstRange(of: "://") else {
            throw fail("expected postgres://user:password@host:port/database")
        }
        let schemeName = rest[..<scheme.lowerBound].lowercased()
        guard schemeName == "postgres" || schemeName == "postgresql" else {
            throw fail("the scheme must be postgres:// or postgresql://")
        }
        rest = rest[scheme.upperBound...]

        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard !rest.contains("#") else { throw fail("a fragment (#...) has no meaning here") }
        guard let slash = rest.firstIndex(of: "/") else { throw fail("the database name is missing (…/database)") }
        let authority = rest[..<slash]
        let databaseText = rest[rest.index(after: slash)...]
        guard !databaseText.isEmpty else { throw fail("the database name is missing (…/database)") }
        guard !databaseText.contains("/") else { throw fail("the database name cannot contain \"/\"") }
        database = try Self.decode(databaseText, part: "database name", url: text)

        // The last "@" ends the user information: a password may hold an encoded "@" only.
        guard let at = authority.lastIndex(of: "@") else {
            throw fail("the user name is missing (postgres://user@host/database)")
        }
        let userInfo = authority[..<at]
        var hostPort = authority[authority.index(after: at)...]
        if let colon = userInfo.firstIndex(of: ":") {
            user = try Self.decode(userInfo[..<colon], part: "user name", url: text)
            password = try Self.decode(userInfo[userInfo.index(after: colon)...], part: "password", url: text)
        } else {
            user = try Self.decode(userInfo, part: "user name", url: text)
            password = nil
        }
        guard !user.isEmpty else { throw fail("the user name is empty") }

        var portText: Substring?
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw fail("an IPv6 address opened with \"[\" is not closed with \"]\"") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("expected \":port\" after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else {
            if let colon = hostPort.lastIndex(of: ":") {
                portText = hostPort[hostPort.index(after: colon)...]
                hostPort = hostPort[..<colon]
            }
            host = try Self.decode(hostPort, part: "host", url: text)
        }
        guard !host.isEmpty else { throw fail("the host is missing") }
        if let portText {
            guard let port = Int(portText), (1...65_535).contains(port) else {
                throw fail("the port is not a number from 1 to 65535")
            }
            self.port = port
        } else {
            port = 5432
        }

        sslMode = .disable
        sslRootCert = nil
        var seen: Set<String> = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else { throw fail("a parameter after \"?\" has no value (name=value)") }
            let name = String(pair[..<equals])
            let shownName = PostgresURLError.shown(name: name)
            let value = try Self.decode(pair[pair.index(after: equals)...], part: "parameter \(shownName)", url: text)
            guard seen.insert(name).inserted else { throw fail("the parameter \(shownName) is given twice") }
            switch name {
            case "sslmode":
                guard let mode = SSLMode(rawValue: value) else {
                    throw fail("sslmode must be one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                sslMode = mode
            case "sslrootcert":
                guard !value.isEmpty else { throw fail("sslrootcert is empty; give the path of a PEM file") }
                sslRootCert = value
            default:
                throw fail("unknown parameter \(shownName); known: sslmode, sslrootcert")
            }
        }
        if sslRootCert != nil, sslMode != .verifyFull {
            throw fail("sslrootcert is only used with sslmode=verify-full")
        }
    }

    /// Percent-decoding, refusing broken escapes and bytes that are not UTF-8.
    private static func decode(_ text: Substring, part: String, url: String) throws(PostgresURLError) -> String {
        guard text.contains("%") else { return String(text) }
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next().flatMap(hexValue), let low = utf8.next().flatMap(hexValue) else {
                throw PostgresURLError(url: url, problem: "the \(part) has a \"%\" that is not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw PostgresURLError(url: url, problem: "the \(part) is not UTF-8 once decoded")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// A URL that cannot be used, with what is wrong. Nothing of the text itself is repeated: a
/// string that does not parse may have its password anywhere (a "/" or "?" in it moves the
/// parts), so only what the parser knows to be safe is named.
public struct PostgresURLError: Error, Sendable, Equatable, CustomStringConvertible {
    public let problem: String

    init(url: String, problem: String) {
        self.problem = problem
    }

    public var description: String { "the PostgreSQL URL cannot be used: \(problem)" }

    /// A parameter's name, when it may be shown: a plain lower-case word, as every libpq
    /// parameter is; anything else is described, not repeated.
    static func shown(name: some StringProtocol) -> String {
        let plain = !name.isEmpty && name.count <= 40 && name.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
        return plain ? "\"\(name)\"" : "(a name that is not a plain word)"
    }
}

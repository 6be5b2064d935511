import CLibPQ

/// Where the central PostgreSQL is and how to reach it: any connection string libpq takes, a
/// URL (`postgresql://relay@db1,db2/central?target_session_attrs=read-write`) or key=value
/// pairs (`host=db user=relay dbname=central sslmode=verify-full`), read by libpq itself
/// (PQconninfoParse), so the relay accepts exactly what psql accepts. What the string leaves
/// out, libpq takes from its environment (PGHOST, PGSERVICE, ~/.pgpass, …) when connecting.
public struct PostgresConnectionString: Sendable, Equatable {
    /// The text as configured; it may hold a password, so it is never shown.
    public let text: String
    /// The parameters the text sets, in libpq's order, with which ones are secret.
    public let parameters: [Parameter]
    /// The password from systemd's credential, sent after the text's own parameters.
    public private(set) var credentialPassword: String?

    public struct Parameter: Sendable, Equatable {
        public let keyword: String
        public let value: String
        /// libpq marks a password this way (dispchar "*"): shown as ***.
        public let isSecret: Bool
    }

    public init(parsing text: String) throws(PostgresConnectionStringError) {
        var message: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(text, &message) else {
            let reason = message.map { String(cString: $0) } ?? "libpq is out of memory"
            if let message { PQfreemem(message) }
            throw PostgresConnectionStringError(problem: Self.withoutQuotedText(reason))
        }
        defer { PQconninfoFree(options) }
        var parameters: [Parameter] = []
        Self.forEach(in: options) { option in
            guard let value = option.val else { return }
            let secret = option.dispchar.map { String(cString: $0) } == "*"
            parameters.append(Parameter(keyword: String(cString: option.keyword), value: String(cString: value), isSecret: secret))
        }
        self.text = text
        self.parameters = parameters
        // libpq ends a URL's user part at the first "@" or "/": an unencoded "@" in a password
        // leaves the rest of the password in the host, port or database name, which are shown.
        for keyword in ["host", "hostaddr", "port", "dbname"] where value(keyword)?.contains("@") == true {
            throw PostgresConnectionStringError(problem: "an \"@\" is left after the user part; percent-encode @, / and ? in a URL's password (%40, %2F, %3F)")
        }
        if let ports = value("port") {
            // libpq reads a port only when it connects; a typo should stop the start instead.
            for port in ports.split(separator: ",", omittingEmptySubsequences: false) where !port.isEmpty {
                guard let number = Int(port), (1...65_535).contains(number) else {
                    throw PostgresConnectionStringError(problem: "a port is not a number from 1 to 65535")
                }
            }
        }
    }

    /// The value the text gives `keyword`, if any.
    public func value(_ keyword: String) -> String? {
        parameters.first { $0.keyword == keyword }?.value
    }

    public var hasPassword: Bool { value("password") != nil || credentialPassword != nil }

    /// This connection string with the password of systemd's credential added.
    public func adding(credentialPassword password: String) -> PostgresConnectionString {
        var copy = self
        copy.credentialPassword = password
        return copy
    }

    /// The parameters as key=value pairs with every secret as ***, fit for a log line or a
    /// status page: built from what libpq parsed, never from the text.
    public var masked: String {
        var pairs = parameters.map { "\($0.keyword)=\($0.isSecret ? "***" : Self.quoted($0.value))" }
        if credentialPassword != nil { pairs.append("password=*** (credential)") }
        return pairs.isEmpty ? "(libpq's defaults)" : pairs.joined(separator: " ")
    }

    /// The servers the string names, as host:port, for messages: "db1:5432,db2:5432".
    public var servers: String {
        let hosts = (value("host") ?? value("hostaddr") ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let ports = (value("port") ?? "").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !(hosts.count == 1 && hosts[0].isEmpty) else {
            return "the default server (PGHOST, else the local socket)"
        }
        return hosts.enumerated().map { index, host in
            let port = ports.count == hosts.count ? ports[index] : (ports.first ?? "")
            return Self.server(host: host.isEmpty ? "localhost" : host, port: port.isEmpty ? "5432" : port)
        }.joined(separator: ",")
    }

    /// A value as libpq's key=value syntax needs it: in single quotes when empty or holding a
    /// space, a quote or a backslash.
    static func quoted(_ value: String) -> String {
        guard value.isEmpty || value.contains(where: { $0 == " " || $0 == "'" || $0 == "\\" }) else { return value }
        return "'" + value.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    /// libpq's parse error with each quoted piece of the text left out unless it is one of
    /// libpq's keywords or the one character libpq looked for ("=", "]"): a string that does
    /// not parse may have its password anywhere.
    static func withoutQuotedText(_ message: String) -> String {
        let trimmed = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        var result = ""
        var inQuote = false
        var quoted = ""
        for character in trimmed {
            if character == "\"" {
                if inQuote {
                    result += Self.keywords.contains(quoted) || Self.isPunctuation(quoted) ? "\"\(quoted)\"" : "(not shown)"
                    quoted = ""
                }
                inQuote.toggle()
            } else if inQuote {
                quoted.append(character)
            } else {
                result.append(character)
            }
        }
        if inQuote { result += "(not shown)" }
        return result
    }

    private static func isPunctuation(_ text: String) -> Bool {
        text.count == 1 && text.allSatisfy { $0.isASCII && ($0.isPunctuation || $0.isSymbol) }
    }

    /// host:port as messages show a server, an IPv6 address in brackets.
    static func server(host: String, port: String) -> String {
        "\(host.contains(":") && !host.hasPrefix("/") ? "[\(host)]" : host):\(port)"
    }

    /// Calls `body` with each option of a PQconninfoOption array, up to the one without a keyword.
    private static func forEach(in options: UnsafeMutablePointer<PQconninfoOption>, _ body: (PQconninfoOption) -> Void) {
        var option = options
        while option.pointee.keyword != nil {
            body(option.pointee)
            option += 1
        }
    }

    /// Every keyword this libpq knows (PQconndefaults).
    static let keywords: Set<String> = {
        var names: Set<String> = []
        guard let defaults = PQconndefaults() else { return names }
        defer { PQconninfoFree(defaults) }
        forEach(in: defaults) { names.insert(String(cString: $0.keyword)) }
        return names
    }()
}

/// A connection string libpq cannot use, with what is wrong and nothing of the text itself.
public struct PostgresConnectionStringError: Error, Sendable, Equatable, CustomStringConvertible {
    public let problem: String

    public var description: String { "the PostgreSQL connection string cannot be used: \(problem)" }
}

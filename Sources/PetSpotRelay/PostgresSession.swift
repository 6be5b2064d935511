#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import Logging

/// One libpq connection with the few calls the relay makes, all blocking: `CentralDatabase`
/// runs them on a thread of its own, never on an event loop or the cooperative pool.
///
/// Blocking calls on one thread rather than libpq's non-blocking API driven by an event loop:
/// the relay makes one call at a time, and while connecting libpq may change its socket (each
/// host of a multi-host string, each TLS or GSSAPI attempt), which a loop would have to follow.
/// Bounded waits come from libpq's own settings: connect_timeout and TCP keepalives, which the
/// relay sets unless the connection string does.
///
/// Not thread-safe, as libpq's PGconn is not: `CentralDatabase` hands it to one thread at a
/// time, hence @unchecked.
final class PostgresSession: @unchecked Sendable {
    private let connection: OpaquePointer
    private let notices: NoticeSink
    private var closed = false

    /// libpq's output buffer grows to the largest message sent and never shrinks; a session that
    /// sent a statement larger than this is closed after it, so that the memory goes back.
    static let keptOutputBytes = 1 << 20

    /// What the relay asks of every connection unless the connection string says otherwise:
    /// its name in pg_stat_activity, and waits that end (libpq waits forever by default).
    static let fallbacks: [(String, String)] = [
        ("fallback_application_name", "petspot-relay"),
        ("connect_timeout", "10"),
        ("keepalives_idle", "30"),
        ("keepalives_interval", "10"),
        ("keepalives_count", "3"),
        // Keepalives say nothing while sent data waits for its acknowledgement: a batch sent
        // to a peer that vanished would otherwise wait for the kernel's retries (~15 min).
        ("tcp_user_timeout", "60000"),
        // Of several hosts, the one that takes writes; the relay writes nothing anywhere else.
        ("target_session_attrs", "read-write"),
    ]

    /// Connects, trying each host of the string as libpq does; throws what libpq said.
    static func connect(_ target: PostgresConnectionString, logger: Logger) throws(CentralDatabaseError) -> PostgresSession {
        // The string is expanded in place of dbname: its parameters override the fallbacks,
        // and those after it (the credential's password, UTF-8) override it.
        var pairs = fallbacks
        pairs.append(("dbname", target.text))
        if let password = target.credentialPassword { pairs.append(("password", password)) }
        pairs.append(("client_encoding", "UTF8"))
        let connection = withCStrings(pairs.map(\.0)) { keywords in
            withCStrings(pairs.map(\.1)) { values in PQconnectdbParams(keywords, values, 1) }
        }
        guard let connection else {
            throw CentralDatabaseError(kind: .unreachable, "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw CentralDatabaseError(connecting: message, to: target)
        }
        return PostgresSession(connection, logger: logger)
    }

    private init(_ connection: OpaquePointer, logger: Logger) {
        self.connection = connection
        notices = NoticeSink(logger: logger)
        // libpq prints the server's notices on stderr unless told where they go.
        PQsetNoticeReceiver(connection, { context, result in
            guard let context, let result, let text = PQresultErrorMessage(result) else { return }
            let severity = PQresultErrorField(result, Int32(UInt8(ascii: "V"))).map { String(cString: $0) }
            Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue().received(String(cString: text), warning: severity == "WARNING")
        }, Unmanaged.passUnretained(notices).toOpaque())
    }

    deinit {
        close()
    }

    /// Ends the connection (PQfinish); the session is unusable after.
    func close() {
        guard !closed else { return }
        closed = true
        PQfinish(connection)
    }

    /// The server this session reached, as host:port.
    var server: String {
        guard !closed else { return "?" }
        let host = PQhost(connection).map { String(cString: $0) } ?? "?"
        let port = PQport(connection).map { String(cString: $0) } ?? "?"
        return PostgresConnectionString.server(host: host, port: port)
    }

    /// False once the connection broke: the next call needs a new session.
    var isUsable: Bool { !closed && PQstatus(connection) == CONNECTION_OK && PQtransactionStatus(connection) == PQTRANS_IDLE }

    /// Runs SQL without parameters (one or more statements; the rows of the last).
    @discardableResult
    func execute(_ sql: String) throws(CentralDatabaseError) -> PostgresRows {
        try rows(of: PQexec(connection, sql))
    }

    /// Runs one statement whose parameters travel as text in binary format (the bytes as they
    /// are, with their length): no escaping, no terminating NUL, no copy per parameter.
    @discardableResult
    func execute(_ sql: String, _ parameters: PostgresParameters) throws(CentralDatabaseError) -> PostgresRows {
        let result = parameters.withPointers { values, lengths, formats in
            // 25: text. PostgreSQL casts it where the statement says (::jsonb, ::timestamptz).
            let types = [Oid](repeating: 25, count: parameters.count)
            return PQexecParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 0)
        }
        return try rows(of: result)
    }

    /// Runs one statement with parameters; every column of every row as text (nil: NULL).
    func table(_ sql: String, _ parameters: PostgresParameters) throws(CentralDatabaseError) -> [[String?]] {
        let result = parameters.withPointers { values, lengths, formats in
            let types = [Oid](repeating: 25, count: parameters.count)
            return PQexecParams(connection, sql, Int32(parameters.count), types, values, lengths, formats, 0)
        }
        var table: [[String?]] = []
        _ = try rows(of: result) { result in
            let (rowCount, columnCount) = (PQntuples(result), PQnfields(result))
            table.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount {
                table.append((0..<columnCount).map { column in
                    PQgetisnull(result, row, column) == 0 ? String(cString: PQgetvalue(result, row, column)) : nil
                })
            }
        }
        return table
    }

    /// Asks the server to tell this session of every NOTIFY on `channel` (an identifier of ours).
    func listen(_ channel: String) throws(CentralDatabaseError) {
        try execute("LISTEN \(channel)")
        PostgresSession.drain(connection)
    }

    /// Waits up to `timeoutMs` for a notification of a channel listened to; true when one (or
    /// more) came, all of them taken. Throws when the connection broke meanwhile.
    func waitForNotification(timeoutMs: Int32) throws(CentralDatabaseError) -> Bool {
        guard !closed else { throw CentralDatabaseError(kind: .unreachable, "the session is closed") }
        // Those read with a result already, or waiting in the socket.
        if PQconsumeInput(connection) == 0 { throw brokenWhileWaiting() }
        if PostgresSession.drain(connection) { return true }
        var descriptor = pollfd(fd: PQsocket(connection), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw brokenWhileWaiting() }
        let ready = poll(&descriptor, 1, timeoutMs)
        if ready < 0, errno != EINTR { throw brokenWhileWaiting() }
        guard ready > 0 else { return false }
        if PQconsumeInput(connection) == 0 { throw brokenWhileWaiting() }
        return PostgresSession.drain(connection)
    }

    private func brokenWhileWaiting() -> CentralDatabaseError {
        CentralDatabaseError(failed: String(cString: PQerrorMessage(connection)), sqlState: nil, at: server, broken: true)
    }

    /// Takes every notification libpq holds; true when there was one.
    @discardableResult
    private static func drain(_ connection: OpaquePointer) -> Bool {
        var any = false
        while let notification = PQnotifies(connection) {
            any = true
            PQfreemem(notification)
        }
        return any
    }

    private func rows(of result: OpaquePointer?) throws(CentralDatabaseError) -> PostgresRows {
        var firstColumn: [String] = []
        _ = try rows(of: result) { result in
            let rowCount = PQntuples(result)
            firstColumn.reserveCapacity(Int(rowCount))
            for row in 0..<rowCount where PQgetisnull(result, row, 0) == 0 {
                firstColumn.append(String(cString: PQgetvalue(result, row, 0)))
            }
        }
        return PostgresRows(firstColumn: firstColumn)
    }

    /// Checks a result, hands one that has columns to `read`, and clears it.
    private func rows(of result: OpaquePointer?, read: (OpaquePointer) -> Void) throws(CentralDatabaseError) -> Bool {
        guard let result else {
            throw CentralDatabaseError(failed: String(cString: PQerrorMessage(connection)), sqlState: nil, at: server)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            guard PQnfields(result) > 0 else { return false }
            read(result)
            return true
        default:
            let sqlState = PQresultErrorField(result, Self.sqlStateField).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Self.messageField).map { String(cString: $0) }
            let message = primary ?? String(cString: PQresultErrorMessage(result))
            // Read-only (25006) is an outage on a standby, which a failover may promote, and a
            // refusal anywhere else (a role or database with default_transaction_read_only).
            let standby = PQparameterStatus(connection, "in_hot_standby").map { String(cString: $0) } == "on"
            let broken = PQstatus(connection) != CONNECTION_OK || (sqlState == "25006" && standby)
            throw CentralDatabaseError(failed: message, sqlState: sqlState, at: server, broken: broken)
        }
    }

    // PG_DIAG_SQLSTATE and PG_DIAG_MESSAGE_PRIMARY, character macros Swift does not import.
    private static let sqlStateField = Int32(UInt8(ascii: "C"))
    private static let messageField = Int32(UInt8(ascii: "M"))

    /// The server's notices into the relay's log: a WARNING at warning level (among them
    /// "canceling wait for synchronous replication", a commit not yet on the standby), the
    /// rest at debug.
    private final class NoticeSink {
        let logger: Logger
        init(logger: Logger) { self.logger = logger }
        func received(_ text: String, warning: Bool) {
            let line = "PostgreSQL says: \(text.split(whereSeparator: \.isNewline).joined(separator: "; "))"
            if warning { logger.warning("\(line)") } else { logger.debug("\(line)") }
        }
    }
}

/// What the relay reads of a result (ids, a version, a setting): the first column as text, rows
/// where it is NULL left out.
struct PostgresRows: Sendable {
    let firstColumn: [String]
}

/// Parameters of one statement in one buffer: each a byte range or NULL.
struct PostgresParameters {
    /// Starts with one byte that is no parameter's, so that the buffer always has an address:
    /// an empty value needs a pointer that is not NULL, or libpq would read it as NULL.
    private var bytes: [UInt8] = [0]
    private var ranges: [Range<Int>?] = []

    init(reservingBytes capacity: Int = 0) {
        bytes.reserveCapacity(capacity + 1)
    }

    var count: Int { ranges.count }

    /// The bytes of every parameter together.
    var byteCount: Int { bytes.count - 1 }

    /// Appends a parameter; returns its placeholder ($1, $2, …).
    @discardableResult
    mutating func append(_ value: String?) -> String {
        guard let value else {
            ranges.append(nil)
            return "$\(ranges.count)"
        }
        let start = bytes.count
        bytes.append(contentsOf: value.utf8)
        ranges.append(start..<bytes.count)
        return "$\(ranges.count)"
    }

    func withPointers<R>(_ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<Int32>, UnsafePointer<Int32>) -> R) -> R {
        bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = ranges.map { range in range.map { base + $0.lowerBound } }
            let lengths = ranges.map { Int32($0?.count ?? 0) }
            let formats = [Int32](repeating: 1, count: ranges.count)
            return body(values, lengths, formats)
        }
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
    return body(pointers)
}


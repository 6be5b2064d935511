import CSQLite3

/// One SQLite connection that keeps its prepared statements.
///
/// Our own rather than SQLiteNIO: SQLiteNIO prepares and finalizes every statement, and runs each
/// as a work item of its thread pool, so a group of submits cost a prepare and two thread hops per
/// statement (docs/PERFORMANCE.md, "Against the disk's pace"). Here the owner runs a whole
/// transaction in one turn of its own thread, with statements prepared once. It is SQLite as Debian
/// ships it (libsqlite3-0): its security updates come with the system's.
///
/// Not thread-safe by itself: its owner uses it from one thread at a time (the report store's
/// database thread). It is `@unchecked Sendable` so that it can be handed to that thread.
public final class SQLiteDatabase: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Prepared statements by their SQL, reset after each use, with when each was last used.
    private var statements: [String: (statement: OpaquePointer, lastUse: UInt64)] = [:]
    /// Counts the statements run: what "last used" is told in.
    private var uses: UInt64 = 0
    private var isClosed = false

    /// Statements kept prepared. The store's fixed statements are fewer; SQL made with a varying
    /// number of placeholders (IN lists) can grow past it, and then the least recently used goes.
    public static let maxKeptStatements = 256

    /// Opens the file at `path`, creating it when missing. No URI and no `:memory:`: a path is a
    /// file's path only when it does not read as those, so callers hand in absolute or "./" paths.
    public init(path: String) throws {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let result = sqlite3_open_v2(path, &opened, flags, nil)
        guard result == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_close_v2(opened)
            throw SQLiteError(code: result, message: message)
        }
        handle = opened
    }

    deinit {
        guard !isClosed else { return }
        finalizeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs one SQL statement with `binds` bound to its `?` in order, to its end.
    public func execute(_ sql: String, _ binds: [SQLiteValue] = []) throws {
        try run(sql, binds) { _ in }
    }

    /// The rows of one SQL statement with `binds` bound to its `?` in order.
    public func rows(_ sql: String, _ binds: [SQLiteValue] = []) throws -> [SQLiteRow] {
        var rows: [SQLiteRow] = []
        try run(sql, binds) { rows.append($0) }
        return rows
    }

    /// The first row of one SQL statement, nil when it has none. The statement runs to its end.
    public func row(_ sql: String, _ binds: [SQLiteValue] = []) throws -> SQLiteRow? {
        var first: SQLiteRow?
        try run(sql, binds) { row in if first == nil { first = row } }
        return first
    }

    /// Runs `body` in one IMMEDIATE transaction: no other writer comes between its reads and its
    /// writes. Commits when it returns; rolls back when it or the commit throws, so no transaction
    /// is ever left open.
    public func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // Fails harmlessly when SQLite already rolled back (after an I/O error, for one).
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Whether a transaction is open: false after COMMIT or ROLLBACK, and after SQLite rolled one
    /// back by itself (a trigger's `RAISE(ROLLBACK)`, a full disk in some cases).
    public var isInTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }

    /// Finalizes the kept statements and closes the connection. When SQLite refuses (a statement
    /// still open), the connection stays usable and open.
    public func close() throws {
        guard !isClosed else { return }
        finalizeAll()
        let result = sqlite3_close(handle)
        guard result == SQLITE_OK else { throw failure(result) }
        isClosed = true
    }

    // MARK: - Statements

    private func run(_ sql: String, _ binds: [SQLiteValue], _ onRow: (SQLiteRow) -> Void) throws {
        guard !isClosed else { throw SQLiteError(code: SQLITE_MISUSE, message: "the connection is closed") }
        let (statement, kept) = try prepared(sql)
        // Bindings cleared too: a blob bound in place must not outlive this call.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
            if !kept { sqlite3_finalize(statement) }
        }
        let expected = Int(sqlite3_bind_parameter_count(statement))
        guard expected == binds.count else {
            throw SQLiteError(
                code: SQLITE_RANGE, message: "\(binds.count) values for the \(expected) parameters of \"\(sql.prefix(80))\"")
        }
        try bindCopied(binds, to: statement)
        try withBlobsBound(binds[...], to: statement) { try step(statement, onRow) }
    }

    /// The statement of `sql`, and whether it is kept for the next run of the same text.
    private func prepared(_ sql: String) throws -> (OpaquePointer, kept: Bool) {
        uses &+= 1
        if let kept = statements[sql] {
            statements[sql]?.lastUse = uses
            return (kept.statement, true)
        }
        // SQLite does a PRAGMA's work as it prepares it (busy_timeout, say) and prepares it again
        // for every run: keeping one saves nothing and would only hold its memory.
        let keep = !sql.drop(while: \.isWhitespace).prefix(6).uppercased().hasPrefix("PRAGMA")
        if keep, statements.count >= Self.maxKeptStatements,
           let oldest = statements.min(by: { $0.value.lastUse < $1.value.lastUse })
        {
            sqlite3_finalize(oldest.value.statement)
            statements[oldest.key] = nil
        }
        var prepared: OpaquePointer?
        let (result, rest) = sql.withCString { text -> (Int32, String) in
            var tail: UnsafePointer<CChar>?
            let flags = keep ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
            let result = sqlite3_prepare_v3(handle, text, -1, flags, &prepared, &tail)
            return (result, tail.map { String(cString: $0) } ?? "")
        }
        guard result == SQLITE_OK else { throw failure(result) }
        guard let prepared else { throw SQLiteError(code: SQLITE_MISUSE, message: "no statement in \"\(sql.prefix(80))\"") }
        // One statement a call: a second one would be silently left out.
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            sqlite3_finalize(prepared)
            throw SQLiteError(code: SQLITE_MISUSE, message: "more than one statement in \"\(sql.prefix(80))\"")
        }
        if keep { statements[sql] = (prepared, uses) }
        return (prepared, keep)
    }

    private func finalizeAll() {
        for kept in statements.values { sqlite3_finalize(kept.statement) }
        statements.removeAll()
    }

    /// Binds every value but the blobs, which `withBlobsBound` binds in place. Text is copied:
    /// it is short, and a Swift string has no address that outlives a call.
    private func bindCopied(_ binds: [SQLiteValue], to statement: OpaquePointer) throws {
        for (offset, value) in binds.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .integer(let integer):
                result = sqlite3_bind_int64(statement, index, Int64(integer))
            case .float(let double):
                result = sqlite3_bind_double(statement, index, double)
            case .text(var text):
                result = text.withUTF8 { bytes -> Int32 in
                    guard let count = Int32(exactly: bytes.count) else { return SQLITE_TOOBIG }
                    // A nil base address would bind NULL, not the empty text.
                    guard let base = bytes.baseAddress else { return petspot_sqlite3_bind_text_copy(statement, index, "", 0) }
                    return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                        petspot_sqlite3_bind_text_copy(statement, index, $0, count)
                    }
                }
            case .null:
                result = sqlite3_bind_null(statement, index)
            case .blob:
                continue
            }
            guard result == SQLITE_OK else { throw failure(result) }
        }
    }

    /// Binds the blobs of `binds` where they are, for as long as `body` runs: a photo is not
    /// copied on its way to the file.
    private func withBlobsBound<T>(_ binds: ArraySlice<SQLiteValue>, to statement: OpaquePointer, _ body: () throws -> T) throws -> T {
        for offset in binds.indices {
            guard case .blob(let bytes) = binds[offset] else { continue }
            let rest = binds[(offset + 1)...]
            return try bytes.withUnsafeBytes { raw -> T in
                let index = Int32(offset + 1)
                let result: Int32
                if let base = raw.baseAddress, let count = Int32(exactly: raw.count) {
                    result = petspot_sqlite3_bind_blob_in_place(statement, index, base, count)
                } else if raw.count == 0 {
                    // A nil address would bind NULL, not the empty blob.
                    result = sqlite3_bind_zeroblob(statement, index, 0)
                } else {
                    result = SQLITE_TOOBIG
                }
                guard result == SQLITE_OK else { throw failure(result) }
                return try withBlobsBound(rest, to: statement, body)
            }
        }
        return try body()
    }

    private func step(_ statement: OpaquePointer, _ onRow: (SQLiteRow) -> Void) throws {
        var columns: [String]?
        while true {
            let result = sqlite3_step(statement)
            switch result {
            case SQLITE_DONE:
                return
            case SQLITE_ROW:
                let names = columns ?? (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
                columns = names
                onRow(SQLiteRow(columns: names, values: names.indices.map { Self.value(of: statement, at: Int32($0)) }))
            default:
                throw failure(result)
            }
        }
    }

    private static func value(of statement: OpaquePointer, at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            return .integer(Int(sqlite3_column_int64(statement, index)))
        case SQLITE_FLOAT:
            return .float(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            // The pointer first, then its length: the order SQLite's documentation asks for.
            guard let text = sqlite3_column_text(statement, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            guard let blob = sqlite3_column_blob(statement, index) else { return .blob([]) }
            let count = Int(sqlite3_column_bytes(statement, index))
            return .blob(Array(UnsafeRawBufferPointer(start: blob, count: count)))
        default:
            return .null
        }
    }

    private func failure(_ result: Int32) -> SQLiteError {
        // The connection's extended code names the failure more closely than the step's result.
        let extended = sqlite3_extended_errcode(handle)
        let code = extended & 0xff == result & 0xff ? extended : result
        return SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }
}

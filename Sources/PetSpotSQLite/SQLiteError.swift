import CSQLite3

/// A result code SQLite failed with, and its message.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code (SQLITE_CONSTRAINT_UNIQUE, SQLITE_IOERR_FSYNC, ...).
    public let code: Int32
    /// SQLite's own words for it (`sqlite3_errmsg`), or this wrapper's for a misuse.
    public let message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// The primary result code: the low byte of the extended one.
    public var primaryCode: Int32 { code & 0xff }

    /// The primary code's name, as SQLite's documentation spells it: "SQLITE_FULL".
    public var name: String {
        Self.names[primaryCode].map { "SQLITE_" + $0 } ?? "SQLite result code \(primaryCode)"
    }

    public var description: String { "\(message) (\(name), extended code \(code))" }

    /// A constraint refused the statement: SQLite undid that statement, not its transaction.
    public var isConstraint: Bool { primaryCode == SQLITE_CONSTRAINT }
    public var isUniqueConstraint: Bool { code == Self.constraintUnique || code == Self.constraintPrimaryKey }
    public var isFull: Bool { primaryCode == SQLITE_FULL }
    public var isCorrupt: Bool { primaryCode == SQLITE_CORRUPT }
    public var isNotADatabase: Bool { primaryCode == SQLITE_NOTADB }
    public var isInterrupt: Bool { primaryCode == SQLITE_INTERRUPT }
    /// The file or its folder could not be opened, or its permissions refuse the access.
    public var isCannotOpen: Bool { primaryCode == SQLITE_CANTOPEN || primaryCode == SQLITE_PERM }

    // The extended codes are macros of shifted sums, which Swift does not import.
    private static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)
    private static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)

    private static let names: [Int32: String] = [
        SQLITE_ERROR: "ERROR", SQLITE_INTERNAL: "INTERNAL", SQLITE_PERM: "PERM", SQLITE_ABORT: "ABORT",
        SQLITE_BUSY: "BUSY", SQLITE_LOCKED: "LOCKED", SQLITE_NOMEM: "NOMEM", SQLITE_READONLY: "READONLY",
        SQLITE_INTERRUPT: "INTERRUPT", SQLITE_IOERR: "IOERR", SQLITE_CORRUPT: "CORRUPT", SQLITE_NOTFOUND: "NOTFOUND",
        SQLITE_FULL: "FULL", SQLITE_CANTOPEN: "CANTOPEN", SQLITE_PROTOCOL: "PROTOCOL", SQLITE_EMPTY: "EMPTY",
        SQLITE_SCHEMA: "SCHEMA", SQLITE_TOOBIG: "TOOBIG", SQLITE_CONSTRAINT: "CONSTRAINT", SQLITE_MISMATCH: "MISMATCH",
        SQLITE_MISUSE: "MISUSE", SQLITE_NOLFS: "NOLFS", SQLITE_AUTH: "AUTH", SQLITE_FORMAT: "FORMAT",
        SQLITE_RANGE: "RANGE", SQLITE_NOTADB: "NOTADB",
    ]
}

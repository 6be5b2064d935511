import NIOPosix
import PetSpotSQLite

/// Why the report store failed: a kind to act on and one line for the log that names the file.
public struct ReportStoreError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// The database file or its directory cannot be created or opened.
        case open
        /// The file exists but is not a petspotd report database (not SQLite, or another application's).
        case notADatabase
        /// The database was migrated by a newer petspotd than this binary; it is left untouched.
        case schemaTooNew
        /// A list cursor that no page of this store produced.
        case invalidCursor
        /// A list limit below 1.
        case invalidLimit
        /// A time handed in that is not ISO 8601 UTC with whole seconds ("2026-11-21T13:07:27Z").
        case invalidTime
        /// Board fields handed in that cannot be stored (a position out of range or half given,
        /// a chip number of more than digits): the caller's reading of the values is wrong.
        case invalidBoardFields
        /// Values the store holds that do not read as the report values they must be: written
        /// by something other than this daemon, or damaged inside a valid database.
        case unreadableValues
        /// An id that names no stored report (the message names it).
        case reportNotFound
        /// The report collides with a stored one in a way a retry cannot fix
        /// (its id belongs to another flow, or its flow was submitted by another user).
        case conflict
        /// The store was closed.
        case closed
        /// The calling task was cancelled; nothing was written.
        case cancelled
        /// Reading or writing failed (disk full, I/O error, corruption, ...).
        case io
        /// SQLite found the file damaged (a torn copy, a bad sector, bytes overwritten): it is
        /// left exactly as it is and nothing more is read or written until an operator acts.
        case damaged
        /// The file at the configured path is no longer the one being written: it was deleted,
        /// replaced, truncated or overwritten while the store was open. Nothing more is stored
        /// until the store is opened again.
        case fileLost
    }

    public let kind: Kind
    /// The database file, when the failure concerns it.
    public let path: String?
    /// What failed, without the path.
    public let message: String

    public init(kind: Kind, path: String?, message: String) {
        self.kind = kind
        self.path = path
        // One line: the message ends up in a line-oriented log.
        self.message = message.split(whereSeparator: \.isNewline).joined(separator: " ")
    }

    public var description: String {
        guard let path else { return message }
        return "report database \(path): \(message)"
    }

    /// What failed, for a client: the message, with the file's path taken out should a lower
    /// layer have put it in. Where the database lives is the operator's business.
    public var clientMessage: String {
        guard let path, !path.isEmpty, message.contains(path) else { return message }
        return message.replacing(path, with: "(the database file)")
    }
}

extension ReportStoreError {
    /// Translates an error thrown by SQLite or the file system, keeping a `ReportStoreError` as it is.
    /// - Parameters:
    ///   - action: what was attempted, e.g. "cannot list reports".
    ///   - fallback: the kind when the error says nothing more specific.
    init(wrapping error: any Error, path: String, action: String, fallback: Kind) {
        switch error {
        case let error as ReportStoreError:
            self = error
        case is CancellationError:
            self.init(kind: .cancelled, path: path, message: "\(action): cancelled")
        case is NIOThreadPoolError.ThreadPoolInactive:
            self.init(kind: .closed, path: path, message: "\(action): the store is closed")
        case let error as SQLiteError:
            var detail = "\(error.message) (\(error.name))"
            if !error.isFull, let problem = FileSystemCondition.problem(holding: path) { detail += ": \(problem)" }
            if error.isNotADatabase {
                self.init(kind: .notADatabase, path: path, message: "not a petspotd database: \(detail)")
            } else if error.isCorrupt {
                self.init(damaged: "\(action): \(detail)", path: path)
            } else if error.isInterrupt {
                self.init(kind: .cancelled, path: path, message: "\(action): cancelled")
            } else if error.isCannotOpen {
                self.init(kind: .open, path: path, message: "\(action): \(detail)")
            } else {
                self.init(kind: fallback, path: path, message: "\(action): \(detail)")
            }
        default:
            self.init(kind: fallback, path: path, message: "\(action): \(error)")
        }
    }
}

extension ReportStoreError {
    /// What an operator must do about a damaged file, said wherever the damage is reported.
    static let damagedAdvice = "the file is left exactly as it is; stop petspotd, move the file (and its -wal file) "
        + "away and put a backup in its place, or recover what it holds with sqlite3's .recover "
        + "(docs/OPERATIONS.md, \"A damaged database\")"

    /// The file is damaged: `what` is what found it.
    init(damaged what: String, path: String) {
        self.init(kind: .damaged, path: path, message: "the database file is damaged (\(what)); \(Self.damagedAdvice)")
    }
}

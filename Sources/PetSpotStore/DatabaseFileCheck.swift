/// The rules that tell whether the database file the store writes to is still the one a restart
/// would open. Pure: the facts are gathered by `DatabaseFileWatch`.
///
/// SQLite keeps writing to a file that was deleted or replaced under it, and in WAL mode even
/// to a file cut to nothing: every commit "succeeds" into data no restart will see.
enum DatabaseFileCheck {
    /// What a look at the files found.
    struct Observation: Sendable, Equatable {
        /// The file now at the database path; nil when there is none.
        var atPath: FileIdentity?
        /// Names (hard links) the open file still has: 0 once it is deleted.
        var links: UInt64
        /// Size of the open file in bytes.
        var size: Int64
        /// The open file still begins with SQLite's 16-byte header string.
        var hasHeader: Bool
        /// The file now at the `-wal` path; nil when there is none.
        var walAtPath: FileIdentity?
    }

    /// What the store knows of its files.
    struct Known: Sendable, Equatable {
        /// The database file the store has open.
        var database: FileIdentity
        /// The write-ahead log, once seen: committed reports live there until a checkpoint.
        var wal: FileIdentity?
        /// The largest size seen. petspotd never vacuums, so its file never shrinks.
        var largestSize: Int64
    }

    /// What the facts mean: the updated knowledge, or what went wrong.
    enum Verdict: Sendable, Equatable {
        case intact(Known)
        case lost(String)
    }

    static func judge(_ seen: Observation, known: Known) -> Verdict {
        guard let atPath = seen.atPath else {
            return .lost("the database file was deleted while the daemon ran")
        }
        // Checked before the link count: a file moved over it leaves the open one with no name.
        guard atPath == known.database else {
            return .lost("the database file was replaced by another file while the daemon ran")
        }
        guard seen.links > 0 else {
            return .lost("the database file was deleted while the daemon ran")
        }
        if let wal = known.wal {
            guard let walAtPath = seen.walAtPath else {
                return .lost("the database's write-ahead log (-wal file) was deleted while the daemon ran")
            }
            guard walAtPath == wal else {
                return .lost("the database's write-ahead log (-wal file) was replaced while the daemon ran")
            }
        }
        guard seen.size >= known.largestSize else {
            return .lost("the database file was truncated from \(known.largestSize) to \(seen.size) bytes while the daemon ran")
        }
        guard seen.hasHeader else {
            return .lost("the database file no longer begins with an SQLite header: it was overwritten while the daemon ran")
        }
        return .intact(Known(database: known.database, wal: known.wal ?? seen.walAtPath, largestSize: seen.size))
    }
}

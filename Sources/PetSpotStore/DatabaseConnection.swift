import NIOConcurrencyHelpers
import NIOPosix
import PetSpotSQLite

/// The store's one SQLite connection and the one thread all of its work runs on.
///
/// Each call is a work item of `threadPool`, a pool of one thread: the items run in the order they
/// were given, never on an event loop or on the caller's thread. `withDatabase` runs a whole
/// transaction as one item; `execute`, `rows` and `row` are one item per statement. Callers keep
/// whole operations apart themselves (see `SerialGate`).
final class DatabaseConnection: Sendable {
    /// Touched only from `threadPool`'s thread.
    private let sqlite: SQLiteDatabase
    private let threadPool: NIOThreadPool

    private init(sqlite: SQLiteDatabase, threadPool: NIOThreadPool) {
        self.sqlite = sqlite
        self.threadPool = threadPool
    }

    /// Starts the database thread, runs `prepare` on it, then opens the file at `path`.
    static func open(path: String, prepare: @escaping @Sendable () throws -> Void) async throws -> DatabaseConnection {
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        do {
            // A relative path must not read as ":memory:".
            let sqlitePath = path.hasPrefix("/") ? path : "./" + path
            let sqlite = try await threadPool.runIfActive {
                try prepare()
                return try SQLiteDatabase(path: sqlitePath)
            }
            return DatabaseConnection(sqlite: sqlite, threadPool: threadPool)
        } catch {
            try? await threadPool.shutdownGracefully()
            throw error
        }
    }

    /// Runs `body` on the database thread, between statements.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }

    /// Runs `body` with the connection on the database thread, in one turn: a whole transaction
    /// without a hop between its statements.
    func withDatabase<T: Sendable>(_ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        let sqlite = self.sqlite
        return try await threadPool.runIfActive { try body(sqlite) }
    }

    /// Runs `body` with the connection on the database thread, in one turn, as `withDatabase`
    /// does, with no caller waiting for it: what it finds out it tells from there. `body` is
    /// given nil when the thread has stopped: on the caller's thread once it has, or on a thread
    /// of NIO's when it stops with `body` still queued (the store's gate keeps that from happening:
    /// the thread stops in a turn of its own).
    func whenAvailable(_ body: @escaping @Sendable (SQLiteDatabase?) -> Void) {
        let sqlite = self.sqlite
        threadPool.submit { state in body(state == .active ? sqlite : nil) }
    }

    /// Runs one SQL statement with its parameters bound.
    func execute(_ sql: String, _ binds: [SQLiteValue] = []) async throws {
        try await withDatabase { try $0.execute(sql, binds) }
    }

    /// The rows of one SQL statement with its parameters bound.
    func rows(_ sql: String, _ binds: [SQLiteValue] = []) async throws -> [SQLiteRow] {
        try await withDatabase { try $0.rows(sql, binds) }
    }

    /// The first row of one SQL statement, nil when it has none.
    func row(_ sql: String, _ binds: [SQLiteValue] = []) async throws -> SQLiteRow? {
        try await withDatabase { try $0.row(sql, binds) }
    }

    /// Runs `body` in one IMMEDIATE transaction: no other writer, in this process or another,
    /// writes between its reads and its writes. Returns after COMMIT; when anything fails the
    /// transaction is rolled back, so none is ever left open on the connection.
    func inTransaction<T>(_ body: () async throws -> T) async throws -> T {
        try await execute("BEGIN IMMEDIATE")
        do {
            let result = try await body()
            try await execute("COMMIT")
            return result
        } catch {
            // Fails harmlessly when SQLite already rolled back (after an I/O error, for one).
            try? await execute("ROLLBACK")
            throw error
        }
    }

    /// Connections abandoned, held until the process ends.
    private static let abandoned = NIOLockedValueBox<[SQLiteDatabase]>([])

    /// Stops the thread but never closes SQLite's handle: SQLite checkpoints the WAL into the
    /// file when its last connection closes, and a damaged file is to stay exactly as it was
    /// found. The handle is let go of when the process ends, as after a crash.
    func abandon() async {
        Self.abandoned.withLockedValue { $0.append(sqlite) }
        try? await threadPool.shutdownGracefully()
    }

    /// Closes SQLite's handle, then stops the thread.
    func close() async throws {
        var failure: (any Error)?
        do {
            try await withDatabase { try $0.close() }
        } catch {
            failure = error
        }
        try? await threadPool.shutdownGracefully()
        if let failure { throw failure }
    }
}

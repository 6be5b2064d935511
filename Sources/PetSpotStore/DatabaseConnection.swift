import Logging
import SQLiteNIO
import NIOConcurrencyHelpers

/// The store's one SQLite connection and the one thread all of its work runs on.
///
/// SQLiteNIO runs each statement as a work item on `threadPool`. With a single thread the items
/// run in the order they were given, never on an event loop or on the caller's thread. Callers
/// keep whole operations apart themselves (see `SerialGate`).
final class DatabaseConnection: Sendable {
    private let sqlite: SQLiteConnection
    private let threadPool: NIOThreadPool
    /// SQLiteNIO ties a connection to an event loop for its future-based API. The store uses only
    /// the async API, which runs on `threadPool`; this one idle loop exists to satisfy `open`.
    private let eventLoopGroup: MultiThreadedEventLoopGroup

    private init(sqlite: SQLiteConnection, threadPool: NIOThreadPool, eventLoopGroup: MultiThreadedEventLoopGroup) {
        self.sqlite = sqlite
        self.threadPool = threadPool
        self.eventLoopGroup = eventLoopGroup
    }

    /// Starts the database thread, runs `prepare` on it, then opens the file at `path`.
    static func open(path: String, prepare: @escaping @Sendable () throws -> Void) async throws -> DatabaseConnection {
        let threadPool = NIOThreadPool(numberOfThreads: 1)
        threadPool.start()
        let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            try await threadPool.runIfActive(prepare)
            // The store reports its own failures; SQLiteNIO's log lines would only repeat them.
            let silent = Logger(label: "petspotd.reports", factory: { _ in SwiftLogNoOpLogHandler() })
            // SQLiteNIO opens with SQLITE_OPEN_URI: keep a relative path from reading as a URI or ":memory:".
            let sqlitePath = path.hasPrefix("/") ? path : "./" + path
            let sqlite = try await SQLiteConnection.open(
                storage: .file(path: sqlitePath), threadPool: threadPool, logger: silent, on: eventLoopGroup.next())
            return DatabaseConnection(sqlite: sqlite, threadPool: threadPool, eventLoopGroup: eventLoopGroup)
        } catch {
            try? await threadPool.shutdownGracefully()
            try? await eventLoopGroup.shutdownGracefully()
            throw error
        }
    }

    /// Runs `body` on the database thread, between statements.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await threadPool.runIfActive(body)
    }

    /// Runs one SQL statement with its parameters bound. Only the first statement of `sql` runs:
    /// SQLiteNIO prepares one statement per call.
    func execute(_ sql: String, _ binds: [SQLiteData] = []) async throws {
        try await sqlite.query(sql, binds) { _ in }
    }

    /// The rows of one SQL statement with its parameters bound.
    func rows(_ sql: String, _ binds: [SQLiteData] = []) async throws -> [SQLiteRow] {
        let rows = NIOLockedValueBox<[SQLiteRow]>([])
        // The connection's own query runs `onRow` on the database thread (the protocol's variant
        // hops to the event loop for every row).
        try await sqlite.query(sql, binds) { row in rows.withLockedValue { $0.append(row) } }
        return rows.withLockedValue { $0 }
    }

    /// The first row of one SQL statement, nil when it has none.
    func row(_ sql: String, _ binds: [SQLiteData] = []) async throws -> SQLiteRow? {
        try await rows(sql, binds).first
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

    /// Handles of abandoned connections, held until the process ends.
    private static let abandoned = NIOLockedValueBox<[SQLiteConnection]>([])

    /// Stops the thread but never closes SQLite's handle: SQLite checkpoints the WAL into the
    /// file when its last connection closes, and a damaged file is to stay exactly as it was
    /// found. The handle is let go of when the process ends, as after a crash.
    func abandon() async {
        Self.abandoned.withLockedValue { $0.append(sqlite) }
        try? await threadPool.shutdownGracefully()
        try? await eventLoopGroup.shutdownGracefully()
    }

    /// Closes SQLite's handle, then stops the thread.
    func close() async throws {
        var failure: (any Error)?
        do {
            try await sqlite.close()
        } catch {
            failure = error
        }
        try? await threadPool.shutdownGracefully()
        try? await eventLoopGroup.shutdownGracefully()
        if let failure { throw failure }
    }
}

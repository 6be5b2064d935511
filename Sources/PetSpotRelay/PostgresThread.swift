import NIOPosix

/// The thread a libpq session's blocking calls run on (an `NIOThreadPool` of one): never an
/// event loop or the cooperative pool, and one call at a time, as libpq's PGconn wants.
final class PostgresThread: Sendable {
    private let pool: NIOThreadPool

    init() {
        pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
    }

    deinit {
        pool.shutdownGracefully { _ in }
    }

    /// Ends `session` on the thread: PQfinish says goodbye to the server, a write.
    func close(_ session: PostgresSession) async {
        _ = try? await pool.runIfActive { session.close() }
    }

    /// Waits for the thread to end: at exit, so that no libpq call is cut off and the thread's
    /// memory is not left behind for the process to exit under.
    func shutdown() async {
        try? await pool.shutdownGracefully()
    }

    /// Runs `body` on the thread with `current` while it is usable, else with a session
    /// `connect` makes there; returns the session to keep for the next call (nil when it cannot
    /// serve one: closed after a large batch, say) and `body`'s value. After a failure the session is closed: broken, or inside
    /// an aborted transaction, it is suspect, and a new one costs only a connect.
    func run<T: Sendable>(
        current: PostgresSession?,
        connect: @escaping @Sendable () throws(CentralDatabaseError) -> PostgresSession,
        _ body: @escaping @Sendable (PostgresSession) throws(CentralDatabaseError) -> T
    ) async throws(CentralDatabaseError) -> (kept: PostgresSession?, value: T) {
        let outcome: Result<(PostgresSession?, T), CentralDatabaseError>
        do {
            outcome = try await pool.runIfActive { () -> Result<(PostgresSession?, T), CentralDatabaseError> in
                do throws(CentralDatabaseError) {
                    let session: PostgresSession
                    if let current, current.isUsable {
                        session = current
                    } else {
                        current?.close()
                        session = try connect()
                    }
                    do throws(CentralDatabaseError) {
                        let value = try body(session)
                        return .success((session.isUsable ? session : nil, value))
                    } catch {
                        session.close()
                        return .failure(error)
                    }
                } catch {
                    return .failure(error)
                }
            }
        } catch {
            throw CentralDatabaseError(kind: .unreachable, "the relay is stopping")
        }
        return try outcome.get()
    }
}

// What the store's own tests reach through `@testable import`, and nothing else does: kept
// internal and apart from the store's API, which the daemon uses.
extension ReportStore {
    /// Submits queued and not yet taken into a group: lets a test wait until its submits are queued.
    var queuedSubmits: Int { submitQueue.withLockedValue { $0.waiting.count } }

    /// Owners' changes queued and not yet taken into a group.
    var queuedChanges: Int { changeQueue.withLockedValue { $0.waiting.count } }

    /// Runs `body` in a turn of its own: operations called meanwhile wait, as they would behind a
    /// slow commit. For tests that need submits to queue up.
    func holdingTurn<T>(_ body: () async throws -> T) async throws -> T {
        try await gate.withTurn(body)
    }

    /// Runs one SQL statement on the store's connection, in its own turn: for tests that set a
    /// limit of SQLite's (`PRAGMA max_page_count`) to make the file system's failures real.
    func execute(_ sql: String) async throws(ReportStoreError) {
        try await operation("cannot run \(sql)") { db in try await db.execute(sql) }
    }
}

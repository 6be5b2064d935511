import FoundationEssentials
import PetSpotSQLite
import NIOConcurrencyHelpers
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finished reports, stored durably in one SQLite file.
///
/// One connection, one database thread: every statement and every look at the files runs there
/// (`DatabaseConnection`), never on an event loop or the caller's thread. Operations take turns
/// (`SerialGate`), so a read never sees a transaction that has not committed.
///
/// This file opens and checks the file and runs operations in turn; each job has its own file:
/// submits (`+Submit`), an owner's reads (`+Reads`), the relay's claims and acknowledgements
/// (`+Delivery`), an owner's changes to a report (`+Life`), retention (`+Retention`), erased
/// data leaving the disk (`+DiskCleanup`), and closing (`+Close`).
public final class ReportStore: Sendable {
    /// The database file, for error messages.
    public let path: String
    /// The daemon's `box.name`: what the box's own reports are listed under on the board.
    public let box: String
    /// nil once closed.
    let connection: NIOLockedValueBox<DatabaseConnection?>
    /// Closed after the connection: its descriptor must outlive SQLite's (see DatabaseFileWatch).
    let watch: DatabaseFileWatch
    let gate = SerialGate()
    /// Set when close begins: calls made from then on fail with `.closed`.
    let isClosed = NIOLockedValueBox(false)
    /// Submits not yet taken into a group, oldest first, and whether a turn to take them is queued.
    let submitQueue = NIOLockedValueBox(GroupQueue<PendingSubmit>())
    /// Owners' changes waiting for their group's turn, as submits do.
    let changeQueue = NIOLockedValueBox(GroupQueue<PendingChange>())
    /// Group transactions (of submits, of changes) committed since opening: tells tests how
    /// writes were grouped.
    let committedTransactions = NIOLockedValueBox(0)
    /// Set once SQLite finds the file damaged: from then on every call fails with it, and this
    /// process neither reads nor writes the file again.
    let damage = NIOLockedValueBox<ReportStoreError?>(nil)
    let damageContinuation: AsyncStream<ReportStoreError>.Continuation
    /// Yields once, when the file is first found damaged: by `checkDeferred()` or any later
    /// operation. The daemon stops on it.
    public let damageFound: AsyncStream<ReportStoreError>
    /// The file was larger than the check at opening takes: `checkDeferred()` still has to run.
    let deferredCheck: NIOLockedValueBox<Bool>
    /// Set while erased data may still be in the database file or its WAL (see `+DiskCleanup`).
    let diskCleanup: NIOLockedValueBox<PendingDiskCleanup?>

    /// How long a statement waits for a lock held by another connection (a backup, say) before failing.
    static let busyTimeoutMilliseconds = 5000
    /// The WAL file is truncated to this size after a checkpoint, so one large photo does not leave
    /// a large WAL file behind for the years the daemon runs.
    static let walSizeLimitBytes = 4 * 1024 * 1024

    /// Opens (creating it and its parent directory if missing) the database in WAL mode with
    /// synchronous=FULL, so a commit is durable when it returns, and secure_delete on, so deleted
    /// content is overwritten with zeros; runs the migrations (`ReportSchema`; refuses a foreign
    /// file and one whose schema is newer than it knows). `now` is the daemon's wall time: reports
    /// stored before a report had a life count their retention from it. The store reads no clock.
    /// `box` is the daemon's box name: its own reports are listed on the board under it (those
    /// stored before the board too, when it is made).
    ///
    /// A WAL an earlier run left behind (it may hold erased data, after a crash) is folded into
    /// the file and truncated at once, or, when another connection keeps that from finishing,
    /// as soon as it can be (`pendingDiskCleanup`).
    ///
    /// A new directory is created owner-only (0700) and a new file owner-only (0600): reports hold
    /// contact details. Existing files and directories keep their permissions.
    ///
    /// A file of at most `checkAtOpenMaxBytes` is checked for damage (`PRAGMA quick_check`)
    /// before anything writes to it, and refused as `.damaged`, left exactly as it is; a larger
    /// one is checked by `checkDeferred()`, which the caller runs once it serves.
    public init(path: String, now: Date, box: String, checkAtOpenMaxBytes: Int64 = .max) async throws(ReportStoreError) {
        self.path = path
        self.box = box
        // Unstructured, like every operation: a cancelled caller must not leave the connection
        // open with no store to close it.
        let (connection, watch, deferred, cleanup) = try await Task {
            await Self.connect(path: path, now: now.inWholeMilliseconds, box: box, checkAtOpenMaxBytes: checkAtOpenMaxBytes)
        }.value.get()
        self.connection = NIOLockedValueBox(connection)
        self.watch = watch
        deferredCheck = NIOLockedValueBox(deferred)
        diskCleanup = NIOLockedValueBox(cleanup)
        (damageFound, damageContinuation) = AsyncStream.makeStream(of: ReportStoreError.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Whether the file was too large to check at opening (`checkDeferred()` has not run yet).
    public var hasDeferredCheck: Bool { deferredCheck.withLockedValue { $0 } }

    /// The damage check of a file too large to check at opening, in a turn of its own (other
    /// operations wait for it). Throws `.damaged`, and `damageFound` yields, when it fails.
    public func checkDeferred() async throws(ReportStoreError) {
        guard deferredCheck.withLockedValue({ $0 }) else { return }
        let path = self.path
        try await operation("cannot check the database") { db in try await Self.checkIntact(db, path: path) }
        deferredCheck.withLockedValue { $0 = false }
    }

    /// SQLite's quick check: every page and b-tree of the file, in one pass (without the index
    /// comparisons of integrity_check). A 70 MB file takes about 25 ms from the page cache.
    private static func checkIntact(_ db: DatabaseConnection, path: String) async throws {
        let problems = try await db.rows("PRAGMA quick_check(3)").compactMap { try? $0.text("quick_check") }
        guard problems != ["ok"] else { return }
        throw ReportStoreError(damaged: "SQLite's quick_check: " + problems.joined(separator: "; "), path: path)
    }

    private static func connect(path: String, now: Date, box: String, checkAtOpenMaxBytes: Int64)
        async -> Result<(DatabaseConnection, DatabaseFileWatch, deferred: Bool, cleanup: PendingDiskCleanup?), ReportStoreError>
    {
        let created = Synchronization.Atomic<Bool>(false)
        let connection: DatabaseConnection
        do {
            connection = try await DatabaseConnection.open(path: path) {
                if try createFileIfMissing(path: path) { created.store(true, ordering: .relaxed) }
            }
        } catch {
            let failure = ReportStoreError(wrapping: error, path: path, action: "cannot open", fallback: .open)
            if created.load(ordering: .relaxed) { removeIfStillEmpty(path: path) }
            return .failure(failure)
        }
        do {
            let deferred = try await prepare(connection, path: path, now: now, box: box, checkAtOpenMaxBytes: checkAtOpenMaxBytes)
            let watch = try await connection.run { try DatabaseFileWatch(path: path) }
            // A file whose damage check is still to come is left as it is until then: its WAL is
            // folded in by the first write or retry.
            let cleanup: PendingDiskCleanup? = deferred
                ? PendingDiskCleanup(since: now, reason: "the WAL left by an earlier run is folded in at the first write", attempts: 0)
                : await checkpointTruncating(connection).map { PendingDiskCleanup(since: now, reason: $0, attempts: 1) }
            return .success((connection, watch, deferred, cleanup))
        } catch {
            // Explained before closing: the close may free what was missing (space, say).
            let failure = ReportStoreError(wrapping: error, path: path, action: "cannot open", fallback: .open)
            if failure.kind == .damaged && walHoldsFrames(path) {
                // Closing would fold the WAL a crash left into the damaged file. An empty one (this
                // start's) is only deleted by the close, which leaves the folder as it was found.
                await connection.abandon()
            } else {
                try? await connection.close()
            }
            if created.load(ordering: .relaxed) { removeIfStillEmpty(path: path) }
            return .failure(failure)
        }
    }

    /// A start that created the file and could not write a database into it (a full disk) takes
    /// it away again: left empty, it would be refused at every later start as a truncated
    /// database. Only an empty file goes: one that holds anything is never deleted.
    private static func removeIfStillEmpty(path: String) {
        guard isEmptyFile(path) else { return }
        unlink(path)
        for suffix in ["-wal", "-shm", "-journal"] where isEmptyFile(path + suffix) {
            unlink(path + suffix)
        }
    }

    /// Settings, refusals and migrations, in the order that writes nothing to a file it refuses.
    /// Returns whether the damage check was left for `checkDeferred()`.
    private static func prepare(_ db: DatabaseConnection, path: String, now: Date, box: String, checkAtOpenMaxBytes: Int64) async throws -> Bool {
        // PRAGMA takes no bound parameters; the values are this type's constants.
        try await db.execute("PRAGMA busy_timeout = \(busyTimeoutMilliseconds)")
        // Before anything writes: a damaged file (a copy torn by a write) is refused as it is.
        var info = stat()
        let deferred = stat(path, &info) == 0 && Int64(info.st_size) > checkAtOpenMaxBytes
        if !deferred { try await checkIntact(db, path: path) }
        // Before anything writes: switching to WAL mode already changes the file.
        try ReportSchema.checkCanMigrate(try await ReportSchema.facts(of: db), path: path)
        let journalMode = try await db.row("PRAGMA journal_mode = WAL")?.text("journal_mode")
        guard journalMode == "wal" else {
            throw ReportStoreError(kind: .open, path: path, message: "cannot open: SQLite refused WAL mode (journal mode \(journalMode ?? "unknown"))")
        }
        // FULL: the WAL is synced at every commit, so a report is on disk when submit returns.
        try await db.execute("PRAGMA synchronous = FULL")
        try await db.execute("PRAGMA journal_size_limit = \(walSizeLimitBytes)")
        try await db.execute("PRAGMA foreign_keys = ON")
        // Deleted and overwritten content is zeroed, in the file and in the WAL frames that carry
        // it, so an erased report's data is gone once the WAL is folded in and truncated. Set
        // here, whatever SQLite's compiled-in default.
        guard try await db.row("PRAGMA secure_delete = ON")?.integer("secure_delete") == 1 else {
            throw ReportStoreError(kind: .open, path: path, message: "cannot open: SQLite refused secure_delete")
        }
        try await ReportSchema.migrate(db, path: path, now: now, box: box)
        return deferred
    }

    // MARK: - Internal

    /// The connection's journal mode and synchronous level, what makes a returned commit survive a
    /// crash, and how long it waits for another connection's lock.
    func durabilitySettings() async throws -> (journalMode: String, synchronous: Int, busyTimeoutMilliseconds: Int) {
        try await reading("cannot read settings") { db in
            (try await db.row("PRAGMA journal_mode")?.text("journal_mode") ?? "",
             Int(try await db.row("PRAGMA synchronous")?.integer("synchronous") ?? -1),
             Int(try await db.row("PRAGMA busy_timeout")?.integer("timeout") ?? -1))
        }
    }

    func reading<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (DatabaseConnection) async throws -> T
    ) async throws(ReportStoreError) -> T {
        try await operation(action, body)
    }

    /// Runs `body` in its turn on the open connection, after checking that the database file is
    /// still the one at the path.
    func operation<T: Sendable>(
        _ action: String, _ body: @escaping @Sendable (DatabaseConnection) async throws -> T
    ) async throws(ReportStoreError) -> T {
        try checkOpen(action)
        if Task.isCancelled {
            throw ReportStoreError(kind: .cancelled, path: path, message: "\(action): cancelled")
        }
        let path = self.path
        let watch = self.watch
        // Once begun, an operation runs to its end even if its caller is cancelled: a
        // transaction left half done would stay open on the connection.
        let task = Task { [self] () async throws -> T in
            try await gate.withTurn { () async throws -> T in
                guard let db = connection.withLockedValue({ $0 }) else {
                    throw ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
                }
                if let damage = damage.withLockedValue({ $0 }) { throw damage }
                do {
                    try await db.run { try watch.check() }
                    return try await body(db)
                } catch {
                    let failure = await Self.explain(error, action, path: path, watch: watch, db: db)
                    noteIfDamaged(failure)
                    throw failure
                }
            }
        }
        do {
            return try await task.value
        } catch {
            throw ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
        }
    }

    /// Asks for a turn of the store whose whole work is one item of the database thread: a group
    /// of submits or of changes. No task waits for the turn and none is woken for the work: the
    /// gate hands the turn over (`SerialGate.whenTurn`), the database thread runs `body`, and its
    /// answers resume the callers from there. `body` gets nil when the store is closed; the turn
    /// ends when it returns.
    func askForTurnOnDatabaseThread(_ body: @escaping @Sendable (SQLiteDatabase?) -> Void) {
        gate.whenTurn { [self] in
            guard let db = connection.withLockedValue({ $0 }) else {
                body(nil)
                gate.passTurn()
                return
            }
            db.whenAvailable { [self] sqlite in
                body(sqlite)
                gate.passTurn()
            }
        }
    }

    /// A group's transaction (of submits, of changes) on the database thread, between two checks
    /// that the file is still the one at the path: the second tells whether the commit counts,
    /// and no other commit comes between it and the commit.
    func groupTransaction<T>(_ sqlite: SQLiteDatabase, _ body: (SQLiteDatabase) throws -> T) throws -> T {
        try watch.check()
        let result = try sqlite.inTransaction { try body(sqlite) }
        committedTransactions.withLockedValue { $0 += 1 }
        try watch.check()
        return result
    }

    /// A failure because the file is gone (a new reader cannot open it) is told as that, not as
    /// the SQLite error it caused.
    static func explain(
        _ error: any Error, _ action: String, path: String, watch: DatabaseFileWatch, db: DatabaseConnection
    ) async -> ReportStoreError {
        let failure = ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
        guard failure.kind != .fileLost, failure.kind != .cancelled else { return failure }
        do {
            try await db.run { try watch.check() }
            return failure
        } catch {
            return lostOr(failure, error, path: path, action: action)
        }
    }

    /// The same, on the database thread.
    func explain(_ error: any Error, _ action: String) -> ReportStoreError {
        let failure = ReportStoreError(wrapping: error, path: path, action: action, fallback: .io)
        guard failure.kind != .fileLost, failure.kind != .cancelled else { return failure }
        do {
            try watch.check()
            return failure
        } catch {
            return Self.lostOr(failure, error, path: path, action: action)
        }
    }

    /// `.fileLost` when the look at the files after `failure` found that, else `failure`.
    private static func lostOr(_ failure: ReportStoreError, _ checkError: any Error, path: String, action: String) -> ReportStoreError {
        let lost = ReportStoreError(wrapping: checkError, path: path, action: action, fallback: .io)
        return lost.kind == .fileLost ? lost : failure
    }

    /// The first damage found is kept and told once through `damageFound`.
    func noteIfDamaged(_ failure: ReportStoreError) {
        guard failure.kind == .damaged else { return }
        let first = damage.withLockedValue { damage in
            defer { if damage == nil { damage = failure } }
            return damage == nil
        }
        if first { damageContinuation.yield(failure) }
    }

    func checkOpen(_ action: String) throws(ReportStoreError) {
        if let damage = damage.withLockedValue({ $0 }) { throw damage }
        if isClosed.withLockedValue({ $0 }) {
            throw ReportStoreError(kind: .closed, path: path, message: "\(action): the store is closed")
        }
    }

    /// Creates the parent directories (0700) and an empty database file (0600) when missing.
    /// SQLite treats an empty file as a new database; one this start did not create is refused.
    /// Returns whether it created the file.
    @discardableResult
    private static func createFileIfMissing(path: String) throws(ReportStoreError) -> Bool {
        try createDirectories(leadingTo: path)
        // O_EXCL: never truncate or replace a file that appeared meanwhile.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            // Qualified: a bare `close` would name this type's method.
            #if canImport(Glibc)
            _ = Glibc.close(fd)
            #elseif canImport(Darwin)
            _ = Darwin.close(fd)
            #endif
            return true
        } else if errno != EEXIST {
            throw ReportStoreError(
                kind: .open, path: path, message: "cannot create the database file: \(String(cString: strerror(errno)))")
        } else if isEmptyFile(path) {
            // SQLite would take it for a new database, and petspotd would start over on a file
            // that held reports: every start that creates the file writes a database into it.
            throw ReportStoreError(
                kind: .damaged, path: path,
                message: "cannot open: database disk image is malformed (the file is empty, yet this start did not "
                    + "create it: it was truncated, or a first start stopped before writing it); "
                    + "move it away to start a new database")
        }
        return false
    }

    /// Whether the database's WAL file exists and is not empty.
    private static func walHoldsFrames(_ path: String) -> Bool {
        var info = stat()
        return stat(path + "-wal", &info) == 0 && info.st_size > 0
    }

    private static func isEmptyFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && info.st_size == 0
    }

    /// `mkdir -p` of the file's directory; what it creates is owner-only.
    private static func createDirectories(leadingTo path: String) throws(ReportStoreError) {
        let components = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        let directory = (path.hasPrefix("/") ? "/" : "") + components.joined(separator: "/")
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in components {
            prefix += "/" + component
            if mkdir(prefix, 0o700) == 0 { continue }
            let failure = errno
            var info = stat()
            if failure == EEXIST, stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
            throw ReportStoreError(
                kind: .open, path: path,
                message: "cannot create directory \(directory): \(String(cString: strerror(failure)))")
        }
    }
}

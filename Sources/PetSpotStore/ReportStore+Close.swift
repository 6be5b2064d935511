import PetSpotSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Closing, and saving what a file that left its path still holds.
extension ReportStore {
    /// Closes the database (checkpoints WAL) for a clean shutdown.
    ///
    /// Operations already called finish first; calls from now on throw `.closed`. Closing twice is
    /// harmless. Data committed before is durable even if this throws.
    ///
    /// When the file SQLite has open is no longer at the path (deleted, or another file moved
    /// there), closing would let go of the only copy of what it holds: it is first saved beside
    /// the path (`savedCopyPath`), and close throws `.fileLost` naming that file. A damaged file
    /// is not closed at all (see `DatabaseConnection.abandon()`).
    public func close() async throws(ReportStoreError) {
        let wasOpen = isClosed.withLockedValue { closed in
            defer { closed = true }
            return !closed
        }
        guard wasOpen else { return }
        let path = self.path
        let watch = self.watch
        // Unstructured, like every operation: a cancelled caller must not cut the close short.
        let outcome = await Task { [self] () -> ReportStoreError? in
            // Writes called before the close are made first. A group's turn asks for the next
            // group's behind whatever queued meanwhile, this close included: so the close lets
            // those turns go until no write waits (none can join: calls now throw `.closed`).
            while writesWaiting { await gate.withTurn {} }
            return await gate.withTurn { () -> ReportStoreError? in
                let taken = connection.withLockedValue { db in
                    defer { db = nil }
                    return db
                }
                guard let db = taken else { return nil }
                if damage.withLockedValue({ $0 }) != nil {
                    await db.abandon()
                    return nil
                }
                let atPath = (try? await db.run { watch.isAtPath() }) ?? false
                // Fold the WAL back into the database file so it is self-contained at rest. For a
                // file no longer at the path this also empties the -wal file beside the path,
                // which a crash before the close would otherwise leave for the next start to
                // replay into whatever file is there now.
                var checkpointError: (any Error)?
                do {
                    // A reader in another process (a backup) can keep it from finishing, past the
                    // busy timeout: the pragma says so in its result, not by failing.
                    if try await db.row("PRAGMA wal_checkpoint(TRUNCATE)")?.integer("busy") != 0 {
                        let erased = diskCleanup.withLockedValue { $0 } != nil
                            ? " (with what erased reports held: the next start cleans it)" : ""
                        checkpointError = ReportStoreError(
                            kind: .io, path: path,
                            message: "closed, but the WAL checkpoint could not finish: another connection "
                                + "is reading the database; its WAL file stays until the next start" + erased)
                    } else {
                        diskCleanup.withLockedValue { $0 = nil }
                    }
                } catch {
                    checkpointError = error
                }
                let rescue = atPath ? nil : await Self.saveCopy(of: db, path: path, inode: watch.identity.inode)
                do {
                    try await db.close()
                } catch {
                    return ReportStoreError(wrapping: error, path: path, action: "cannot close", fallback: .io)
                }
                if !atPath { watch.removeOwnEmptyWAL() }
                watch.close()
                if let rescue { return rescue }
                return checkpointError.map {
                    ReportStoreError(wrapping: $0, path: path, action: "closed, but the WAL checkpoint failed", fallback: .io)
                }
            }
        }.value
        if let outcome { throw outcome }
    }

    /// Submits or changes queued and not yet taken into a group.
    private var writesWaiting: Bool {
        !submitQueue.withLockedValue { $0.waiting.isEmpty } || !changeQueue.withLockedValue { $0.waiting.isEmpty }
    }

    /// Where the reports of a file that left the path are saved: beside the path, named after
    /// the file's inode (a later loss of another file gets another name).
    static func savedCopyPath(of path: String, inode: UInt64) -> String {
        "\(path).saved-\(inode)"
    }

    /// Saves the whole database as the open connection sees it (the file that left the path
    /// and its WAL) into a new owner-only file beside the path, synced; returns the `.fileLost`
    /// error that tells where, or why it could not be saved.
    private static func saveCopy(of db: DatabaseConnection, path: String, inode: UInt64) async -> ReportStoreError {
        let lost = "the database file is no longer at its path (deleted, or another file moved there)"
        var target = savedCopyPath(of: path, inode: inode)
        do {
            // O_EXCL: never over an earlier copy; VACUUM INTO fills an empty file and keeps its mode.
            var fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            var attempt = 1
            while fd < 0 && errno == EEXIST && attempt < 100 {
                attempt += 1
                target = savedCopyPath(of: path, inode: inode) + "-\(attempt)"
                fd = open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            }
            guard fd >= 0 else { throw SystemFailure(call: "create \(target)", errno: errno) }
            closeDescriptor(fd)
            do {
                try await db.execute("VACUUM INTO ?", [.text(target)])
                try syncFile(target)
                try syncFile(directory(of: target))
            } catch {
                unlink(target)
                throw error
            }
        } catch {
            return ReportStoreError(
                kind: .fileLost, path: path,
                message: "\(lost), and the reports it held could not be saved beside it: \(error); they are lost")
        }
        return ReportStoreError(
            kind: .fileLost, path: path,
            message: "\(lost): every report it held is saved in \(target); bring them back into the database "
                + "as docs/OPERATIONS.md shows (\"The database file replaced or deleted\")")
    }

    private struct SystemFailure: Error, CustomStringConvertible {
        let call: String
        let errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    private static func syncFile(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemFailure(call: "open \(path)", errno: errno) }
        defer { closeDescriptor(fd) }
        guard fsync(fd) == 0 else { throw SystemFailure(call: "fsync \(path)", errno: errno) }
    }

    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func closeDescriptor(_ fd: Int32) {
        // Qualified: a bare `close` would name this type's method.
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #elseif canImport(Darwin)
        _ = Darwin.close(fd)
        #endif
    }
}

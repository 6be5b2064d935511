import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Looks whether the file SQLite writes to is still the database at the configured path, so a
/// report is never acknowledged into a file that a restart will not find. Once the files are
/// found changed, every later look fails the same way: what the store would write from then on
/// could only be lost.
///
/// A look costs four system calls on data the kernel has in memory (three stats and a 16-byte read).
final class DatabaseFileWatch: Sendable {
    private let path: String
    private let walPath: String
    /// Our own descriptor of the database file, kept open for as long as SQLite's: closing any
    /// descriptor of a file drops every POSIX lock this process holds on it, SQLite's included.
    private let descriptor: Int32
    /// The file SQLite has open.
    let identity: FileIdentity
    private let state: NIOLockedValueBox<State>

    private enum State {
        case watching(DatabaseFileCheck.Known)
        case lost(ReportStoreError, DatabaseFileCheck.Known)
        case closed
    }

    /// Call once SQLite has the database open.
    init(path: String) throws(ReportStoreError) {
        self.path = path
        walPath = path + "-wal"
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ReportStoreError(kind: .open, path: path, message: "cannot open the database file to watch it: \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Self.closeDescriptor(descriptor)
            throw ReportStoreError(kind: .open, path: path, message: "cannot examine the database file: \(reason)")
        }
        identity = Self.identity(info)
        let known = DatabaseFileCheck.Known(database: identity, wal: Self.identity(at: walPath), largestSize: Int64(info.st_size))
        state = NIOLockedValueBox(.watching(known))
    }

    deinit {
        if case .closed = state.withLockedValue({ $0 }) { return }
        _ = Self.closeDescriptor(descriptor)
    }

    /// Throws `.fileLost` when the database at the path is no longer the file being written.
    func check() throws(ReportStoreError) {
        // Result keeps the error's type: NIO's withLockedValue rethrows it as `any Error`.
        try state.withLockedValue { state in Result { () throws(ReportStoreError) in
            switch state {
            case .lost(let error, _):
                throw error
            case .closed:
                throw ReportStoreError(kind: .closed, path: path, message: "the store is closed")
            case .watching(let known):
                switch DatabaseFileCheck.judge(observe(), known: known) {
                case .intact(let updated):
                    state = .watching(updated)
                case .lost(let reason):
                    let error = ReportStoreError(
                        kind: .fileLost, path: path,
                        message: "\(reason); nothing more is stored until petspotd is restarted")
                    state = .lost(error, known)
                    throw error
                }
            }
        } }.get()
    }

    /// Whether the file SQLite has open is still the one at the path: false once it was deleted
    /// or another file was moved there. Then nobody will open it again, and what it holds is
    /// lost when the daemon lets go of it.
    func isAtPath() -> Bool {
        let seen = observe()
        return seen.atPath == identity && seen.links > 0
    }

    /// Removes the -wal file beside the path when it is still the one SQLite wrote and is empty
    /// (checkpointed): SQLite leaves it when the database file left the path, and no file moved
    /// there should find another file's WAL beside it.
    func removeOwnEmptyWAL() {
        let known: DatabaseFileCheck.Known? = state.withLockedValue { state in
            switch state {
            case .watching(let known), .lost(_, let known): known
            case .closed: nil
            }
        }
        var info = stat()
        guard let wal = known?.wal, stat(walPath, &info) == 0, Self.identity(info) == wal, info.st_size == 0 else { return }
        unlink(walPath)
    }

    /// Closes the watching descriptor; only once SQLite has closed the database.
    func close() {
        let wasOpen = state.withLockedValue { state in
            if case .closed = state { return false }
            state = .closed
            return true
        }
        if wasOpen { _ = Self.closeDescriptor(descriptor) }
    }

    private func observe() -> DatabaseFileCheck.Observation {
        var info = stat()
        let described = fstat(descriptor, &info) == 0
        var header = [UInt8](repeating: 0, count: 16)
        let read = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        return DatabaseFileCheck.Observation(
            atPath: Self.identity(at: path),
            // A descriptor that cannot be examined is treated as a file that is gone.
            links: described ? UInt64(info.st_nlink) : 0,
            size: described ? Int64(info.st_size) : 0,
            hasHeader: read == 16 && header == Self.sqliteHeader,
            walAtPath: Self.identity(at: walPath))
    }

    /// "SQLite format 3" and a NUL: how every SQLite database file begins.
    private static let sqliteHeader = Array("SQLite format 3\0".utf8)

    private static func identity(at path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return identity(info)
    }

    private static func identity(_ info: stat) -> FileIdentity {
        FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    private static func closeDescriptor(_ fd: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(fd)
        #elseif canImport(Darwin)
        Darwin.close(fd)
        #endif
    }
}

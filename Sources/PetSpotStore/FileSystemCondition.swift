#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why the file system holding the database may refuse writes, said in words: SQLite reports a
/// full or read-only file system as "disk I/O error" or "unable to open database file" when the
/// failing write is to its shared-memory or journal file, which names neither cause.
enum FileSystemCondition {
    /// "the file system holding it is read-only" or "… has no space left", or nil when neither holds.
    static func problem(holding path: String) -> String? {
        var info = statvfs()
        guard statvfs(directory(of: path), &info) == 0 else { return nil }
        if info.f_flag & UInt(ST_RDONLY) != 0 {
            return "the file system holding it is read-only"
        }
        if info.f_bavail == 0 {
            return "the file system holding it has no space left (disk is full)"
        }
        // A file system the kernel turned read-only after an error (ext4's errors=remount-ro)
        // still shows as writable to statvfs; only a write tells.
        let probe = directory(of: path) + "/.petspotd-write-probe-\(getpid())"
        let fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            _ = close(fd)
            unlink(probe)
            return nil
        }
        switch errno {
        case EROFS: return "the file system holding it is read-only"
        case ENOSPC, EDQUOT: return "the file system holding it has no space left (disk is full)"
        default: return nil
        }
    }

    /// The folder the file is in ("." for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

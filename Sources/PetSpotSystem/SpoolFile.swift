#if canImport(Glibc)
import Glibc
#endif

/// Bytes kept in a file instead of in memory: the photo of an open flow.
///
/// The file has a random name in the spool directory (the daemon's own, 0700) and holds no
/// descriptor between uses: it is opened to be written and again to be read back. So open
/// flows cost the daemon no descriptors, however many of them hold a photo, and one user's
/// photos never take the descriptors another user's connection needs. The file is removed
/// shortly after the value is dropped; `sweep(_:)` removes what a crash left.
public final class SpoolFile: Sendable {
    /// How many bytes the file holds.
    public let count: Int
    /// Where the file is.
    public let path: String

    /// Every spool file's name starts with it: `sweep(_:)` removes those and nothing else.
    static let namePrefix = ".spool-"

    private init(path: String, count: Int) {
        self.path = path
        self.count = count
    }

    // Unlinking a large file frees its blocks, which takes the file system a while; the last
    // hold often goes under the flow registry's lock or on an event loop (a cancel, a new
    // photo, an expiry), so the unlink runs in a task.
    deinit {
        let path = self.path
        Task.detached(priority: .utility) { unlink(path) }
    }

    /// Writes to a new file in `directory` the `count` bytes that `produce` hands, a part at a
    /// time, to the function it is given: a photo decoded in chunks is never whole in memory.
    /// A full disk throws `ENOSPC`; parts that do not add up to `count`, `EIO`. A failed write
    /// leaves no file.
    public static func write(count: Int, in directory: String,
                             _ produce: (_ write: (UnsafeRawBufferPointer) throws(SystemError) -> Void) throws(SystemError) -> Void) throws(SystemError) -> SpoolFile
    {
        let (fd, path) = try makeFile(in: directory)
        do throws(SystemError) {
            var written = 0
            try produce { (part) throws(SystemError) in
                guard written + part.count <= count else { throw SystemError(errno: EIO) }
                try FileDescriptorIO.write(fd, buffer: part)
                written += part.count
            }
            guard written == count else { throw SystemError(errno: EIO) }
            // A delayed write error (NFS, quota) shows only here.
            guard close(fd) == 0 else {
                let failure = errno
                unlink(path)
                throw SystemError(errno: failure)
            }
        } catch {
            close(fd)
            unlink(path)
            throw error
        }
        return SpoolFile(path: path, count: count)
    }

    /// The whole content, read back; a file that no longer holds `count` bytes is `EIO`.
    public func read() throws(SystemError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw SystemError(errno: errno) }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        var offset = 0
        while offset < count {
            let n = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + offset, count - offset, off_t(offset)) }
            if n > 0 {
                offset += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                throw SystemError(errno: n < 0 ? errno : EIO)
            }
        }
        return bytes
    }

    /// Removes the spool files a crash left in `directory`; answers how many.
    @discardableResult
    public static func sweep(_ directory: String) throws(SystemError) -> Int {
        var removed = 0
        for name in try DirectoryListing.names(in: directory) where name.hasPrefix(namePrefix) {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// A new file of the owner's alone, made exclusively under a random name.
    private static func makeFile(in directory: String) throws(SystemError) -> (Int32, String) {
        // mkstemp's file would stay open without close-on-exec until fcntl, and glibc's
        // mkostemp is not in Swift's Glibc module: a random name, made exclusively.
        while true {
            let path = directory + "/" + namePrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            if fd >= 0 { return (fd, path) }
            if errno == EEXIST || errno == EINTR { continue }
            throw SystemError(errno: errno)
        }
    }
}

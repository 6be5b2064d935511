#if canImport(Glibc)
import Glibc
#endif

/// Bytes kept in a file with no name instead of in memory: the photo of an open flow.
///
/// The file is made with `O_TMPFILE`, so it has no name and is gone once its descriptor
/// closes: shortly after the value is dropped (the close runs in a task, on the same threads
/// that write and read photos), and also after a crash, with nothing to clean up. A file
/// system without `O_TMPFILE` gets a named file that is unlinked at once; `sweep(_:)` removes
/// any a crash left between the two steps.
public final class SpoolFile: Sendable {
    /// How many bytes the file holds.
    public let count: Int
    private let descriptor: Int32

    /// Names of the fallback's files, which `sweep(_:)` removes.
    static let namePrefix = ".spool-"

    private init(descriptor: Int32, count: Int) {
        self.descriptor = descriptor
        self.count = count
    }

    // Closing the last descriptor of a nameless file frees its blocks, which takes the file
    // system a while for a large photo; the last hold often goes under the flow registry's lock
    // or on an event loop (a cancel, a new photo, an expiry), so the close runs in a task.
    deinit {
        let descriptor = self.descriptor
        Task.detached(priority: .utility) { close(descriptor) }
    }

    /// Writes to a new nameless file in `directory` the `count` bytes that `produce` hands, a
    /// part at a time, to the function it is given: a photo decoded in chunks is never whole in
    /// memory. A full disk throws `ENOSPC`; parts that do not add up to `count`, `EIO`.
    public static func write(count: Int, in directory: String,
                             _ produce: (_ write: (UnsafeRawBufferPointer) throws(SystemError) -> Void) throws(SystemError) -> Void) throws(SystemError) -> SpoolFile
    {
        let fd = try makeNameless(in: directory)
        do throws(SystemError) {
            var written = 0
            try produce { (part) throws(SystemError) in
                guard written + part.count <= count else { throw SystemError(errno: EIO) }
                try FileDescriptorIO.write(fd, buffer: part)
                written += part.count
            }
            guard written == count else { throw SystemError(errno: EIO) }
        } catch {
            close(fd)
            throw error
        }
        return SpoolFile(descriptor: fd, count: count)
    }

    /// The whole content, read back.
    public func read() throws(SystemError) -> [UInt8] {
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

    /// Removes the fallback's files a crash left in `directory`; answers how many.
    @discardableResult
    public static func sweep(_ directory: String) throws(SystemError) -> Int {
        var removed = 0
        for name in try DirectoryListing.names(in: directory) where name.hasPrefix(namePrefix) {
            if unlink(directory + "/" + name) == 0 { removed += 1 }
        }
        return removed
    }

    /// `O_TMPFILE` (Linux 3.11): `__O_TMPFILE | O_DIRECTORY`; the first is the same on every
    /// Linux architecture, the second is not, and Swift's Glibc module has neither together.
    private static let openTemporaryFile: Int32 = 0o20000000 | O_DIRECTORY

    private static func makeNameless(in directory: String) throws(SystemError) -> Int32 {
        let fd = open(directory, openTemporaryFile | O_RDWR | O_CLOEXEC, 0o600)
        if fd >= 0 { return fd }
        // EOPNOTSUPP: the file system has no O_TMPFILE; EISDIR: the kernel is older than 3.11.
        guard errno == EOPNOTSUPP || errno == EISDIR else { throw SystemError(errno: errno) }
        return try makeUnlinked(in: directory)
    }

    /// The fallback: a named file, unlinked at once.
    static func makeUnlinked(in directory: String) throws(SystemError) -> Int32 {
        // mkstemp's file would stay open without close-on-exec until fcntl, and glibc's
        // mkostemp is not in Swift's Glibc module: a random name, made exclusively.
        while true {
            let path = directory + "/" + namePrefix + String(UInt64.random(in: .min ... .max), radix: 16)
            let named = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
            if named < 0 {
                if errno == EEXIST || errno == EINTR { continue }
                throw SystemError(errno: errno)
            }
            guard unlink(path) == 0 else {
                let failure = errno
                close(named)
                throw SystemError(errno: failure)
            }
            return named
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// Whole reads and writes on a file descriptor with read(2) and write(2): what the programs
/// need of FileHandle, which FoundationEssentials does not have.
public enum FileDescriptorIO {
    /// Writes all of `text` as UTF-8, carrying on after a short write or EINTR.
    public static func write(_ fd: Int32, _ text: String) throws(SystemError) {
        var text = text
        let failure = text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
        if failure != 0 { throw SystemError(errno: failure) }
    }

    /// Writes all of `bytes`, carrying on after a short write or EINTR.
    public static func write(_ fd: Int32, bytes: [UInt8]) throws(SystemError) {
        let failure = bytes.withUnsafeBytes { writeAll(fd, $0) }
        if failure != 0 { throw SystemError(errno: failure) }
    }

    /// Writes all of `buffer`, carrying on after a short write or EINTR.
    public static func write(_ fd: Int32, buffer: UnsafeRawBufferPointer) throws(SystemError) {
        let failure = writeAll(fd, buffer)
        if failure != 0 { throw SystemError(errno: failure) }
    }

    /// Opens `path` for writing (it must exist), writes `text` and closes it.
    public static func writeFile(_ path: String, _ text: String) throws(SystemError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(errno: errno) }
        defer { close(fd) }
        try write(fd, text)
    }

    /// Writes `bytes` to a new file in `path`'s folder that then takes the name, so that a file
    /// already there is replaced whole or not at all; readable as umask allows, like any
    /// document (mkstemp makes it 0600), and on disk before it takes the name.
    public static func replaceFile(_ path: String, bytes: [UInt8]) throws(SystemError) {
        var template = Array((path + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError(errno: errno) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        do throws(SystemError) {
            defer { close(fd) }
            try write(fd, bytes: bytes)
            let mask = umask(0)
            umask(mask)
            guard fchmod(fd, 0o666 & ~mask) == 0, fsync(fd) == 0 else { throw SystemError(errno: errno) }
        } catch {
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let failure = errno
            unlink(temporary)
            throw SystemError(errno: failure)
        }
    }

    /// The whole file at `path`. Foundation's `Data(contentsOf:)` and `String(contentsOfFile:)`
    /// leak a 4 KiB buffer on every read of an empty file on Linux (swift-foundation of Swift
    /// 6.3; AddressSanitizer shows it), and the daemon rereads its files on each reload.
    public static func readFile(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError(errno: errno) }
        defer { close(fd) }
        return try readToEnd(fd)
    }

    /// Reads until end of file.
    public static func readToEnd(_ fd: Int32) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk[..<n])
            } else if n == 0 {
                return bytes
            } else if errno != EINTR {
                throw SystemError(errno: errno)
            }
        }
    }

    /// 0 when every byte went out, else the errno that stopped it.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        var offset = 0
        while offset < buffer.count {
            let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n > 0 {
                offset += n
            } else if n < 0, errno == EINTR {
                continue
            } else {
                return n < 0 ? errno : EIO
            }
        }
        return 0
    }
}

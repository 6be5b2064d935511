#if canImport(Glibc)
import Glibc
#endif

/// The program file's code and constants that only the start ran, handed back to the kernel
/// once the daemon serves: the kernel's own "free init memory", for a process.
///
/// Argument parsing, configuration, SQLite's schema checks and the NIO bootstrap run once, but
/// their pages stay mapped for the life of the process, and the kernel maps clean file pages
/// in 64 KiB windows around each fault, so most of the program file ends up resident (on a
/// 24 MB petspotd, ~19 MiB of file pages after start against ~2 MiB of its own memory).
/// The shared libraries it loaded are advised too: libcrypto, say, is touched while it is
/// loaded and bound, and then only when a photo comes.
///
/// Two steps, since the service runs as a user that owns none of these files:
/// - `MADV_PAGEOUT` reclaims the pages this process alone maps, but the kernel does that for a
///   file's pages only when the caller owns the file or may write it (root, in a test run);
///   a library page another process maps (libc's, mostly) stays either way.
/// - Then the pages still mapped that are the file's own (not a copy the dynamic loader wrote,
///   such as relocated data made read-only) are unmapped with `MADV_DONTNEED`. For a page of
///   a file mapped private that nobody wrote, that only drops this process's mapping: the page
///   stays in the page cache, which the kernel reclaims when memory is short, and a later
///   access maps it again with the same bytes.
/// - Last, the program file's pages that nobody maps now leave the page cache, as the
///   page-out would have done for its owner.
/// What a request runs later comes back as it is needed (`MADV_RANDOM`: no read-ahead). All of
/// it is about clean, read-only pages of files: their contents never change.
public enum StartupPages {
    /// What `release()` advised: the read-only mappings of the program file and its libraries.
    public struct Released: Sendable, Equatable {
        public let mappings: Int
        public let bytes: Int
    }

    /// Advises the kernel to reclaim the read-only mappings of the running program's file and
    /// of its shared libraries. A file replaced on disk since the start (an upgrade) is left
    /// alone: its maps no longer name the path `/proc/self/exe` reads, or end in "(deleted)".
    public static func release() throws(SystemError) -> Released {
        let program = try readLink("/proc/self/exe")
        let maps = try readFile("/proc/self/maps")
        let pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard pagemap >= 0 else { throw SystemError(errno: errno) }
        defer { close(pagemap) }
        var released = Released(mappings: 0, bytes: 0)
        for range in readOnlyMappings(of: program, inMaps: maps) {
            let start = UnsafeMutableRawPointer(bitPattern: range.lowerBound)
            let length = Int(range.upperBound - range.lowerBound)
            guard madvise(start, length, madvisePageOut) == 0 else { throw SystemError(errno: errno) }
            try unmapFilePages(range, pagemap: pagemap)
            // Only after the page-out: read-ahead off keeps later faults to the pages they need.
            guard madvise(start, length, MADV_RANDOM) == 0 else { throw SystemError(errno: errno) }
            released = Released(mappings: released.mappings + 1, bytes: released.bytes + length)
        }
        dropUnmappedProgramPages()
        return released
    }

    /// Drops from the page cache the program file's pages that no process maps any longer.
    /// For a user that does not own the file, `MADV_PAGEOUT` leaves them cached, and each later
    /// fault then maps a 64 KiB window of them again (fault-around), as far as the data
    /// segment; without them, a fault maps the one page it needs. `POSIX_FADV_DONTNEED` needs
    /// only read access, and a page some process maps stays.
    private static func dropUnmappedProgramPages() {
        let file = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        _ = posix_fadvise(file, 0, 0, POSIX_FADV_DONTNEED)
        close(file)
    }

    /// Unmaps the pages of `range` that are present and still the file's (bit 61 of their
    /// /proc/self/pagemap entry: a file page, not an anonymous copy), in runs.
    private static func unmapFilePages(_ range: Range<UInt>, pagemap: Int32) throws(SystemError) {
        let pageSize = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let pages = Int((range.upperBound - range.lowerBound) / pageSize)
        var entries = [UInt64](repeating: 0, count: pages)
        let read = entries.withUnsafeMutableBytes { pread(pagemap, $0.baseAddress, $0.count, off_t(range.lowerBound / pageSize * 8)) }
        guard read == pages * 8 else { throw SystemError(errno: read < 0 ? errno : EIO) }
        let filePage: UInt64 = 1 << 63 | 1 << 61  // present, and a page of the file
        var runStart: Int?
        for index in 0...pages {
            let isFilePage = index < pages && entries[index] & filePage == filePage
            if isFilePage, runStart == nil { runStart = index }
            guard !isFilePage, let first = runStart else { continue }
            runStart = nil
            let start = UnsafeMutableRawPointer(bitPattern: range.lowerBound + UInt(first) * pageSize)
            guard madvise(start, (index - first) * Int(pageSize), MADV_DONTNEED) == 0 else { throw SystemError(errno: errno) }
        }
    }

    /// The address ranges of the mappings of `program` and of shared libraries (`*.so`,
    /// `*.so.N…`) that cannot be written, from the text of /proc/PID/maps ("start-end perms
    /// offset dev inode path" per line).
    static func readOnlyMappings(of program: String, inMaps maps: String) -> [Range<UInt>] {
        var ranges: [Range<UInt>] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let path = fields[5].drop(while: { $0 == " " })
            guard path == program[...] || isSharedLibrary(path) else { continue }
            let perms = fields[1]
            guard perms.count == 4, perms.dropFirst().first == "-" else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let low = UInt(bounds[0], radix: 16), let high = UInt(bounds[1], radix: 16), low < high else { continue }
            ranges.append(low..<high)
        }
        return ranges
    }

    /// An absolute path whose file name is `NAME.so` or `NAME.so.` and numbers (`libc.so.6`,
    /// `libsystemd.so.0.35.0`); a replaced file's path ends in " (deleted)" and is not one.
    static func isSharedLibrary(_ path: Substring) -> Bool {
        guard path.first == "/", let name = path.split(separator: "/").last else { return false }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard let so = parts.lastIndex(of: "so"), parts[..<so].contains(where: { !$0.isEmpty }) else { return false }
        return parts[(so + 1)...].allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// MADV_PAGEOUT (Linux 5.4); not in Swift's Glibc module.
    private static let madvisePageOut: Int32 = 21

    private static func readLink(_ path: String) throws(SystemError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n >= 0 else { throw SystemError(errno: errno) }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readFile(_ path: String) throws(SystemError) -> String {
        String(decoding: try FileDescriptorIO.readFile(path), as: UTF8.self)
    }
}

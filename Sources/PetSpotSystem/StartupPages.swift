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
/// `MADV_PAGEOUT` reclaims those pages from this process; what a request runs later comes
/// back page by page (`MADV_RANDOM`: no read-ahead, so no neighbours come with it). Both are
/// advice about clean, read-only pages of a file: the program's contents never change.
public enum StartupPages {
    /// What `release()` advised: the read-only mappings of the program file, in bytes.
    public struct Released: Sendable, Equatable {
        public let mappings: Int
        public let bytes: Int
    }

    /// Advises the kernel to reclaim the read-only mappings of the running program's file.
    /// A program file replaced on disk since the start (an upgrade) is left alone: its maps
    /// no longer name the path `/proc/self/exe` reads.
    public static func release() throws(SystemError) -> Released {
        let program = try readLink("/proc/self/exe")
        let maps = try readFile("/proc/self/maps")
        var released = Released(mappings: 0, bytes: 0)
        for range in readOnlyMappings(of: program, inMaps: maps) {
            let start = UnsafeMutableRawPointer(bitPattern: range.lowerBound)
            let length = Int(range.upperBound - range.lowerBound)
            guard madvise(start, length, madvisePageOut) == 0 else { throw SystemError(errno: errno) }
            // Only after the page-out: read-ahead off keeps later faults to the pages they need.
            guard madvise(start, length, MADV_RANDOM) == 0 else { throw SystemError(errno: errno) }
            released = Released(mappings: released.mappings + 1, bytes: released.bytes + length)
        }
        return released
    }

    /// The address ranges of `program`'s mappings that cannot be written, from the text of
    /// /proc/PID/maps ("start-end perms offset dev inode path" per line).
    static func readOnlyMappings(of program: String, inMaps maps: String) -> [Range<UInt>] {
        var ranges: [Range<UInt>] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[5].drop(while: { $0 == " " }) == program[...] else { continue }
            let perms = fields[1]
            guard perms.count == 4, perms.dropFirst().first == "-" else { continue }
            let bounds = fields[0].split(separator: "-")
            guard bounds.count == 2, let low = UInt(bounds[0], radix: 16), let high = UInt(bounds[1], radix: 16), low < high else { continue }
            ranges.append(low..<high)
        }
        return ranges
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

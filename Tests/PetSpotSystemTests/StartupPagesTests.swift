import Glibc
@testable import PetSpotSystem
import Testing

@Suite("Startup pages")
struct StartupPagesTests {
    static let maps = """
        5581a0000000-5581a0400000 r--p 00000000 fe:01 1311 /usr/sbin/petspotd
        5581a0400000-5581a1800000 r-xp 00400000 fe:01 1311 /usr/sbin/petspotd
        5581a1800000-5581a1900000 r--p 01800000 fe:01 1311 /usr/sbin/petspotd
        5581a1900000-5581a1910000 rw-p 01900000 fe:01 1311 /usr/sbin/petspotd
        5581a1910000-5581a1920000 rw-p 00000000 00:00 0 
        5581a2000000-5581a2100000 rw-p 00000000 00:00 0                          [heap]
        7f0000000000-7f0000100000 r-xp 00000000 fe:01 2000                       /usr/lib/x86_64-linux-gnu/libc.so.6
        7f0000100000-7f0000110000 rw-p 00100000 fe:01 2000                       /usr/lib/x86_64-linux-gnu/libc.so.6
        7f0000110000-7f0000120000 r--p 00000000 fe:01 2001                       /usr/lib/x86_64-linux-gnu/libcrypto.so.3 (deleted)
        7f0000120000-7f0000130000 r--p 00000000 fe:01 2002                       /usr/share/locale/C.utf8/LC_CTYPE
        7f0000200000-7f0000300000 r-xp 00000000 fe:01 1400                       /usr/sbin/petspotd.old
        7f0000300000-7f0000400000 r-xp 00000000 fe:01 1500                       /opt/pet spot/petspotd
        7f0000400000-7f0000500000 r-xp 00000000 fe:01 1311                       /usr/sbin/petspotd (deleted)
        7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]
        """

    @Test("only the mappings of the program and its libraries that cannot be written are picked", arguments: [
        ("/usr/sbin/petspotd", [0x5581a000_0000..<0x5581a040_0000, 0x5581a040_0000..<0x5581a180_0000, 0x5581a180_0000..<0x5581a190_0000, libc]),
        ("/opt/pet spot/petspotd", [libc, 0x7f00_0030_0000..<0x7f00_0040_0000]),
        ("/usr/sbin/other", [libc]),
    ] as [(String, [Range<UInt>])])
    func picked(program: String, expected: [Range<UInt>]) {
        #expect(StartupPages.readOnlyMappings(of: program, inMaps: Self.maps) == expected)
    }

    static let libc: Range<UInt> = 0x7f00_0000_0000..<0x7f00_0010_0000

    @Test("a shared library is a file named NAME.so, maybe with numbers after it", arguments: [
        ("/usr/lib/x86_64-linux-gnu/libc.so.6", true),
        ("/usr/lib/x86_64-linux-gnu/libsystemd.so.0.35.0", true),
        ("/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", true),
        ("/usr/lib/libplain.so", true),
        ("/usr/lib/libc.so.6 (deleted)", false),
        ("/usr/lib/lib.something.so.x", false),
        ("/usr/share/locale/C.utf8/LC_CTYPE", false),
        ("/srv/a.so/reports.sqlite", false),
        ("/.so", false),
        ("libc.so.6", false),
        ("[vdso]", false),
    ])
    func sharedLibrary(path: String, expected: Bool) {
        #expect(StartupPages.isSharedLibrary(path[...]) == expected)
    }

    @Test("lines that are not mappings are passed over")
    func malformed() {
        let maps = "garbage\n\nzz-yy r-xp 0 0:0 1 /p\n10-8 r-xp 0 0:0 1 /p\n10-20 r-x 0 0:0 1 /p\n"
        #expect(StartupPages.readOnlyMappings(of: "/p", inMaps: maps).isEmpty)
    }

    @Test("releasing leaves fewer of the program's pages resident and the program running")
    func release() throws {
        let before = try residentKiB()
        let released = try StartupPages.release()
        #expect(released.mappings >= 2)
        #expect(released.bytes > 0)
        // The test runs on: the pages it needs come back as it faults them.
        #expect(try residentKiB() < before)
    }

    /// The resident KiB of this program file's read-only mappings, from /proc/self/smaps.
    private func residentKiB() throws -> Int {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        try #require(n > 0)
        let program = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        let smaps = String(decoding: try FileDescriptorIO.readToEnd(fd), as: UTF8.self)
        var total = 0
        var inProgram = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), fields.count >= 5 {
                inProgram = fields.count >= 6 && fields[5...].joined(separator: " ") == program && fields[1].dropFirst().first == "-"
            } else if inProgram, fields.first == "Rss:", fields.count >= 2, let kib = Int(fields[1]) {
                total += kib
            }
        }
        return total
    }
}

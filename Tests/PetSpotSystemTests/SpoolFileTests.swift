import Glibc
@testable import PetSpotSystem
import Testing

@Suite("Spool files")
struct SpoolFileTests {
    /// A fresh directory under /tmp, removed with what is in it by `remove`.
    private static func makeDirectory() throws -> String {
        var template = Array("/tmp/petspot-spool-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func names(in directory: String) throws -> [String] {
        try DirectoryListing.names(in: directory).sorted()
    }

    private static func remove(_ directory: String) {
        for name in (try? names(in: directory)) ?? [] { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    /// Descriptors of this process that point into `directory`.
    private static func openFiles(in directory: String) throws -> Int {
        var count = 0
        for name in try DirectoryListing.names(in: "/proc/self/fd") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
            guard n > 0 else { continue }
            if String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).hasPrefix(directory + "/") { count += 1 }
        }
        return count
    }

    /// `bytes` written to a new spool file in one part.
    private static func write(_ bytes: [UInt8], in directory: String) throws(SystemError) -> SpoolFile {
        try SpoolFile.write(count: bytes.count, in: directory) { (write) throws(SystemError) in
            try bytes.withUnsafeBytes { all in Result { () throws(SystemError) in try write(all) } }.get()
        }
    }

    @Test("the bytes come back whole, sizes 0 to 3 MiB; the file has no name, and is gone with its value", arguments: [0, 1, 4096, 65_537, 3 << 20])
    func roundTrip(count: Int) throws {
        let directory = try Self.makeDirectory()
        defer { Self.remove(directory) }
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        var file: SpoolFile? = try Self.write(bytes, in: directory)
        #expect(file?.count == count)
        #expect(try file?.read() == bytes)
        #expect(try Self.names(in: directory).isEmpty, "a spool file has a name")
        #expect(try Self.openFiles(in: directory) == 1)
        file = nil
        #expect(try Self.waitForNoOpenFiles(in: directory), "the descriptor outlived its file")
    }

    /// The close runs in a task: waits for it, for at most five seconds.
    private static func waitForNoOpenFiles(in directory: String) throws -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        deadline.tv_sec += 5
        while try openFiles(in: directory) > 0 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            if now.tv_sec > deadline.tv_sec || (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec) { return false }
            usleep(1_000)
        }
        return true
    }

    @Test("the fallback for a file system without O_TMPFILE leaves no name, and its descriptor closes on exec")
    func unlinkedFallback() throws {
        let directory = try Self.makeDirectory()
        defer { Self.remove(directory) }
        let fd = try SpoolFile.makeUnlinked(in: directory)
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(try Self.names(in: directory).isEmpty, "the fallback's file kept its name")
        #expect(try Self.openFiles(in: directory) == 1)
    }

    @Test("a directory that does not exist is an error naming why")
    func missingDirectory() {
        #expect(throws: SystemError(errno: ENOENT)) { try Self.write([1, 2, 3], in: "/nonexistent-petspot-spool") }
    }

    @Test("a sweep removes what a crash left of the named fallback, and nothing else")
    func sweep() throws {
        let directory = try Self.makeDirectory()
        defer { Self.remove(directory) }
        for name in [SpoolFile.namePrefix + "a1b2c3", SpoolFile.namePrefix + "zzzzzz", "reports.sqlite", "spool-note"] {
            let fd = open(directory + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
            try #require(fd >= 0)
            close(fd)
        }
        #expect(try SpoolFile.sweep(directory) == 2)
        #expect(try Self.names(in: directory) == ["reports.sqlite", "spool-note"])
        #expect(try SpoolFile.sweep(directory) == 0)
    }
}

import Glibc
@testable import PetSpotSystem
import PetSpotTestSupport
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

    @Test("the bytes come back whole, sizes 0 to 3 MiB; the file is the owner's alone, no descriptor stays open, and the file goes with its value", arguments: [0, 1, 4096, 65_537, 3 << 20])
    func roundTrip(count: Int) throws {
        let directory = try Self.makeDirectory()
        defer { Self.remove(directory) }
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) }
        var file: SpoolFile? = try Self.write(bytes, in: directory)
        #expect(file?.count == count)
        let names = try Self.names(in: directory)
        #expect(names.count == 1 && names.allSatisfy { $0.hasPrefix(SpoolFile.namePrefix) }, "\(names)")
        var info = stat()
        #expect(stat(try #require(file?.path), &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(try Self.openFiles(in: directory) == 0, "a spool file holds a descriptor")
        #expect(try file?.read() == bytes)
        #expect(try Self.openFiles(in: directory) == 0, "reading it back left a descriptor open")
        file = nil
        // The unlink runs in a task.
        try waitUntil("the file to go with its value", seconds: 5) { try Self.names(in: directory).isEmpty }
    }

    @Test("more files than the process may have descriptors: each is written and read back")
    func manyFilesFewDescriptors() throws {
        let directory = try Self.makeDirectory()
        defer { Self.remove(directory) }
        var limit = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let open = try DirectoryListing.names(in: "/proc/self/fd").count
        // Room for what the process holds and a few more, fewer than the files below.
        var lowered = limit
        lowered.rlim_cur = rlim_t(open + 16)
        try #require(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered) == 0)
        defer { _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) }
        let files = try (0..<64).map { (i: Int) throws(SystemError) -> SpoolFile in try Self.write([UInt8(i), 1, 2], in: directory) }
        for (i, file) in files.enumerated() { #expect(try file.read() == [UInt8(i), 1, 2]) }
    }

    @Test("a write that fails leaves no file")
    func failedWrite() throws {
        let directory = try Self.makeDirectory()
        defer { Self.remove(directory) }
        #expect(throws: SystemError(errno: EIO)) {
            try SpoolFile.write(count: 4, in: directory) { (write) throws(SystemError) in
                try [UInt8](repeating: 1, count: 3).withUnsafeBytes { all in Result { () throws(SystemError) in try write(all) } }.get()
            }
        }
        #expect(try Self.names(in: directory).isEmpty)
    }

    @Test("a directory that does not exist is an error naming why")
    func missingDirectory() {
        #expect(throws: SystemError(errno: ENOENT)) { try Self.write([1, 2, 3], in: "/nonexistent-petspot-spool") }
    }

    @Test("a sweep removes the spool files a crash left, and nothing else")
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

import Glibc
@testable import PetSpotSystem
import Testing

@Suite("Random ids")
struct RandomIDTests {
    @Test("the bits become a version-4 UUID in lowercase text", arguments: [
        (UInt64(0), UInt64(0), "00000000-0000-4000-8000-000000000000"),
        (UInt64.max, UInt64.max, "ffffffff-ffff-4fff-bfff-ffffffffffff"),
        (0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210, "01234567-89ab-4def-bedc-ba9876543210"),
    ])
    func text(high: UInt64, low: UInt64, expected: String) {
        #expect(RandomID.text(high: high, low: low) == expected)
    }

    @Test("ids differ, and stay random with the process out of descriptors")
    func outOfDescriptors() throws {
        var limit = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        var lowered = limit
        lowered.rlim_cur = rlim_t(try DirectoryListing.names(in: "/proc/self/fd").count + 8)
        try #require(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered) == 0)
        var held: [Int32] = []
        defer {
            held.forEach { close($0) }
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        while true {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            if fd < 0 { break }
            held.append(fd)
        }
        try #require(errno == EMFILE)
        let ids = (0..<64).map { _ in RandomID.make() }
        #expect(Set(ids).count == ids.count, "\(ids.prefix(3))")
        #expect(ids.allSatisfy { $0.count == 36 && $0.split(separator: "-")[2].hasPrefix("4") })
    }
}

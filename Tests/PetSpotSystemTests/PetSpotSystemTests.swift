import Dispatch
import Glibc
import PetSpotSystem
import Synchronization
import Testing

@Suite("Descriptors and threads")
struct PetSpotSystemTests {
    @Test("a write larger than a pipe holds arrives whole, and reads back to the end")
    func wholeWrite() throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // Over four times a pipe's 64 KiB buffer: write(2) takes it in several short writes.
        let text = String(repeating: "petspot ✓ ", count: 24 * 1024)
        let received = Mutex<[UInt8]?>(nil)
        let done = DispatchSemaphore(value: 0)
        DetachedThread.start(named: "test-reader") {
            let bytes = try? FileDescriptorIO.readToEnd(readEnd)
            received.withLock { $0 = bytes }
            done.signal()
        }
        try FileDescriptorIO.write(writeEnd, text)
        close(writeEnd)
        try #require(done.wait(timeout: .now() + 10) == .success)
        close(readEnd)
        #expect(received.withLock { $0 } == Array(text.utf8))
    }

    @Test("a descriptor that cannot be written gives its errno")
    func failure() throws {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(throws: SystemError(errno: EBADF)) { try FileDescriptorIO.write(fd, "x") }
        #expect(SystemError(errno: EBADF).description == "Bad file descriptor")
    }

    @Test("a thread runs its work under its name, cut to the kernel's 15 bytes")
    func threadName() throws {
        let name = Mutex<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        DetachedThread.start(named: "petspot-a-long-thread-name") {
            let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
            let bytes = (try? FileDescriptorIO.readToEnd(fd)) ?? []
            close(fd)
            name.withLock { $0 = String(decoding: bytes, as: UTF8.self) }
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 10) == .success)
        #expect(name.withLock { $0 } == "petspot-a-long-\n")
    }
}

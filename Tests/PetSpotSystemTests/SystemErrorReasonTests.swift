import FoundationEssentials
import Glibc
import PetSpotSystem
import Testing

@Suite("The reason a file operation failed")
struct SystemErrorReasonTests {
    struct Other: Error, CustomStringConvertible {
        var description: String { "something else" }
    }

    @Test("strerror's words inside a Foundation file error; any other error as it describes itself")
    func reasons() throws {
        let missing = "/nonexistent-\(UInt64.random(in: 0...UInt64.max))/file"
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: missing))
            Issue.record("read a file that does not exist")
        } catch {
            #expect(SystemError.reason(error) == "No such file or directory")
        }
        do {
            try FileManager.default.createDirectory(atPath: "/dev/null/sub", withIntermediateDirectories: true)
            Issue.record("made a directory under /dev/null")
        } catch {
            #expect(SystemError.reason(error) == "Not a directory")
        }
        #expect(SystemError.reason(SystemError(errno: EACCES)) == "Permission denied")
        #expect(SystemError.reason(Other()) == "something else")
    }
}

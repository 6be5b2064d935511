import Foundation
import Testing

/// `petspot` against a daemon that hangs or floods: every call ends by its deadline or at the
/// line limit, and no socket left in the working directory is taken for the daemon's.
@Suite("petspot against a hung or hostile daemon", .serialized)
struct ClientDeadlineTests {
    @Test("a daemon that never answers: the call ends at --timeout with exit 69 and says so")
    func neverAnswers() throws {
        let fake = try SilentDaemon(behaviour: .neverAnswers)
        let result = try runProgram(Paths.petspot, ["status", "--socket", fake.socketPath, "--timeout", "1"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("petspotd did not answer within 1 s (the client's timeout)"), "\(result.stderr)")
    }

    @Test("a daemon that answers a byte a second: the deadline bounds the whole call, not each read")
    func trickles() throws {
        let fake = try SilentDaemon(behaviour: .tricklesOneBytePerSecond)
        let result = try runProgram(Paths.petspot, ["status", "--socket", fake.socketPath, "--timeout", "2.5"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("did not answer within 2.5 s"), "\(result.stderr)")
    }

    @Test("a line that never ends: taken up to --max-answer-bytes, then the connection is closed with exit 69")
    func endlessLine() throws {
        let fake = try SilentDaemon(behaviour: .endlessLine)
        let result = try runProgram(Paths.petspot, ["status", "--socket", fake.socketPath, "--max-answer-bytes", "1048576"])
        #expect(result.status == 69)
        #expect(result.stderr.contains("an answer line longer than 1048576 bytes (the client's limit)"), "\(result.stderr)")
    }

    @Test("--timeout and --max-answer-bytes at their edges")
    func optionEdges() throws {
        let fake = try SilentDaemon(behaviour: .neverAnswers)
        for bad in [["--timeout", "0"], ["--timeout", "86401"], ["--max-answer-bytes", "65535"]] {
            let result = try runProgram(Paths.petspot, ["status", "--socket", fake.socketPath] + bad)
            #expect(result.status == 64, "\(bad)")
            #expect(result.stderr.contains(bad[0]), "\(result.stderr)")
        }
        #expect(fake.connections == 0)
        let atLimit = try runProgram(Paths.petspot, ["status", "--socket", fake.socketPath, "--max-answer-bytes", "65536", "--timeout", "0.5"])
        #expect(atLimit.status == 69)
        #expect(atLimit.stderr.contains("did not answer within 0.5 s"), "\(atLimit.stderr)")
    }

    @Test("a socket at ./run/petspotd.sock in the working directory is never used: without --socket or $PETSPOT_SOCKET it is the system socket")
    func plantedSocketIgnored() throws {
        let fake = try SilentDaemon(behaviour: .neverAnswers)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-shared-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("run"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("run/petspotd.sock").path,
                                                   withDestinationPath: fake.socketPath)
        var environment = ProcessInfo.processInfo.environment
        environment["PETSPOT_SOCKET"] = nil
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.petspot)
        process.arguments = ["status", "--timeout", "2"]
        process.environment = environment
        process.currentDirectoryURL = folder
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(fake.connections == 0, "\(stderr)")
        #expect(stderr.contains("/run/petspotd/petspotd.sock") || process.terminationStatus == 0, "\(stderr)")
    }
}

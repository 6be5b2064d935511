import Foundation
import PetSpotTestSupport
import Testing

/// `petspot` against a daemon that hangs or floods: every call ends by its deadline or at the
/// line limit, and no socket left in the working directory is taken for the daemon's.
@Suite("petspot against a hung or hostile daemon", .serialized)
struct ClientDeadlineTests {
    @Test("a daemon that never answers, answers a byte a second (the deadline bounds the whole call, not each read), or sends a line that never ends: exit 69, saying which", arguments: [
        (SilentDaemon.Behaviour.neverAnswers, ["--timeout", "1"], "petspotd did not answer within 1 s (the client's timeout)"),
        (.tricklesOneBytePerSecond, ["--timeout", "2.5"], "did not answer within 2.5 s"),
        (.endlessLine, ["--max-answer-bytes", "1048576"], "an answer line longer than 1048576 bytes (the client's limit)"),
    ])
    func hostileDaemon(behaviour: SilentDaemon.Behaviour, options: [String], message: String) throws {
        let fake = try SilentDaemon(behaviour: behaviour)
        let result = try runProgram(Paths.petspot, ["status", "--socket", fake.socketPath] + options)
        #expect(result.status == 69)
        #expect(result.stderr.contains(message), "\(result.stderr)")
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

import Foundation
import NIOConcurrencyHelpers
import PetSpotTestSupport

/// A petspot command that follows something until Ctrl-C (`--watch`), its standard output
/// collected as it comes.
final class FollowingProgram {
    private let process = Process()
    private let output = Pipe()
    private let collected = NIOLockedValueBox("")

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Paths.petspot)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let collected = collected
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            collected.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Everything written so far.
    var text: String { collected.withLockedValue { $0 } }

    var lines: [String] { text.split(separator: "\n").map(String.init) }

    /// Ends it as Ctrl-C does; its exit status.
    func interrupt() throws -> Int32 {
        kill(process.processIdentifier, SIGINT)
        try waitUntil("petspot to stop") { !process.isRunning }
        output.fileHandleForReading.readabilityHandler = nil
        return process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }
}

import Foundation
import PetSpotTestSupport

/// A socket where petspotd should be, served by socat, that misbehaves as a hung or hostile
/// daemon would: it never answers, answers one byte at a time forever, or sends a line that
/// never ends. Clients are tested against real sockets and a real peer, not a stub.
final class SilentDaemon {
    enum Behaviour {
        /// Reads what it is sent and never writes.
        case neverAnswers
        /// Writes one byte a second, never a newline.
        case tricklesOneBytePerSecond
        /// Writes bytes as fast as the client takes them, never a newline.
        case endlessLine
    }

    let directory: URL
    let socketPath: String
    private let process: Process

    init(behaviour: Behaviour) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-silent-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        socketPath = directory.appendingPathComponent("petspotd.sock").path
        let talk = switch behaviour {
        case .neverAnswers: "cat >/dev/null"
        case .tricklesOneBytePerSecond: "while printf a; do sleep 1; done"
        // socat's address syntax takes quotes and backslashes itself: none are used.
        case .endlessLine: "yes a | tr -dc a"
        }
        // Each connection leaves a file behind, so a test can wait for the client to arrive.
        let command = "mktemp \(directory.path)/connection.XXXXXX >/dev/null; \(talk)"
        process = Process()
        // Foundation starts it in a session of its own: the shells socat forks for connections
        // are in its process group and go with it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        process.arguments = ["UNIX-LISTEN:\(socketPath),fork,unlink-early", "SYSTEM:\(command)"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try waitUntil("socat to listen on \(socketPath)") { FileManager.default.fileExists(atPath: socketPath) }
    }

    /// How many clients have connected so far.
    var connections: Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasPrefix("connection.") }.count
    }

    deinit {
        Foundation.kill(-process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }
}

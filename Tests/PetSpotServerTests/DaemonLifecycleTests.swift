import Foundation
import Logging
import PetSpotLocation
@testable import PetSpotServer
import PetSpotSettings
import PetSpotTestSupport
import Testing
import UnixSignals

/// The daemon in this process, so that its threads can be seen: nothing runs before `run`,
/// a start that fails leaves nothing running, and nothing outlives a stop.
@Suite("Daemon lifecycle in process", .serialized)
struct DaemonLifecycleTests {
    static let logger = Logger(label: "petspotd-test") { _ in SwiftLogNoOpLogHandler() }
    static let gpsdThread = "petspotd-gpsd"

    /// How many of this process's threads have a name starting with `prefix`.
    static func threads(named prefix: String) -> Int {
        let ids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return ids.filter { id in
            let name = (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8)) ?? ""
            return name.hasPrefix(prefix)
        }.count
    }

    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-lifecycle-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A daemon of this folder with the gpsd provider: its watch is a thread of its own. Port 1
    /// refuses, so the watch keeps retrying for as long as it runs.
    var configuration: DaemonConfiguration {
        var c = DaemonConfiguration()
        c.socketPath = directory.appendingPathComponent("petspotd.sock").path
        c.databasePath = directory.appendingPathComponent("reports.sqlite").path
        c.locationProviders = ["gpsd"]
        c.gpsdPort = 1
        return c
    }

    @Test("a start that fails at the socket file or at the database leaves no gpsd watch and no event loop running",
          arguments: ["socket.path", "database.path"])
    func failedStart(at key: String) async throws {
        let eventLoopsBefore = Self.threads(named: "NIO-ELT-")
        var c = configuration
        let file = directory.appendingPathComponent("a-file").path
        try Data().write(to: URL(fileURLWithPath: file))
        if key == "socket.path" {
            // The socket's folder would have to be where a file is.
            c.socketPath = file + "/petspotd.sock"
        } else {
            c.databasePath = directory.path
        }
        do {
            _ = try await Daemon.start(configuration: c, clock: .system, logger: Self.logger, environment: [:])
            Issue.record("the start succeeded")
        } catch let error as ConfigurationError {
            #expect(error.message.hasPrefix(key + ": "), "\(error)")
        }
        #expect(Self.threads(named: Self.gpsdThread) == 0)
        try await waitUntil("the event loops to end") { () async in Self.threads(named: "NIO-ELT-") <= eventLoopsBefore }
    }

    @Test("the gpsd watch starts with run, not before; a reload's new watch and the old one both end with the stop")
    func watchFollowsRun() async throws {
        let daemon = try await Daemon.start(configuration: configuration, clock: .system, logger: Self.logger, environment: [:])
        #expect(Self.threads(named: Self.gpsdThread) == 0, "started, not running: no watch yet")
        let (signals, send) = AsyncStream.makeStream(of: UnixSignal.self)
        try await withThrowingTaskGroup { tasks in
            tasks.addTask { try await daemon.run(signals: signals, reload: {}) }
            try await waitUntil("the watch to start") { () async in Self.threads(named: Self.gpsdThread) == 1 }
            // Another gpsd: the old watch is stopped, a new one started.
            var moved = configuration
            moved.gpsdPort = 2
            #expect(daemon.reload(moved).isEmpty)
            let provider = try #require(daemon.services.location.providers.first)
            // Its watch runs: it has tried gpsd and says why it failed.
            try await waitUntil("the new watch to try its gpsd") {
                let status = await provider.status()
                return status.detail == "127.0.0.1:2" && status.lastError != nil
            }
            send.yield(.sigterm)
            try await tasks.waitForAll()
        }
        try await waitUntil("every watch to end") { () async in Self.threads(named: Self.gpsdThread) == 0 }
        #expect(!FileManager.default.fileExists(atPath: configuration.socketPath))
    }
}

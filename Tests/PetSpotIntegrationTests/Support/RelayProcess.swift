import Foundation
import PetSpotTestSupport
import PetSpotClient
import PetSpotFlow
import PetSpotJSON

/// Lower-case hex SHA-256, as the daemon and PostgreSQL's sha256() write it.
func sha256Hex(_ bytes: [UInt8]) -> String {
    SHA256.hexHash(bytes)
}

extension Paths {
    static var petspotRelay: String { binaries.appendingPathComponent("petspot-relay").path }
}

/// A real petspot-relay between one DaemonProcess and one PostgresServer, with its own state file and log.
final class RelayProcess {
    let directory: URL
    let statePath: String
    let logPath: String
    var arguments: [String]
    /// Added to the test's environment for the relay (systemd's CREDENTIALS_DIRECTORY, say).
    var environment: [String: String] = [:]
    private(set) var process: Process?

    /// `settings` go into a configuration file (`--config`); the flags name the daemon, the
    /// database, the box and the state file.
    convenience init(daemon: DaemonProcess, postgresURL: String, box: String?, settings: JSONObject = ["pollIntervalSeconds": .number(JSONNumber(validatedLiteral: "0.05")), "retryMaxDelaySeconds": 1]) throws {
        try self.init(socket: daemon.socketPath, postgresURL: postgresURL, box: box, settings: settings)
    }

    /// `box`: the `--box` the daemon must have; nil: none, the relay takes the daemon's.
    init(socket: String, postgresURL: String, box: String?, settings: JSONObject = ["pollIntervalSeconds": .number(JSONNumber(validatedLiteral: "0.05")), "retryMaxDelaySeconds": 1]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-relay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        statePath = directory.appendingPathComponent("state.json").path
        logPath = directory.appendingPathComponent("relay.log").path
        let configPath = directory.appendingPathComponent("relay.json").path
        try JSONWriter.string(.object(settings)).write(toFile: configPath, atomically: true, encoding: .utf8)
        arguments = ["--socket", socket, "--postgres", postgresURL] + (box.map { ["--box", $0] } ?? []) + ["--state-file", statePath,
                     "--config", configPath]
    }

    /// How many log lines hold `text`.
    func logLines(containing text: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(text) }.count
    }

    @discardableResult
    func start() throws -> RelayProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.petspotRelay)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let log = try appendingLog(at: logPath)
        process.standardError = log
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        return self
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func stop() throws -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        process.terminate()
        try waitUntil("petspot-relay to stop\n\(log)") { !process.isRunning }
        return process.terminationStatus
    }

    func kill() throws {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        try waitUntil("petspot-relay to die") { !process.isRunning }
    }

    var isRunning: Bool { process?.isRunning ?? false }

    var log: String { logText(at: logPath) }

    /// `petspot-relay --status` for this relay's daemon and state file.
    func status() throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(Paths.petspotRelay, ["--status", "--socket", arguments[1], "--state-file", statePath], environment: [:])
    }

    deinit {
        if let process, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

extension DaemonProcess {
    /// A daemon whose relay methods the tests (root) may call.
    /// `box`: its box.name, which a relay given `--box` must find.
    static func forRelay(box: String = "a", settings: JSONObject = JSONObject()) throws -> DaemonProcess {
        var merged: JSONObject = ["relay": ["group": "root", "claimTimeoutSeconds": 5], "box": ["name": .string(box)]]
        for member in settings { merged[member.key] = member.value }
        return try DaemonProcess(settings: merged)
    }

    /// relay.status's pending count.
    func relayPending() throws -> Int { try relayStatusCount("pending") }

    /// relay.status's count of reports claimed and not yet acknowledged.
    func relayClaimed() throws -> Int { try relayStatusCount("claimed") }

    private func relayStatusCount(_ name: String) throws -> Int {
        let conn = try connect()
        return try conn.result("relay.status")[name].flatMap { if case .number(let n) = $0 { n.exactInt } else { nil } } ?? -1
    }
}

extension PostgresServer {
    /// Every stored report id with how many rows it has, and its box.
    func storedReports() throws -> [String: (count: Int, box: String)] {
        let text = try psql("SELECT id || '|' || count(*) || '|' || min(box) FROM reports GROUP BY id")
        var rows: [String: (count: Int, box: String)] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "|", omittingEmptySubsequences: false)
            rows[String(parts[0])] = (Int(parts[1]) ?? 0, String(parts[2]))
        }
        return rows
    }
}

extension PostgresServer {
    /// Every stored report's life, "status|version|erased" (erased: erased_at set, no photo),
    /// by id.
    func storedLives() throws -> [String: String] {
        let text = try psql("SELECT id || '|' || status || '|' || version || '|' || (erased_at IS NOT NULL AND photo IS NULL) FROM reports")
        var lives: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1)
            lives[String(parts[0])] = String(parts[1])
        }
        return lives
    }
}

extension JSONValue {
    /// A report's life as `PostgresServer.storedLives` writes it.
    var lifeText: String {
        let version = self["version"].flatMap { if case .number(let n) = $0 { n.exactInt } else { nil } } ?? -1
        return "\(self["status"]?.stringValue ?? "?")|\(version)|\(self["erased"] == true)"
    }
}

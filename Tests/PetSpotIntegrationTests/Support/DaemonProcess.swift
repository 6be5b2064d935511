import Foundation
import PetSpotTestSupport
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem

/// A real petspotd in its own temporary folder, with its own socket and database.
final class DaemonProcess {
    let directory: URL
    let socketPath: String
    let databasePath: String
    let configPath: String
    let logPath: String
    private(set) var process: Process?
    private let extraArguments: [String]
    private let environment: [String: String]
    private let launcher: [String]
    /// Whether `--config` names the generated file; without it the daemon looks for one.
    var passesConfig = true

    /// `settings` is merged into the generated configuration file; `arguments` are extra flags;
    /// `environment` is added to the daemon's; `launcher` runs before it (e.g. systemd-socket-activate).
    init(settings: JSONObject = JSONObject(), arguments: [String] = [], directory: URL? = nil,
         environment: [String: String] = [:], launcher: [String] = []) throws
    {
        let dir = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        // Other users (the two-users test) must reach the socket inside.
        chmod(dir.path, 0o755)
        self.directory = dir
        socketPath = dir.appendingPathComponent("petspotd.sock").path
        databasePath = dir.appendingPathComponent("var/reports.sqlite").path
        configPath = dir.appendingPathComponent("petspotd.json").path
        logPath = dir.appendingPathComponent("petspotd.log").path
        extraArguments = arguments
        self.environment = environment
        self.launcher = launcher
        var config: JSONObject = [
            "socket": ["path": .string(socketPath), "mode": "0666"],
            "database": ["path": .string(databasePath)],
            "species": ["file": .string(Paths.speciesFile)],
            "timeZone": "UTC",
            "log": ["level": "debug"],
            "location": ["providers": ["simulated"], "simulated": ["mode": "fix", "position": [.number(JSONNumber(validatedLiteral: "52.2296756")), .number(JSONNumber(validatedLiteral: "21.0122287"))]]],
        ]
        Self.merge(settings, into: &config)
        try JSONWriter.string(.object(config)).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// A daemon (not yet started) whose standard error is the stream JOURNAL_STREAM names, as
    /// under systemd: it writes journald priorities.
    static func loggingToJournal(arguments: [String] = []) throws -> DaemonProcess {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-journal-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let log = dir.appendingPathComponent("petspotd.log").path
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        var info = stat()
        guard stat(log, &info) == 0 else { throw TimedOut(description: "cannot stat \(log)") }
        return try DaemonProcess(arguments: arguments, directory: dir, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
    }

    /// Merges settings into a configuration, one level of sections deep.
    private static func merge(_ settings: JSONObject, into config: inout JSONObject) {
        for member in settings {
            if case .object(let section) = member.value, case .object(var existing)? = config[member.key] {
                for inner in section { existing[inner.key] = inner.value }
                config[member.key] = .object(existing)
            } else {
                config[member.key] = member.value
            }
        }
    }

    /// Starts the daemon and waits until its socket answers.
    @discardableResult
    func start() throws -> DaemonProcess {
        let process = try launch()
        self.process = process
        try waitUntil("petspotd to serve \(socketPath)\n\(log)") {
            guard process.isRunning else { throw TimedOut(description: "petspotd exited with \(process.terminationStatus):\n\(log)") }
            return (try? PetSpotConnection(socketPath: socketPath, timeout: .seconds(5))) != nil
        }
        return self
    }

    /// Launches without waiting for the socket (a launcher may start the daemon later).
    func startExpectingToRun() throws -> Process {
        let process = try launch()
        self.process = process
        return process
    }

    /// Runs the daemon expecting it to refuse to start; returns its exit code and stderr.
    func startExpectingFailure(arguments: [String] = []) throws -> (status: Int32, stderr: String) {
        let process = try launch(more: arguments)
        try waitUntil("petspotd to exit") { !process.isRunning }
        return (process.terminationStatus, log)
    }

    private func launch(more: [String] = []) throws -> Process {
        let process = Process()
        let command = launcher + [Paths.petspotd] + (passesConfig ? ["--config", configPath] : []) + extraArguments + more
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.currentDirectoryURL = directory
        let log = try appendingLog(at: logPath)
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }

    var log: String { logText(at: logPath) }

    func connect(timeout: Duration = .seconds(30)) throws -> PetSpotConnection {
        try PetSpotConnection(socketPath: socketPath, timeout: timeout)
    }

    /// A connection the daemon serves, waiting for a place under `limits.maxConnections`
    /// (the start-up probe's connection may not be released yet).
    func servedConnection() throws -> PetSpotConnection {
        var served: PetSpotConnection?
        try waitUntil("a connection place") {
            let conn = try connect()
            guard try conn.result("daemon.info")["name"] == "petspotd" else { return false }
            served = conn
            return true
        }
        return served!
    }

    /// SIGTERM, then waits for the exit; returns the exit status.
    @discardableResult
    func stop() throws -> Int32 {
        guard let process, process.isRunning else { return process?.terminationStatus ?? 0 }
        process.terminate()
        try waitUntil("petspotd to stop") { !process.isRunning }
        return process.terminationStatus
    }

    func signal(_ number: Int32) {
        if let process, process.isRunning { Foundation.kill(process.processIdentifier, number) }
    }

    /// Rewrites the configuration file, merging `settings` into what it holds.
    func rewriteConfiguration(_ settings: JSONObject) throws {
        var config = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: configPath)))).objectValue!
        Self.merge(settings, into: &config)
        try JSONWriter.string(.object(config)).write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// SIGKILL: no chance to clean up, like a power cut for the process.
    func kill() throws {
        guard let process, process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        try waitUntil("petspotd to die") { !process.isRunning }
    }

    deinit {
        if let process, process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs a program to its end, feeding `input`; returns exit status and output. A given
/// `standardOutput` replaces the captured stdout (which is then "").
@discardableResult
func runProgram(_ path: String, _ arguments: [String], input: String? = nil, environment: [String: String]? = nil,
                standardOutput: FileHandle? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if var environment {
        // A sanitized build's settings (scripts/sanitize) reach every program a test runs.
        for key in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE"] where environment[key] == nil {
            environment[key] = ProcessInfo.processInfo.environment[key]
        }
        process.environment = environment
    }
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    if let standardOutput { process.standardOutput = standardOutput } else { process.standardOutput = out }
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try inPipe.fileHandleForWriting.close()
    let stdout = standardOutput == nil ? out.fileHandleForReading.readDataToEndOfFile() : Data()
    let stderr = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
}

extension PetSpotConnection {
    /// A call that must succeed.
    func result(_ method: String, _ params: JSONObject = JSONObject()) throws -> JSONValue {
        try call(method, params).get()
    }

    /// A call that must fail; returns the error.
    func failure(_ method: String, _ params: JSONObject = JSONObject()) throws -> RPCError {
        switch try call(method, params) {
        case .success(let value): throw TimedOut(description: "\(method) succeeded unexpectedly: \(JSONWriter.string(value))")
        case .failure(let error): return error
        }
    }

    /// Sends one raw line and returns the parsed answer line.
    func raw(_ line: String) throws -> JSONValue {
        try send(Array((line + "\n").utf8))
        guard let value = try readValue() else { throw ClientError("closed") }
        return value
    }
}

extension JSONValue {
    /// `value["a"]["b"]` without optional chains in tests.
    subscript(path path: String...) -> JSONValue? {
        var current: JSONValue? = self
        for key in path { current = current?[key] }
        return current
    }

    var errorKind: String? { self["error"]?["data"]?["kind"]?.stringValue }
}

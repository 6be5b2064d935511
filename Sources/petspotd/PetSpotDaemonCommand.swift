import ArgumentParser
import FoundationEssentials
import Logging
import PetSpotFlow
import PetSpotLogging
import PetSpotProtocol
import PetSpotServer
import PetSpotSettings
import PetSpotSystem
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

@main
struct PetSpotDaemonCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspotd",
        abstract: "Runs missing-pet report flows for local clients over a Unix socket.",
        discussion: """
            Settings come from the configuration file; every flag overrides the file's value.
            Clients speak newline-delimited JSON-RPC 2.0 on the socket (see docs/PROTOCOL.md):
              socat - UNIX-CONNECT:run/petspotd.sock
            """,
        version: petspotdVersion)

    @Option(name: .long, help: ArgumentHelp(
        "Configuration file. Without it: ./config/petspotd.json if present, else /etc/petspotd/petspotd.json, else built-in defaults.",
        valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("Socket path (socket.path).", valueName: "path"))
    var socket: String?

    @Option(name: .customLong("socket-mode"), help: ArgumentHelp("Octal file mode of the socket, e.g. 0660 (socket.mode).", valueName: "mode"))
    var socketMode: String?

    @Option(name: .long, help: ArgumentHelp("The reports database, SQLite (database.path).", valueName: "path"))
    var database: String?

    @Option(name: .customLong("location-providers"), help: ArgumentHelp("Comma-separated providers in order: gpsd, simulated, static (location.providers).", valueName: "list"))
    var locationProviders: String?

    @Option(name: .customLong("gpsd"), help: ArgumentHelp("Where gpsd listens (location.gpsd.host, location.gpsd.port).", valueName: "host:port"))
    var gpsd: String?

    @Option(name: .customLong("simulated-mode"), help: ArgumentHelp("fix, permission-denied, settings-prompt or no-fix (location.simulated.mode).", valueName: "mode"))
    var simulatedMode: String?

    @Option(name: .customLong("simulated-position"), help: ArgumentHelp("The simulated provider's position (location.simulated.position).", valueName: "lat,lon"))
    var simulatedPosition: String?

    @Option(name: .customLong("static-position"), help: ArgumentHelp("A box that never moves: its surveyed position (location.static.position).", valueName: "lat,lon"))
    var staticPosition: String?

    @Option(name: .customLong("box-name"), help: ArgumentHelp("The box's name on its reports; default the host name (box.name).", valueName: "name"))
    var boxName: String?

    @Option(name: .customLong("staff-group"), help: ArgumentHelp("The Unix group that sees the animal list whole (board.staffGroup).", valueName: "name"))
    var staffGroup: String?

    @Option(name: .customLong("flow-idle-timeout"), help: ArgumentHelp("Idle flows expire after this many seconds (limits.flowIdleTimeoutSeconds).", valueName: "seconds"))
    var flowIdleTimeout: String?

    @Option(name: .customLong("max-line-bytes"), help: ArgumentHelp("Longest accepted request line (limits.maxLineBytes).", valueName: "n"))
    var maxLineBytes: String?

    @Option(name: .customLong("time-zone"), help: ArgumentHelp("The zone \"today\" is reckoned in; default the system's (timeZone).", valueName: "tz"))
    var timeZone: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical (log.level).", valueName: "level"))
    var logLevel: String?

    @Option(name: .customLong("limit"), parsing: .singleValue,
            help: ArgumentHelp("Any limit from the configuration, e.g. --limit maxFlowsPerUser=10 (limits.NAME). Repeatable.", valueName: "name=n"))
    var limitOverrides: [String] = []

    @Option(name: .customLong("relay-group"), help: ArgumentHelp("The Unix group whose members may call relay.* (relay.group).", valueName: "name"))
    var relayGroup: String?

    @Option(name: .customLong("relay"), parsing: .singleValue,
            help: ArgumentHelp("A numeric relay setting, e.g. --relay claimTimeoutSeconds=5 (relay.NAME). Repeatable.", valueName: "name=n"))
    var relayOverrides: [String] = []

    func run() async throws {
        let source = ConfigurationSource.locate(named: config) { FileManager.default.fileExists(atPath: $0) }
        let settings: DaemonConfiguration
        do {
            settings = try resolveConfiguration(source)
        } catch {
            printError("petspotd: \(error.description)")
            throw ExitCode(exitConfigurationError)
        }
        let journald = StderrLogHandler.stderrIsJournal(ProcessInfo.processInfo.environment["JOURNAL_STREAM"])
        let level = Logger.Level(rawValue: settings.logLevel.rawValue) ?? .info
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level, journald: journald) }
        let logger = Logger(label: "petspotd")

        // A peer that vanishes must never kill the process.
        signal(SIGPIPE, SIG_IGN)
        // glibc raises its mmap threshold each time a large mmapped block is freed, up to
        // 32 MiB; later request lines, photos and answers of megabytes then come from the heap
        // arenas and stay in RSS for good after a burst (measured: +70 MiB after 16 MiB lines;
        // Benchmarks/run-memory.sh). Pinned at its default, large buffers are mmapped and go
        // back to the kernel when freed.
        pinMallocMmapThreshold(bytes: 128 * 1024)
        // Caught before the start, so that a reload or stop that comes early waits its turn
        // rather than killing the process; kept for its whole life, so a second SIGTERM is heard.
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint, .sighup)
        let daemon: Daemon
        do {
            daemon = try await Daemon.start(configuration: settings, clock: .system, logger: logger)
        } catch let error as ConfigurationError {
            printError("petspotd: \(source.file ?? "built-in defaults"): \(error.description)")
            throw ExitCode(exitConfigurationError)
        } catch let damaged as DatabaseDamaged {
            printError("petspotd: \(damaged.description)")
            throw ExitCode(exitDatabaseDamaged)
        }
        // Only once started, so that a refused start stays one line.
        logger.info("configuration", metadata: ["from": "\(source)"])
        let command = self
        do {
            try await daemon.run(signals: signals) {
                // The file again, with the same flags on top: a flag still wins after a reload.
                do throws(ConfigurationError) {
                    _ = daemon.reload(try command.resolveConfiguration(source))
                } catch {
                    logger.error("reload refused; the settings in force stay", metadata: ["error": "\(error.description)"])
                }
            }
        } catch let stop as StopCutShort {
            logger.warning("\(stop.description)", metadata: ["exit": "\(stop.exitStatus)"])
            throw ExitCode(stop.exitStatus)
        } catch is DatabaseDamaged {
            throw ExitCode(exitDatabaseDamaged)
        }
    }

    /// The file (or the built-in defaults) first, then each flag on top: the flag wins.
    func resolveConfiguration(_ source: ConfigurationSource) throws(ConfigurationError) -> DaemonConfiguration {
        var c = try source.file.map { file throws(ConfigurationError) in try DaemonConfiguration.load(file: file) } ?? DaemonConfiguration()
        func flag(_ name: String, _ problem: String) -> ConfigurationError {
            ConfigurationError("--\(name): \(problem)")
        }
        if let socket {
            guard !socket.isEmpty else { throw flag("socket", "the path must not be empty") }
            c.socketPath = socket
        }
        if let socketMode {
            guard let mode = SettingParsers.fileMode(socketMode) else { throw flag("socket-mode", "\"\(socketMode)\" is not an octal file mode such as 0660") }
            c.socketMode = mode
        }
        if let database {
            guard !database.isEmpty else { throw flag("database", "the path must not be empty") }
            c.databasePath = database
        }
        if let locationProviders {
            let names = locationProviders.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimming(.whitespaces) }
            if let problem = SettingParsers.providersProblem(names) { throw flag("location-providers", problem) }
            c.locationProviders = names
        }
        if let gpsd {
            guard let colon = gpsd.lastIndex(of: ":"), let port = Int(gpsd[gpsd.index(after: colon)...]), (1...65_535).contains(port),
                  colon != gpsd.startIndex
            else { throw flag("gpsd", "\"\(gpsd)\" is not HOST:PORT, e.g. 127.0.0.1:2947") }
            c.gpsdHost = String(gpsd[..<colon])
            c.gpsdPort = port
        }
        if let simulatedMode {
            guard SettingParsers.simulatedModes.contains(simulatedMode) else {
                throw flag("simulated-mode", "\"\(simulatedMode)\" is not one of \(SettingParsers.simulatedModes.joined(separator: ", "))")
            }
            c.simulatedMode = simulatedMode
        }
        if let simulatedPosition {
            let parts = simulatedPosition.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { throw flag("simulated-position", "\"\(simulatedPosition)\" is not LAT,LON, e.g. 52.22968,21.01223") }
            if let problem = SettingParsers.positionProblem(latitude: parts[0], longitude: parts[1]) { throw flag("simulated-position", problem) }
            c.simulatedPosition = .init(latitude: parts[0].trimming(.whitespaces), longitude: parts[1].trimming(.whitespaces))
        }
        if let staticPosition {
            let parts = staticPosition.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2 else { throw flag("static-position", "\"\(staticPosition)\" is not LAT,LON, e.g. 52.22968,21.01223") }
            if let problem = SettingParsers.positionProblem(latitude: parts[0], longitude: parts[1]) { throw flag("static-position", problem) }
            c.staticPosition = .init(latitude: parts[0].trimming(.whitespaces), longitude: parts[1].trimming(.whitespaces))
        }
        if let boxName { try c.apply(["box": ["name": .string(boxName)]], file: "--box-name") }
        if let staffGroup { try c.apply(["board": ["staffGroup": .string(staffGroup)]], file: "--staff-group") }
        if let timeZone {
            guard LocalCalendar.isKnownZone(timeZone) else { throw flag("time-zone", "unknown time zone \"\(timeZone)\"") }
            c.timeZone = timeZone
        }
        if let logLevel {
            guard let level = DaemonConfiguration.LogLevel(rawValue: logLevel) else {
                throw flag("log-level", "\"\(logLevel)\" is not one of \(DaemonConfiguration.LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            c.logLevel = level
        }
        // Numeric limits go through the same reader as the file, so ranges are checked once.
        var limits: [(String, String, String)] = []
        if let flowIdleTimeout { limits.append(("flow-idle-timeout", "flowIdleTimeoutSeconds", flowIdleTimeout)) }
        if let maxLineBytes { limits.append(("max-line-bytes", "maxLineBytes", maxLineBytes)) }
        for override in limitOverrides {
            guard let eq = override.firstIndex(of: "=") else { throw flag("limit", "\"\(override)\" is not NAME=N, e.g. maxFlowsPerUser=10") }
            limits.append(("limit", String(override[..<eq]), String(override[override.index(after: eq)...])))
        }
        for (flagName, key, text) in limits {
            guard let n = Int(text) else { throw flag(flagName, "\"\(text)\" is not a whole number") }
            do {
                try c.apply(["limits": [key: .int(n)]], file: "--\(flagName)")
            } catch {
                guard let problem = error.problem, let setting = error.key else {
                    throw flag(flagName, "unknown limit \"\(key)\"; the limits are \(DaemonConfiguration.knownKeys.filter { $0.hasPrefix("limits.") }.map { $0.dropFirst(7) }.joined(separator: ", "))")
                }
                throw flag(flagName, "\(problem) (\(setting))")
            }
        }
        if let relayGroup {
            do {
                try c.apply(["relay": ["group": .string(relayGroup)]], file: "--relay-group")
            } catch {
                throw flag("relay-group", error.problem ?? error.message)
            }
        }
        let numericRelayKeys = ["claimTimeoutSeconds", "maxClaimReports", "maxClaimBytes", "maxConnectionsPerUser"]
        for override in relayOverrides {
            guard let eq = override.firstIndex(of: "=") else { throw flag("relay", "\"\(override)\" is not NAME=N, e.g. claimTimeoutSeconds=5") }
            let key = String(override[..<eq]), text = String(override[override.index(after: eq)...])
            guard numericRelayKeys.contains(key) else {
                throw flag("relay", "unknown relay setting \"\(key)\"; they are \(numericRelayKeys.joined(separator: ", "))")
            }
            guard let n = Int(text) else { throw flag("relay", "\"\(text)\" is not a whole number") }
            do {
                try c.apply(["relay": [key: .int(n)]], file: "--relay")
            } catch {
                throw flag("relay", "\(error.problem ?? error.message) (\(error.key ?? "relay." + key))")
            }
        }
        return c
    }
}

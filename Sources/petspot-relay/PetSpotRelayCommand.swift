import ArgumentParser
import FoundationEssentials
import Logging
import PetSpotLogging
import PetSpotProtocol
import PetSpotRelay
import PetSpotSettings
import PetSpotSystem
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

@main
struct PetSpotRelayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot-relay",
        abstract: "Carries this box's finished reports from petspotd into one central PostgreSQL, and the other boxes' missing pets back down.",
        discussion: """
            Claims reports from petspotd (relay.claim), stores them in PostgreSQL (table reports, created on first connect), then acknowledges them (relay.ack). A report is acknowledged only once PostgreSQL has committed it, and stored once however often it is sent. The other boxes' reports come down into petspotd's animal list (relay.fleetPut) from the central feed, woken by LISTEN petspot_fleet, from the cursor petspotd keeps with its copy (configuration keys fleet, boardRadiusKm, fleetPagePhotoBytes). Settings come from the configuration file; every flag overrides the file's value.

            --status exits 0 when all is well, 1 when the relay's last state has an error in force, 2 when petspotd could not be asked, 3 when there is no state file yet. A configuration error exits 78.
            """,
        version: petspotdVersion)

    @Option(name: .long, help: ArgumentHelp(
        "JSON configuration file (keys: socket, postgres, box, batchSize, pollIntervalSeconds, retryMaxDelaySeconds, stateFile, maxAnswerBytes, fleet, boardRadiusKm, fleetPagePhotoBytes). Without it: \(RelayConfiguration.defaultConfigFile) if present.",
        valueName: "file"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("petspotd's socket (socket); default PETSPOT_SOCKET, else /run/petspotd/petspotd.sock.", valueName: "path"))
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("The central database (postgres), as libpq takes it: postgresql://user@host:port/db?sslmode=verify-full or host=… dbname=… pairs; several hosts with target_session_attrs=read-write follow a failover.", valueName: "conninfo"))
    var postgres: String?

    @Option(name: .long, help: ArgumentHelp("The box name petspotd must have (box.name, which each report is stored centrally with): a check; default: petspotd's, whatever it is.", valueName: "name"))
    var box: String?

    @Option(name: .customLong("state-file"), help: ArgumentHelp("Where the relay keeps its state for --status (stateFile).", valueName: "path"))
    var stateFile: String?

    @Option(name: .customLong("log-level"), help: ArgumentHelp("trace, debug, info, notice, warning, error or critical.", valueName: "level"))
    var logLevel: String = "info"

    @Flag(name: .long, help: "Print the pending count, the last delivery and the last error, then exit.")
    var status = false

    func run() async throws {
        let settings: RelayConfiguration
        do {
            settings = try resolveConfiguration()
        } catch {
            printError("petspot-relay: \(error.description)")
            throw ExitCode(exitConfigurationError)
        }
        if status {
            let report = await RelayStatusReport.gather(link: DaemonLink(socketPath: settings.socketPath, timeout: .seconds(10), maxLineBytes: settings.maxAnswerBytes),
                                                        stateFile: StateFile(path: settings.stateFile))
            print(report.text)
            throw ExitCode(report.outcome.rawValue)
        }
        let target: PostgresConnectionString
        do throws(ConfigurationError) {
            guard let configured = settings.postgres else {
                throw ConfigurationError("no PostgreSQL connection string: give --postgres or the configuration key postgres")
            }
            target = try RelayConfiguration.withCredentialPassword(configured, credentialsDirectory: ProcessInfo.processInfo.environment["CREDENTIALS_DIRECTORY"])
        } catch {
            printError("petspot-relay: \(error.description)")
            throw ExitCode(exitConfigurationError)
        }
        guard let level = Logger.Level(rawValue: logLevel) else {
            printError("petspot-relay: --log-level: \"\(logLevel)\" is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            throw ExitCode(exitConfigurationError)
        }
        // Under systemd each line carries its priority: an outage is a warning in the journal.
        let journald = StderrLogHandler.stderrIsJournal(ProcessInfo.processInfo.environment["JOURNAL_STREAM"])
        LoggingSystem.bootstrap { label in StderrLogHandler(label: label, level: level, journald: journald) }
        // A daemon that goes away mid-write must not kill the relay.
        signal(SIGPIPE, SIG_IGN)
        // Claimed batches are lines of megabytes (photos): their buffers go back to the kernel.
        pinMallocMmapThreshold(bytes: 128 * 1024)
        let logger = Logger(label: "petspot-relay")
        let databaseLogger = Logger(label: "petspot-relay.postgres")
        let database = CentralDatabase(target: target, logger: databaseLogger)
        let relay = RelayService(
            settings: .init(box: settings.box, batchSize: settings.batchSize, pollInterval: settings.pollInterval,
                            retryMaxDelay: settings.retryMaxDelay, stateFile: settings.stateFile,
                            fleet: settings.fleet ? (settings.boardRadiusKm, settings.fleetPagePhotoBytes) : nil),
            daemon: DaemonLink(socketPath: settings.socketPath, maxLineBytes: settings.maxAnswerBytes),
            database: database,
            logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: relay, successTerminationBehavior: .gracefullyShutdownGroup,
                             failureTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
    }

    /// The file (or the defaults) first, then each flag on top: the flag wins.
    func resolveConfiguration() throws(ConfigurationError) -> RelayConfiguration {
        var c: RelayConfiguration
        if let config {
            c = try RelayConfiguration.load(file: config)
        } else if access(RelayConfiguration.defaultConfigFile, F_OK) == 0 {
            c = try RelayConfiguration.load(file: RelayConfiguration.defaultConfigFile)
        } else {
            c = RelayConfiguration()
        }
        if let socket {
            guard !socket.isEmpty else { throw ConfigurationError("--socket: the path must not be empty") }
            c.socketPath = socket
        }
        if let postgres {
            do {
                c.postgres = try PostgresConnectionString(parsing: postgres)
            } catch {
                throw ConfigurationError("--postgres: \(error.description)")
            }
        }
        if let box {
            if let problem = RelayConfiguration.boxProblem(box) { throw ConfigurationError("--box: \(problem)") }
            c.box = box
        }
        if let stateFile {
            guard !stateFile.isEmpty else { throw ConfigurationError("--state-file: the path must not be empty") }
            c.stateFile = stateFile
        }
        return c
    }
}

import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

@Suite("Starting the daemon: bad settings stop it with one clear line and exit 78", .serialized)
struct DaemonStartTests {
    @Test("bad settings in the file", arguments: [
        (#"{"limits":{"maxFlows":"many"}}"#, "limits.maxFlows: expected a whole number"),
        (#"{"limits":{"maxFlowz":1}}"#, "unknown key \"limits.maxFlowz\""),
        (#"{"location":{"providers":["gps"]}}"#, "unknown location provider \"gps\""),
        (#"{"socket":{"mode":"999"}}"#, "socket.mode"),
        (#"{"timeZone":"Mars/Olympus"}"#, "unknown time zone"),
        (#"{"species":{"file":"/nonexistent/species.json"}}"#, "species.file: cannot read"),
    ])
    func badFileSetting(settingsText: String, message: String) throws {
        let settings = try #require(try JSONParser.parse(settingsText).objectValue)
        let daemon = try DaemonProcess(settings: settings)
        let (status, stderr) = try daemon.startExpectingFailure()
        #expect(status == 78, "\(stderr)")
        #expect(stderr.contains(message), "\(stderr)")
        #expect(stderr.contains(daemon.configPath), "the line names the file: \(stderr)")
        #expect(stderr.split(separator: "\n").count == 1, "one line: \(stderr)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "nothing half-started")
    }

    @Test("bad flags", arguments: [
        (["--socket-mode", "abc"], "--socket-mode"),
        (["--simulated-position", "91,0"], "latitude 91"),
        (["--gpsd", "localhost"], "--gpsd"),
        (["--max-line-bytes", "10"], "--max-line-bytes: 10 is out of range"),
        (["--flow-idle-timeout", "0"], "--flow-idle-timeout: 0 is out of range"),
        (["--location-providers", "simulated,simulated"], "listed twice"),
        (["--limit", "nonsense=1"], "--limit: unknown limit \"nonsense\""),
        (["--limit", "maxFlows=0"], "--limit: 0 is out of range 1...10000000 (limits.maxFlows)"),
        (["--relay", "claimTimeoutSeconds=0"], "--relay: 0 is out of range 1...86400 (relay.claimTimeoutSeconds)"),
        (["--relay", "maxClaimBytes=268435457"], "--relay: 268435457 is out of range 1048576...268435456 (relay.maxClaimBytes)"),
        (["--relay", "group=x"], "--relay: unknown relay setting \"group\""),
        (["--relay", "maxClaimReports"], "--relay: \"maxClaimReports\" is not NAME=N"),
        (["--relay-group", ""], "--relay-group: must not be empty"),
    ])
    func badFlag(arguments: [String], message: String) throws {
        let daemon = try DaemonProcess()
        let (status, stderr) = try daemon.startExpectingFailure(arguments: arguments)
        #expect(status == 78, "\(stderr)")
        #expect(stderr.contains(message), "\(stderr)")
    }

    @Test("a file that is not JSON, or missing")
    func unreadableFile() throws {
        let daemon = try DaemonProcess()
        try "{ socket: }".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        let (status, stderr) = try daemon.startExpectingFailure()
        #expect(status == 78)
        #expect(stderr.contains("not valid JSON"))
        try FileManager.default.removeItem(atPath: daemon.configPath)
        let missing = try daemon.startExpectingFailure()
        #expect(missing.status == 78)
        #expect(missing.stderr.contains("cannot read the configuration file"))
    }

    @Test("without --config: ./config/petspotd.json when present, and the log says which file")
    func checkoutConfigFound() throws {
        let daemon = try DaemonProcess()
        daemon.passesConfig = false
        let folder = daemon.directory.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: daemon.configPath, toPath: folder.appendingPathComponent("petspotd.json").path)
        try daemon.start()
        #expect(try daemon.connect().result("daemon.info")["name"] == "petspotd")
        #expect(daemon.log.contains("config/petspotd.json (found; no --config given)"), "\(daemon.log)")
    }

    @Test(
        "without --config and no file to find: built-in defaults, the species list included",
        .enabled(if: !FileManager.default.fileExists(atPath: "/etc/petspotd/petspotd.json"), "the installed file would be found"))
    func builtInDefaults() throws {
        let daemon = try DaemonProcess(arguments: ["--socket", "petspotd.sock", "--location-providers", "simulated"])
        daemon.passesConfig = false
        try FileManager.default.removeItem(atPath: daemon.configPath)
        try daemon.start()
        let shipped = try JSONParser.parse(Array(try Data(contentsOf: URL(fileURLWithPath: Paths.speciesFile))))
        #expect(try daemon.connect().result("species.list")["species"]?.arrayValue?.count == shipped["species"]?.arrayValue?.count)
        #expect(daemon.log.contains("built-in defaults"), "\(daemon.log)")
        // The built-in database path is under the working directory.
        #expect(FileManager.default.fileExists(atPath: daemon.directory.appendingPathComponent("var/reports.sqlite").path))
    }

    @Test("the socket of a live daemon is never taken over; a stale one is cleared")
    func socketFile() throws {
        let first = try DaemonProcess().start()
        let second = try DaemonProcess(directory: first.directory.appendingPathComponent("second"))
        let (status, stderr) = try second.startExpectingFailure(arguments: ["--socket", first.socketPath])
        #expect(status == 78)
        #expect(stderr.contains("another daemon is serving"))
        #expect(try first.connect().result("daemon.info")["name"] == "petspotd")

        // Killed without cleanup, the socket file stays; the next start clears it.
        try first.kill()
        #expect(FileManager.default.fileExists(atPath: first.socketPath))
        try first.start()
        #expect(try first.connect().result("daemon.info")["name"] == "petspotd")
    }

    @Test("a database that cannot be opened stops the start: exit 78, one line, no socket left behind")
    func unusableDatabase() throws {
        // A folder where the file should be; gpsd configured, so a watch would log if it ran.
        let daemon = try DaemonProcess(settings: ["location": ["providers": ["gpsd"], "gpsd": ["port": 1]]])
        try FileManager.default.createDirectory(atPath: daemon.databasePath, withIntermediateDirectories: true)
        let (status, stderr) = try daemon.startExpectingFailure()
        #expect(status == 78, "\(stderr)")
        #expect(stderr.contains("database.path: "), "\(stderr)")
        #expect(stderr.split(separator: "\n").count == 1, "one line, nothing from a gpsd watch: \(stderr)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath), "nothing half-started")
    }

    @Test("a second after the start, the program file's startup pages go back to the kernel; memory.releaseStartupPages false keeps them")
    func startupPages() throws {
        // Started first, so that by the time the other has released, this one would have too.
        let keeping = try DaemonProcess(settings: ["memory": ["releaseStartupPages": false, "releaseStartupPagesAfterSeconds": 1]]).start()
        let releasing = try DaemonProcess(settings: ["memory": ["releaseStartupPages": true, "releaseStartupPagesAfterSeconds": 1]]).start()
        try waitUntil("the release, a second after the start\n\(releasing.log)") {
            !logLines(releasing.log, containing: "startup pages released").isEmpty
        }
        let released = logLines(releasing.log, containing: "startup pages released")
        #expect(released.count == 1, "\(releasing.log)")
        let mappings = released.first?.split(separator: " ").first { $0.hasPrefix("mappings=") }.flatMap { Int($0.dropFirst(9)) }
        #expect((mappings ?? 0) >= 2, "the program's code and its constants at least: \(releasing.log)")
        // Whatever a request runs comes back as it is needed.
        #expect(try releasing.connect().result("flow.start")["flow"]?["step"] == "chip")
        #expect(try keeping.stop() == 0)
        #expect(!keeping.log.contains("startup pages"), "\(keeping.log)")
    }

    @Test("run as a user that owns none of its files, as the service is, the release still takes the program file's pages out of its memory")
    func startupPagesUnprivileged() throws {
        let daemon = try DaemonProcess(settings: ["memory": ["releaseStartupPages": true, "releaseStartupPagesAfterSeconds": 3]],
                                       launcher: ["/usr/bin/setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"])
        chmod(daemon.directory.path, 0o777)
        try daemon.start()
        let pid = try #require(daemon.process?.processIdentifier)
        /// KiB of the program file resident in the daemon, from its smaps (read as root).
        func programKiB() throws -> Int {
            let program = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
            var total = 0, inProgram = false
            for line in try String(contentsOfFile: "/proc/\(pid)/smaps", encoding: .utf8).split(separator: "\n") {
                let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                if fields.count >= 5, fields[0].contains("-") {
                    inProgram = fields.count == 6 && fields[5].trimmingCharacters(in: .whitespaces) == program
                } else if inProgram, fields.first == "Rss:", let kib = Int(fields[1]) {
                    total += kib
                }
            }
            return total
        }
        let before = try programKiB()
        #expect(logLines(daemon.log, containing: "startup pages released").isEmpty, "released before it was measured: \(daemon.log)")
        try waitUntil("the release, three seconds after the start\n\(daemon.log)") {
            !logLines(daemon.log, containing: "startup pages released").isEmpty
        }
        let after = try programKiB()
        #expect(after * 2 < before, "the program file's resident KiB: \(before) before the release, \(after) after")
        #expect(try daemon.connect().result("flow.start")["flow"]?["step"] == "chip")
    }

    @Test("server.eventLoopThreads sets how many threads serve the connections; 0 is one per core")
    func eventLoopThreads() throws {
        /// Threads named as NIO names its event loops: only the serving ones, the daemon has no other.
        func servingLoops(_ daemon: DaemonProcess) throws -> Int {
            let pid = try #require(daemon.process?.processIdentifier)
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
            let names = tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
            return names.filter { $0.hasPrefix("NIO-ELT-") }.count
        }
        let one = try DaemonProcess(settings: ["server": ["eventLoopThreads": 1]]).start()
        let perCore = try DaemonProcess().start()
        let three = try DaemonProcess(settings: ["server": ["eventLoopThreads": 3]]).start()
        for (daemon, loops) in [(one, 1), (perCore, ProcessInfo.processInfo.activeProcessorCount), (three, 3)] {
            #expect(try servingLoops(daemon) == loops, "\(daemon.log)")
            #expect(logLines(daemon.log, containing: "eventLoops=\(loops) ").count == 1, "\(daemon.log)")
            #expect(try daemon.connect().result("flow.start")["flow"]?["step"] == "chip")
            #expect(try daemon.stop() == 0)
        }
    }

    @Test("the socket gets the configured mode")
    func socketMode() throws {
        let daemon = try DaemonProcess(arguments: ["--socket-mode", "0600"]).start()
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socketPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}

import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

@Suite("Running under systemd", .serialized)
struct SystemdTests {
    @Test("socket activation through systemd-socket-activate; the socket systemd owns is never removed")
    func socketActivation() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("petspotd-sa-\(UUID().uuidString.prefix(8))")
        let activated = dir.appendingPathComponent("activated.sock").path
        let daemon = try DaemonProcess(directory: dir, launcher: ["/usr/bin/systemd-socket-activate", "-l", activated])
        let process = try daemon.startExpectingToRun()
        try waitUntil("systemd-socket-activate to listen") { FileManager.default.fileExists(atPath: activated) }
        // systemd-socket-activate starts petspotd on the first connection, handing it the socket.
        let conn = try PetSpotConnection(socketPath: activated)
        #expect(try conn.result("daemon.info")["name"] == "petspotd")
        try waitUntil("the daemon to log that it serves systemd's socket") { daemon.log.contains("the socket systemd passed") }
        // The configured socket path was not bound: the passed socket was used.
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        conn.close()
        #expect(try daemon.stop() == 0)
        #expect(!process.isRunning)
        #expect(FileManager.default.fileExists(atPath: activated))
    }

    @Test("readiness, status, watchdog, reloading and stopping reach NOTIFY_SOCKET", arguments: [false, true])
    func notifications(abstract: Bool) throws {
        let (daemon, listener) = try DaemonProcess.notifying(abstract: abstract, environment: ["WATCHDOG_USEC": "400000"])
        defer { listener.close() }
        try daemon.start()
        try waitUntil("READY=1") { listener.count(of: "READY=1") == 1 }
        #expect(listener.lines.contains { $0.hasPrefix("STATUS=Serving") })
        #expect(listener.lines.contains { $0.hasPrefix("MAINPID=") })
        // Pings at half of WATCHDOG_USEC, each after a proof of life.
        try waitUntil("three watchdog pings") { listener.count(of: "WATCHDOG=1") >= 3 }
        daemon.signal(SIGHUP)
        try waitUntil("RELOADING=1 then READY=1 again") { listener.count(of: "RELOADING=1") == 1 && listener.count(of: "READY=1") == 2 }
        #expect(listener.lines.contains { $0.hasPrefix("MONOTONIC_USEC=") })
        #expect(try daemon.stop() == 0)
        try waitUntil("STOPPING=1") { listener.count(of: "STOPPING=1") == 1 }
    }

    @Test("without WATCHDOG_USEC there are no pings; without NOTIFY_SOCKET nothing is sent")
    func noWatchdog() throws {
        let (daemon, listener) = try DaemonProcess.notifying()
        defer { listener.close() }
        try daemon.start()
        try waitUntil("READY=1") { listener.count(of: "READY=1") == 1 }
        // A request after READY proves a full round trip happened since; still no ping.
        _ = try daemon.connect().result("daemon.info")
        #expect(listener.count(of: "WATCHDOG=1") == 0)
    }

    @Test("journald gets priorities when stderr is the stream JOURNAL_STREAM names, plain lines otherwise")
    func journald() throws {
        let daemon = try DaemonProcess.loggingToJournal().start()
        try daemon.stop()
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("<6>serving") })
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "lines without a priority:\n\(lines.filter { !$0.hasPrefix("<") }.joined(separator: "\n"))")

        let inherited = try DaemonProcess(environment: ["JOURNAL_STREAM": "1:2"]).start()
        try inherited.stop()
        #expect(inherited.log.split(separator: "\n").contains { $0.hasPrefix("petspotd: info: serving") })
    }

    @Test("SIGHUP reloads limits, location and species, keeping flows and connections; says what it cannot reload")
    func reload() throws {
        let daemon = try DaemonProcess().start()
        let conn = try daemon.connect()
        let flowID = try conn.result("flow.start")[path: "flow", "id"]!
        #expect(try conn.result("daemon.info")[path: "limits", "maxFlowsPerUser"] == 50)

        let species = daemon.directory.appendingPathComponent("species.json").path
        try #"{"species":[{"id":"axolotl","names":{"en":"Axolotl","pl":"Aksolotl"}}]}"#.write(toFile: species, atomically: true, encoding: .utf8)
        try daemon.rewriteConfiguration([
            "limits": ["maxFlowsPerUser": 1],
            "location": ["simulated": ["mode": "fix", "position": [10, 20]]],
            "species": ["file": .string(species)],
            "socket": ["path": .string(daemon.directory.appendingPathComponent("elsewhere.sock").path)],
        ])
        daemon.signal(SIGHUP)
        try waitUntil("the new limit to show") {
            try conn.result("daemon.info")[path: "limits", "maxFlowsPerUser"] == 1
        }
        // Same connection, same flow; the new settings in force.
        #expect(try conn.result("flow.get", ["flowId": flowID])[path: "flow", "state"] == "active")
        #expect(try conn.failure("flow.start").details["limit"] == "limits.maxFlowsPerUser")
        #expect(JSONWriter.string(try conn.result("location.current")[path: "location", "fix", "latitude"]!) == "10.00000")
        #expect(try conn.result("species.list")["species"] == [["id": "axolotl", "name": "Axolotl"]])
        #expect(daemon.log.contains("not reloaded setting=\"socket.path (restart to apply)\""))

        // A broken file is refused whole: the settings in force stay.
        try "{ broken".write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.signal(SIGHUP)
        try waitUntil("the refusal in the log") { daemon.log.contains("reload refused") }
        #expect(try conn.result("daemon.info")[path: "limits", "maxFlowsPerUser"] == 1)
    }
}

import Foundation
import PetSpotJSON
import Testing

/// petspot-relay's command line without a daemon: refused settings and --status's exit codes.
@Suite("The petspot-relay command")
struct RelayCommandTests {
    func relay(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram(Paths.petspotRelay, arguments, environment: ["PATH": "/usr/bin:/bin"])
    }

    @Test("bad settings stop the start with one line and exit code 78", arguments: [
        (["--box", "a"], "petspot-relay: no PostgreSQL connection string: give --postgres or the configuration key postgres\n"),
        (["--postgres", "postgres://relay:hunter2@db:70000/central"],
         "petspot-relay: --postgres: the PostgreSQL connection string cannot be used: a port is not a number from 1 to 65535\n"),
        (["--postgres", "host=db password=hunter2 dbname"],
         "petspot-relay: --postgres: the PostgreSQL connection string cannot be used: missing \"=\" after \"dbname\" in connection info string\n"),
        (["--postgres", "postgres://relay:hunter2@db/central?sslmdoe=require"],
         "petspot-relay: --postgres: the PostgreSQL connection string cannot be used: invalid URI query parameter: (not shown)\n"),
        (["--postgres", "postgres://u@h/db", "--box", ""], "petspot-relay: --box: the box name must not be empty\n"),
        (["--config", "/nonexistent/relay.json"], "petspot-relay: /nonexistent/relay.json: cannot read the configuration file: No such file or directory\n"),
        (["--postgres", "postgres://u@h/db", "--box", "a", "--log-level", "loud"],
         "petspot-relay: --log-level: \"loud\" is not one of trace, debug, info, notice, warning, error, critical\n"),
    ])
    func refused(_ arguments: [String], _ message: String) throws {
        let result = try relay(arguments)
        #expect(result.status == 78)
        #expect(result.stderr == message)
        #expect(!result.stderr.contains("hunter2"))
    }

    @Test("an unknown key in the file is named")
    func unknownKey() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("relay-\(UUID().uuidString.prefix(8)).json").path
        try #"{"postgres": "postgres://u@h/db", "batchsize": 10}"#.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try relay(["--config", path])
        #expect(result.status == 78)
        #expect(result.stderr.hasPrefix("petspot-relay: \(path): unknown key \"batchsize\"; did you mean \"batchSize\"?"))
    }

    @Test("--status without a daemon exits 2 and says why; it reads the state file all the same")
    func statusWithoutDaemon() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("relay-status-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let socket = dir.appendingPathComponent("none.sock").path
        let state = dir.appendingPathComponent("state.json").path
        var result = try relay(["--status", "--socket", socket, "--state-file", state])
        #expect(result.status == 2)
        #expect(result.stdout.contains("pending: unknown: cannot connect to petspotd at \(socket)"), "\(result.stdout)")
        #expect(result.stdout.contains("no state file yet"))

        try #"{"box":"kiosk-1","pid":1,"startedAt":"2026-11-21T13:00:00Z","updatedAt":"2026-11-21T13:05:00Z","daemon":{"state":"reachable"},"postgres":{"state":"unreachable","reason":"cannot reach PostgreSQL at db:5432: Connection refused","kind":"unreachable"},"lastDeliveryAt":"2026-11-21T13:04:00Z","lastError":"PostgreSQL: cannot reach PostgreSQL at db:5432: Connection refused","lastErrorAt":"2026-11-21T13:05:00Z","delivered":12,"storedNew":12,"alreadyStored":0,"pending":3}"#
            .write(toFile: state, atomically: true, encoding: .utf8)
        result = try relay(["--status", "--socket", socket, "--state-file", state])
        #expect(result.status == 2)
        #expect(result.stdout.contains("last delivery (relay): 2026-11-21T13:04:00Z"))
        #expect(result.stdout.contains("last error: PostgreSQL: cannot reach PostgreSQL at db:5432: Connection refused (at 2026-11-21T13:05:00Z)"))
        #expect(result.stdout.contains("box: kiosk-1"))

        try "{not json".write(toFile: state, atomically: true, encoding: .utf8)
        result = try relay(["--status", "--socket", socket, "--state-file", state])
        #expect(result.stdout.contains("relay state: \(state): not a relay state file"))
    }
}

import Foundation
import PetSpotClient
import PetSpotJSON
import PetSpotTestSupport
import Testing

/// The gpsd provider against a real gpsd reading NMEA from a pty.
@Suite("Real fixes from gpsd", .serialized)
struct GpsdTests {
    func location(_ conn: PetSpotConnection, timeoutMs: Int = 5000) throws -> JSONValue {
        try conn.result("location.current", ["timeoutMs": .int(timeoutMs)])["location"]!
    }

    func text(_ value: JSONValue?) -> String {
        value.map(JSONWriter.string) ?? "nil"
    }

    @Test("first fix, warm answers from the watch, fix lost, moved, gpsd killed and restarted")
    func lifecycle() throws {
        let gps = try GpsdFixture()
        // A generous maximum age: the warm answers below must not depend on a loaded machine
        // keeping up with the receiver's 1 Hz. A lost fix is dropped at once whatever the age.
        let daemon = try DaemonProcess(settings: ["location": ["maxAgeMs": 5000]],
                                       arguments: ["--location-providers", "gpsd", "--gpsd", gps.endpoint]).start()
        let conn = try daemon.connect()

        // The first fix arrives, rounded to 5 decimals, naming gpsd as its source.
        var first: JSONValue = .null
        try waitUntil("a first fix from gpsd", seconds: 20) {
            first = try location(conn)
            return first["status"] == "ok"
        }
        #expect(text(first[path: "fix", "latitude"]) == "52.22968")
        #expect(text(first[path: "fix", "longitude"]) == "21.01223")
        #expect(first[path: "fix", "source"] == "gpsd")
        #expect(first[path: "fix", "time"]?.stringValue?.hasSuffix("Z") == true)

        // Warm: answered from the watch's newest fix, far faster than the 1 Hz of new fixes.
        for _ in 0..<5 {
            #expect(try location(conn, timeoutMs: 30)["status"] == "ok")
        }
        let status = try conn.result("location.status")
        let provider = status["providers"]?.arrayValue?.first
        #expect(provider?["state"] == "connected")
        #expect(provider?["detail"] == .string(gps.endpoint))

        // The receiver loses its fix: the old position is never served as current.
        gps.feeder.set(.noFix)
        try waitUntil("the lost fix to be noticed", seconds: 20) {
            try location(conn, timeoutMs: 1500)["status"] == "timeout"
        }
        #expect(try location(conn, timeoutMs: 1500)["status"] == "timeout")

        // It moves and finds a fix again: the new position.
        gps.feeder.set(.fix(latitude: -33.8688197, longitude: 151.2092955))
        var moved: JSONValue = .null
        try waitUntil("the new position", seconds: 20) {
            moved = try location(conn, timeoutMs: 2000)
            return moved["status"] == "ok"
        }
        #expect(text(moved[path: "fix", "latitude"]) == "-33.86882")
        #expect(text(moved[path: "fix", "longitude"]) == "151.20930")

        // gpsd dies: a prompt answer that there is no position, and the daemon goes on.
        try gps.killGpsd()
        try waitUntil("the daemon to notice gpsd is gone", seconds: 10) {
            let answer = try location(conn, timeoutMs: 3000)["status"]
            return answer == "unavailable" || answer == "timeout"
        }
        #expect(try conn.result("daemon.info")["name"] == "petspotd")
        #expect(try conn.result("location.status")[path: "providers"]?.arrayValue?.first?["state"] == "disconnected")

        // gpsd comes back on the same port: fixes resume without a daemon restart.
        try gps.startGpsd()
        try waitUntil("fixes to resume after gpsd restarted", seconds: 30) {
            try location(conn, timeoutMs: 2000)["status"] == "ok"
        }
        // One line per change of state, not one per retry.
        #expect(daemon.log.components(separatedBy: "connected to gpsd").count - 1 == 2)
        #expect(daemon.log.components(separatedBy: "gpsd unavailable; retrying with backoff").count - 1 == 1)
    }

    @Test("a request made right after start waits for the first fix rather than failing")
    func firstRequestWaits() throws {
        let gps = try GpsdFixture()
        let daemon = try DaemonProcess(arguments: ["--location-providers", "gpsd", "--gpsd", gps.endpoint]).start()
        let answer = try location(try daemon.connect(), timeoutMs: 8000)
        #expect(answer["status"] == "ok", "\(JSONWriter.string(answer))")
    }

    @Test("a gpsd that accepts but stays silent: a request waits its whole timeout, then times out")
    func silentGpsd() throws {
        let port = try freeLocalPort()
        // Accepts a connection, reads what it is sent, never says a word.
        let silent = Process()
        silent.executableURL = URL(fileURLWithPath: "/usr/bin/socat")
        // -u: data flows one way only, so socat never half-closes the connection towards the
        // daemon. No fork: the one connection it takes is the daemon's.
        silent.arguments = ["-u", "TCP-LISTEN:\(port),bind=127.0.0.1,reuseaddr", "OPEN:/dev/null"]
        // No inherited output: a forked child holding the runner's stdout would keep it waiting.
        silent.standardInput = FileHandle.nullDevice
        silent.standardOutput = FileHandle.nullDevice
        silent.standardError = FileHandle.nullDevice
        try silent.run()
        defer { silent.terminate() }
        try waitUntil("the silent listener") { isListening(port: port) }
        let daemon = try DaemonProcess(arguments: ["--location-providers", "gpsd", "--gpsd", "127.0.0.1:\(port)"]).start()
        let answer = try location(try daemon.connect(), timeoutMs: 1500)
        #expect(answer["status"] == "timeout", "\(JSONWriter.string(answer))")
    }

    @Test("a request waiting for the next fix gets it")
    func waitsForNextFix() throws {
        let gps = try GpsdFixture()
        let daemon = try DaemonProcess(arguments: ["--location-providers", "gpsd", "--gpsd", gps.endpoint]).start()
        let conn = try daemon.connect()
        try waitUntil("a first fix", seconds: 20) { try location(conn)["status"] == "ok" }
        // maxAgeMs 0: no stored fix is young enough, so the answer is the next one gpsd sends.
        let next = try conn.result("location.current", ["timeoutMs": 5000, "maxAgeMs": 0])["location"]!
        #expect(next["status"] == "ok")
    }

    /// Waits until the daemon's gpsd provider is connected (with no fix yet), so that it sees
    /// every report after.
    func waitConnected(_ conn: PetSpotConnection) throws {
        try waitUntil("the daemon to connect to gpsd", seconds: 20) {
            try conn.result("location.status")[path: "providers"]?.arrayValue?.first?["state"] == "noFix"
        }
    }

    @Test("a chartplotter's RMC then GGA of one fix time, 2.8 m apart: the GGA's position is served, as gpsd reports it last")
    func latestReportOfOneTime() throws {
        let gps = try GpsdFixture(.silent)
        let daemon = try DaemonProcess(settings: ["location": ["maxAgeMs": 600_000]],
                                       arguments: ["--location-providers", "gpsd", "--gpsd", gps.endpoint]).start()
        let conn = try daemon.connect()
        try waitConnected(conn)
        gps.feeder.set(.twoReportsOnce(rmc: .init(latitude: 52.2296756, longitude: 21.0122287),
                                       gga: .init(latitude: 52.2297, longitude: 21.0122287)))
        var served: JSONValue = .null
        try waitUntil("the GGA's position", seconds: 20) {
            served = try location(conn, timeoutMs: 1000)
            return text(served[path: "fix", "latitude"]) == "52.22970"
        }
        #expect(text(served[path: "fix", "longitude"]) == "21.01223")
    }

    @Test("a receiver stuck on one fix time, reported again every second: its fix goes stale, aged from its first report")
    func stuckFixTime() throws {
        let stuckAt = Date(timeIntervalSince1970: 1_795_000_000)
        let here = NMEAFeeder.Position(latitude: 52.2296756, longitude: 21.0122287)
        let gps = try GpsdFixture(.twoReports(rmc: here, gga: here, frozenAt: stuckAt))
        let daemon = try DaemonProcess(settings: ["location": ["maxAgeMs": 2000]],
                                       arguments: ["--location-providers", "gpsd", "--gpsd", gps.endpoint]).start()
        let conn = try daemon.connect()
        try waitUntil("a first fix from gpsd", seconds: 20) { try location(conn)["status"] == "ok" }
        // New reports of that time keep coming; the fix is older than 2 s all the same.
        try waitUntil("the stuck fix to be stale", seconds: 20) {
            try location(conn, timeoutMs: 1500)["status"] == "timeout"
        }
        // Still held, and aged from the first report of its time.
        let provider = try conn.result("location.status")[path: "providers"]?.arrayValue?.first
        #expect(provider?["state"] == "connected")
        guard case .number(let age)? = provider?["lastFixAgeMs"] else {
            Issue.record("no lastFixAgeMs in \(text(provider))")
            return
        }
        #expect((age.exactInt ?? 0) > 2000, "\(text(provider))")
    }

    @Test("no gpsd with gpsd,simulated: the simulated fix, naming its source")
    func fallback() throws {
        let unused = try freeLocalPort()
        let daemon = try DaemonProcess(arguments: ["--location-providers", "gpsd,simulated", "--gpsd", "127.0.0.1:\(unused)"]).start()
        let conn = try daemon.connect()
        let answer = try location(conn)
        #expect(answer["status"] == "ok")
        #expect(answer[path: "fix", "source"] == "simulated")
        let providers = try conn.result("location.status")["providers"]?.arrayValue ?? []
        #expect(providers.map { $0["name"] } == ["gpsd", "simulated"])
        #expect(providers.first?["lastError"]?.stringValue != nil)
    }

    @Test("gpsd only and absent: unavailable at once, with the reason")
    func absent() throws {
        let unused = try freeLocalPort()
        let daemon = try DaemonProcess(arguments: ["--location-providers", "gpsd", "--gpsd", "127.0.0.1:\(unused)"]).start()
        let answer = try location(try daemon.connect())
        #expect(answer["status"] == "unavailable")
    }
}

@Suite("Location permission", .serialized)
struct LocationPermissionTests {
    @Test("a user outside the allowed groups is denied, with the setting to change; a member is served",
          .enabled(if: getuid() == 0, "needs root to run a client as another user"))
    func groups() throws {
        let daemon = try DaemonProcess(settings: ["location": ["permission": ["allow": "listed", "groups": ["root"]]]]).start()
        let root = try daemon.connect().result("location.current")["location"]!
        #expect(root["status"] == "ok")
        let nobody = try runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                         Paths.petspot, "call", "--socket", daemon.socketPath, "location.current"])
        let answer = try JSONParser.parse(nobody.stdout)["location"]
        #expect(answer?["status"] == "permissionDenied")
        #expect(answer?[path: "settings", "key"] == "location.permission.groups")
        #expect(answer?[path: "settings", "file"] == .string(daemon.configPath))
        let status = try runProgram("/usr/bin/setpriv", ["--reuid", "65534", "--regid", "65534", "--clear-groups",
                                                         Paths.petspot, "call", "--socket", daemon.socketPath, "location.status"])
        #expect(try JSONParser.parse(status.stdout)["permission"] == "denied")
    }

    @Test("nobody allowed: denied for everyone")
    func nobody() throws {
        let daemon = try DaemonProcess(settings: ["location": ["permission": ["allow": "nobody"]]]).start()
        let answer = try daemon.connect().result("location.current")["location"]!
        #expect(answer["status"] == "permissionDenied")
        #expect(answer[path: "settings", "key"] == "location.permission.allow")
    }

    @Test("location switched off: servicesDisabled, on a flow too")
    func disabled() throws {
        let daemon = try DaemonProcess(settings: ["location": ["enabled": false]]).start()
        let conn = try daemon.connect()
        let answer = try conn.result("location.current")["location"]!
        #expect(answer["status"] == "servicesDisabled")
        #expect(answer[path: "settings", "key"] == "location.enabled")
        #expect(try conn.result("location.status")["permission"] == "servicesDisabled")
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotJSON

/// `petspot location`: where the daemon says we are, once or as it changes.
struct LocationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "location",
        abstract: "Show the current position, or follow it with --watch.",
        discussion: """
            Asks petspotd's location service for one fix (from gpsd or the simulated provider) \
            and prints it with map links, then whether you may use the location and each \
            provider's state. Exits 1 when there is no fix.

            With --watch it asks again every --interval-ms and prints one line each time the \
            position or the outcome changes, until Ctrl-C (which exits 0). With --json every \
            line is the daemon's location object.

            Examples:
              $ petspot location
              52.22968, 21.01223 from gpsd at 2026-11-21T13:07:27Z (±4.2 m)
                geo:52.22968,21.01223
                https://www.openstreetmap.org/?mlat=52.22968&mlon=21.01223#map=17/52.22968/21.01223
              location: enabled, permission allowed
                gpsd: connected, 127.0.0.1:2947, last fix 310 ms ago

              $ petspot location --watch --interval-ms 500
              2026-11-21T13:07:27Z  52.22968, 21.01223 from gpsd
              2026-11-21T13:07:31Z  52.22971, 21.01230 from gpsd
              2026-11-21T13:07:40Z  timeout: No position came in time.
            """)

    @OptionGroup var connection: SocketOption

    @Option(name: .customLong("timeout-ms"), help: "Wait at most this long for a fix (up to the daemon's location.timeoutMs).")
    var timeoutMs: Int?

    @Flag(help: "Keep asking, and print a line each time the position or the outcome changes.")
    var watch = false

    @Option(name: .customLong("interval-ms"), help: "With --watch: how often to ask.")
    var intervalMs: Int = 1000

    @Flag(help: "Print the daemon's location objects as JSON, one per line.")
    var json = false

    func validate() throws {
        guard intervalMs >= 10 else { throw ValidationError("--interval-ms must be at least 10.") }
        if let timeoutMs, timeoutMs < 1 { throw ValidationError("--timeout-ms must be at least 1.") }
    }

    func run() throws {
        let conn = connection.connect()
        var params = JSONObject()
        if let timeoutMs { params["timeoutMs"] = .int(timeoutMs) }
        if watch {
            try follow(conn, params)
        }
        let location = conn.callOrExit(.locationCurrent, params)["location"] ?? .null
        if json {
            print(JSONWriter.terminalString(location))
        } else {
            printOnce(location, status: conn.callOrExit(.locationStatus))
        }
        if location["fix"] == nil { throw ExitCode(ExitStatus.failure) }
    }

    private func printOnce(_ location: JSONValue, status: JSONValue) {
        if let fix = location["fix"], let links = Self.links(fix) {
            var line = "\(links.pair) from \(fix["source"]?.stringValue ?? "?") at \(fix["time"]?.stringValue ?? "?")"
            if let accuracy = fix["accuracy"]?.plainText { line += " (±\(accuracy) m)" }
            print(VisibleText.line(line))
            print("  " + links.geoURI)
            print("  " + links.openStreetMap)
        } else {
            print(VisibleText.line("\(location["status"]?.stringValue ?? "?"): \(location["message"]?.stringValue ?? "")"))
        }
        print(VisibleText.line("location: \(status["enabled"] == .bool(true) ? "enabled" : "disabled"), permission \(status["permission"]?.stringValue ?? "?")"))
        for provider in status["providers"]?.arrayValue ?? [] {
            print("  " + ProviderLine.text(provider))
        }
    }

    /// Polls until a signal ends the program; prints only changes, flushing each line at once
    /// so that a pipe sees it.
    private func follow(_ conn: DaemonCalling, _ params: JSONObject) throws -> Never {
        SignalWatcher.watch([SIGINT, SIGTERM]) { _ in _exit(0) }
        var last: JSONValue?
        while true {
            let location = conn.callOrExit(.locationCurrent, params)["location"] ?? .null
            let key = Self.changeKey(location)
            if key != last {
                last = key
                let line = json ? JSONWriter.string(location) : Self.watchLine(location)
                writeToStandardOutput(line + "\n")
            }
            usleep(useconds_t(intervalMs) * 1000)
        }
    }

    /// What counts as a change: the outcome and the position, not the fix's time stamp.
    static func changeKey(_ location: JSONValue) -> JSONValue {
        [
            "status": location["status"] ?? .null,
            "latitude": location["fix"]?["latitude"] ?? .null,
            "longitude": location["fix"]?["longitude"] ?? .null,
            "source": location["fix"]?["source"] ?? .null,
        ]
    }

    static func watchLine(_ location: JSONValue) -> String {
        if let fix = location["fix"], let links = links(fix) {
            return "\(fix["time"]?.stringValue ?? now())  \(links.pair) from \(fix["source"]?.stringValue ?? "?")"
        }
        return "\(now())  \(location["status"]?.stringValue ?? "?"): \(location["message"]?.stringValue ?? "")"
    }

    static func links(_ fix: JSONValue) -> MapLinks? {
        guard let latitude = fix["latitude"]?.plainText, let longitude = fix["longitude"]?.plainText else { return nil }
        return MapLinks(latitude: latitude, longitude: longitude)
    }

    private static func now() -> String {
        Date().formatted(Date.ISO8601FormatStyle())
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotViews

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
        let params = LocationCurrent.Params(timeoutMs: timeoutMs)
        if watch {
            try follow(conn, params)
        }
        let location = conn.callOrExit(LocationCurrent.self, params).location
        if json {
            print(JSONWriter.terminalString(location.json))
        } else {
            printOnce(location, status: conn.callOrExit(LocationStatus.self))
        }
        if location.fix == nil { throw ExitCode(ExitStatus.failure) }
    }

    private func printOnce(_ location: LocationView, status: LocationStatusView) {
        if let fix = location.fix {
            let links = Self.links(fix)
            var line = "\(links.pair) from \(fix.source) at \(fix.time)"
            if let accuracy = fix.accuracy { line += " (±\(accuracy.literal) m)" }
            print(VisibleText.line(line))
            print("  " + links.geoURI)
            print("  " + links.openStreetMap)
        } else {
            print(VisibleText.line("\(location.status.rawValue): \(location.message)"))
        }
        StatusCommand.printLocation(status)
    }

    /// Polls until a signal ends the program; prints only changes, flushing each line at once
    /// so that a pipe sees it.
    private func follow(_ conn: DaemonCalling, _ params: LocationCurrent.Params) throws -> Never {
        SignalWatcher.watch([SIGINT, SIGTERM]) { _ in _exit(0) }
        var last: ChangeKey?
        while true {
            let location = conn.callOrExit(LocationCurrent.self, params).location
            let key = ChangeKey(location)
            if key != last {
                last = key
                let line = json ? JSONWriter.string(location.json) : Self.watchLine(location)
                writeToStandardOutput(line + "\n")
            }
            usleep(useconds_t(intervalMs) * 1000)
        }
    }

    /// What counts as a change: the outcome and the position, not the fix's time stamp.
    struct ChangeKey: Equatable {
        let status: LocationView.Status
        let latitude: JSONNumber?
        let longitude: JSONNumber?
        let source: String?

        init(_ location: LocationView) {
            status = location.status
            latitude = location.fix?.latitude
            longitude = location.fix?.longitude
            source = location.fix?.source
        }
    }

    static func watchLine(_ location: LocationView) -> String {
        if let fix = location.fix {
            return "\(fix.time)  \(links(fix).pair) from \(fix.source)"
        }
        return "\(now())  \(location.status.rawValue): \(location.message)"
    }

    static func links(_ fix: LocationView.Fix) -> MapLinks {
        MapLinks(latitude: fix.latitude.literal, longitude: fix.longitude.literal)
    }

    private static func now() -> String {
        Date().formatted(Date.ISO8601FormatStyle())
    }
}

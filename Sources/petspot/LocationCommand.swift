#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText
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

            With --watch it prints the position now, then one line each time petspotd says the \
            position or the outcome changed (location.watch: nothing is asked again), until \
            Ctrl-C (which exits 0). With --json every line is the daemon's location object.

            Examples:
              $ petspot location
              52.22968, 21.01223 from gpsd at 2026-11-21T13:07:27Z (±4.2 m)
                geo:52.22968,21.01223
                https://www.openstreetmap.org/?mlat=52.22968&mlon=21.01223#map=17/52.22968/21.01223
              location: enabled, permission allowed
                gpsd: connected, 127.0.0.1:2947, last fix 310 ms ago

              $ petspot location --watch
              2026-11-21T13:07:27Z  52.22968, 21.01223 from gpsd
              2026-11-21T13:07:31Z  52.22971, 21.01230 from gpsd
              2026-11-21T13:07:40Z  timeout: No position came in time.
            """)

    @OptionGroup var connection: SocketOption

    @Option(name: .customLong("timeout-ms"), help: "Wait at most this long for a fix (up to the daemon's location.timeoutMs).")
    var timeoutMs: Int?

    @Flag(help: "Follow the position: a line each time it or the outcome changes.")
    var watch = false

    @Flag(help: "Print the daemon's location objects as JSON, one per line.")
    var json = false

    func validate() throws {
        if let timeoutMs, timeoutMs < 1 { throw ValidationError("--timeout-ms must be at least 1.") }
    }

    func run() throws {
        let conn = connection.connect()
        let params = LocationCurrent.Params(timeoutMs: timeoutMs)
        if watch { follow(conn) }
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

    /// Prints the position now and each change petspotd sends until a signal ends the
    /// program, flushing each line at once so that a pipe sees it.
    private func follow(_ conn: PetSpotConnection) -> Never {
        SignalWatcher.watch([SIGINT, SIGTERM]) { _ in _exit(0) }
        var location = conn.callOrExit(LocationWatch.self, LocaleParams()).location
        while true {
            writeToStandardOutput((json ? JSONWriter.terminalString(location.json) : VisibleText.line(Self.watchLine(location))) + "\n")
            location = conn.nextOrExit(LocationChanged.self).location
        }
    }

    static func watchLine(_ location: LocationView) -> String {
        if let fix = location.fix {
            return "\(fix.time)  \(links(fix).pair) from \(fix.source)"
        }
        return "\(now())  \(location.status.rawValue): \(location.message)"
    }

    static func links(_ fix: LocationFix) -> MapLinks {
        MapLinks(latitude: fix.latitude.text, longitude: fix.longitude.text)
    }

    private static func now() -> String {
        Date().formatted(Date.ISO8601FormatStyle())
    }
}

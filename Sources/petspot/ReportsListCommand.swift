#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText

/// `petspot reports list`: a table to find a report by, or JSON lines for a script.
struct ReportsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your reports, newest first.",
        discussion: """
            Prints a table with each report's id, when it was submitted, the animal, how to \
            reach you, where it stands, its version, and whether that version has been \
            delivered to the central database. Where it stands is told in words, by this \
            machine's clock: "missing, expires in 12 days", "expired 3 days ago", "found 2 \
            hours ago", "withdrawn 5 months ago", "found, erased". With --json, one report per \
            line exactly as petspotd gives it (the photo as its type, size and SHA-256; status, \
            version, updatedAt, expiresAt and erased as they are).

            Examples:
              $ petspot reports list
              ID                                    SUBMITTED             SPECIES  RACE    CHIP               CONTACT       STATUS                        VERSION  DELIVERY
              3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10  2026-11-21T13:07:27Z  Dog      Beagle  61609-12345-67890  +48123456789  missing, expires in 3 months  1        pending
              $ petspot reports list --json | jq -r 'select(.status == "missing") | .id'
              $ petspot reports --watch
              … the table, then a line per report filed, delivered or changed, until Ctrl-C:
              filed      3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10  2026-11-21T13:07:27Z  Dog  61609-12345-67890  missing, expires in 3 months  version 1
              updated    3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10  2026-11-21T13:07:27Z  Dog  61609-12345-67890  found less than a minute ago  version 2
              delivered  3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10  2026-11-21T13:07:27Z  Dog  61609-12345-67890  found less than a minute ago  version 2
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "Show at most this many.")
    var limit: Int = 20

    @Flag(help: "Show every report (pages through all of them).")
    var all = false

    @Flag(help: "Print JSON, one report per line.")
    var json = false

    @Flag(help: "Then follow: a line per report filed, delivered or changed (reports.watch), until Ctrl-C.")
    var watch = false

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
    }

    func run() throws {
        let conn = connection.connect()
        // Watching before listing: a report filed in between is told, not lost.
        if watch { _ = conn.callOrExit(ReportsWatch.self) }
        list(conn)
        if watch { follow(conn) }
    }

    /// The list, written as the watch's lines are (write(2), no stdio buffer): a buffered table
    /// would come out after them, or never once a signal ends the watch.
    private func list(_ conn: PetSpotConnection) {
        let pager = Pager(conn)
        var reports: [ReportRecord] = []
        let more = pager.reports(limit: all ? nil : limit) { page in
            if json {
                writeToStandardOutput(page.map { JSONWriter.terminalString($0.json) + "\n" }.joined())
            } else {
                reports += page.map(ReportRecord.init)
            }
        }
        if json { return }
        if reports.isEmpty {
            writeToStandardOutput(watch ? "No reports yet.\n" : "No reports yet. File one with: petspot report\n")
            return
        }
        let species = SpeciesNames(conn)
        let now = Date()
        var table = TextTable(headers: ["ID", "SUBMITTED", "SPECIES", "RACE", "CHIP", "CONTACT", "STATUS", "VERSION", "DELIVERY"])
        for report in reports {
            table.append([
                report.id, report.submittedAt, species.name(report.text("species")) ?? "-",
                TextLayout.truncate(report.text("race") ?? "-", to: 24), report.chip ?? "-", report.contacts ?? "-",
                report.standing(now: now), String(report.view.version), report.delivery(withTime: false),
            ].map(VisibleText.line))
        }
        var lines = table.lines
        if more { lines.append("… more reports: petspot reports list --all, or petspot reports export") }
        writeToStandardOutput(lines.map { $0 + "\n" }.joined())
    }

    /// A line per change until a signal ends the program; one that fell behind lists again.
    private func follow(_ conn: PetSpotConnection) -> Never {
        SignalWatcher.watch([SIGINT, SIGTERM]) { _ in _exit(0) }
        let species = SpeciesNames(conn)
        while true {
            let changed = conn.nextOrExit(ReportsChanged.self)
            guard let report = changed.report else {
                // JSON lines stay JSON: the note goes to standard error there.
                let note = "some changes were missed; the list as it is now:\n"
                if json { writeToStandardError(note) } else { writeToStandardOutput(note) }
                list(conn)
                continue
            }
            if json {
                writeToStandardOutput(JSONWriter.terminalString(["change": .string(changed.change.rawValue), "report": report.json]) + "\n")
                continue
            }
            let record = ReportRecord(report)
            let line = [changed.change.rawValue + String(repeating: " ", count: max(0, 9 - changed.change.rawValue.count)), record.id, record.submittedAt,
                        species.name(record.text("species")) ?? "-", record.chip ?? "-", record.standing(now: Date()),
                        "version \(record.view.version)"].joined(separator: "  ")
            writeToStandardOutput(VisibleText.line(line) + "\n")
        }
    }
}

import ArgumentParser
import PetSpotClient
import PetSpotJSON

/// `petspot reports list`: a table to find a report by, or JSON lines for a script.
struct ReportsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List your reports, newest first.",
        discussion: """
            Prints a table with each report's id, when it was submitted, the animal, how to \
            reach you, and whether it has been delivered to the central database. With --json, one report per line exactly as petspotd stores it (the photo \
            as its type, size and SHA-256).

            Examples:
              $ petspot reports list
              ID                                    SUBMITTED             SPECIES  RACE    CHIP               CONTACT       DELIVERY
              3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10  2026-11-21T13:07:27Z  Dog      Beagle  61609-12345-67890  +48123456789  pending
              $ petspot reports list --json | jq -r .id
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "Show at most this many.")
    var limit: Int = 20

    @Flag(help: "Show every report (pages through all of them).")
    var all = false

    @Flag(help: "Print JSON, one report per line.")
    var json = false

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
    }

    func run() throws {
        let conn = connection.connect()
        let pager = ReportPager(conn)
        var reports: [ReportRecord] = []
        let more = pager.forEach(limit: all ? nil : limit) { page in
            if json {
                for report in page { print(JSONWriter.terminalString(report.json)) }
            } else {
                reports += page.map(ReportRecord.init)
            }
        }
        if json { return }
        if reports.isEmpty {
            print("No reports yet. File one with: petspot report")
            return
        }
        let species = SpeciesNames(conn)
        var table = TextTable(headers: ["ID", "SUBMITTED", "SPECIES", "RACE", "CHIP", "CONTACT", "DELIVERY"])
        for report in reports {
            table.append([
                report.id, report.submittedAt, species.name(report.text("species")) ?? "-",
                TextLayout.truncate(report.text("race") ?? "-", to: 24), report.chip ?? "-", report.contacts ?? "-",
                report.delivery(withTime: false),
            ].map(VisibleText.line))
        }
        for line in table.lines { print(line) }
        if more { print("… more reports: petspot reports list --all, or petspot reports export") }
    }
}

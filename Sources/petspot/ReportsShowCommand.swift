import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText
import PetSpotViews

/// `petspot reports show`: one report with everything needed to act on it.
struct ReportsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one of your reports.",
        discussion: """
            Everything needed to act on the report: where it stands (missing and when it \
            expires, expired, found or withdrawn and how long ago, erased), its version and \
            when it last changed, the microchip number as printed on chip \
            readers (00000-00000-00000), the animal, when it went missing, where it was last \
            seen (coordinates to paste into a map, a geo: link for phones and an OpenStreetMap \
            link), the contacts, the photo's type, size and SHA-256, and whether a relay has \
            taken it to the central database yet (Delivery: pending, or delivered and when).

            Examples:
              petspot reports show 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              petspot reports show --json 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10

            How long ago, or how soon, is told by this machine's clock.
            """)

    @OptionGroup var connection: SocketOption

    @Argument(help: "The report's id (see petspot reports list).", completion: .custom(ReportsCommand.completeReportIDs))
    var id: String

    @Flag(help: "Print the report as JSON, as petspotd stores it.")
    var json = false

    func run() throws {
        let conn = connection.connect()
        Self.show(conn.callOrExit(ReportsGet.self, ReportsGet.Params(reportId: id)).report, names: conn, json: json)
    }

    /// Prints the report as `show` does, or as JSON: also what a change prints of the report after it.
    static func show(_ report: ReportView, names daemon: DaemonCalling, json: Bool) {
        if json {
            print(JSONPrettyPrinter.string(report.json))
            return
        }
        for line in lines(ReportRecord(report), species: SpeciesNames(daemon), now: Date()) { print(line) }
    }

    /// The report's lines; `now` is what its status is told relative to.
    static func lines(_ report: ReportRecord, species: SpeciesNames, now: Date) -> [String] {
        var rows: [(String, [String])] = [("Status", [report.standing(now: now)])]
        if let expiresAt = report.view.expiresAt { rows.append(("Expires", [expiresAt])) }
        rows += [
            ("Version", ["\(report.view.version), last changed \(report.view.updatedAt)"]),
            ("Submitted", [report.submittedAt]),
            ("Delivery", [report.delivery(withTime: true)]),
            ("Microchip", [report.chip ?? "-"]),
            ("Species", [species.name(report.text("species")) ?? "-"]),
            ("Race", [report.text("race") ?? "-"]),
            ("Gender", [report.gender ?? "-"]),
            ("Age", [report.age ?? "-"]),
            ("Missing since", [report.text("disappearanceDate") ?? "-"]),
            ("Last seen", report.position.map { [$0.pair, $0.geoURI, $0.openStreetMap] } ?? ["-"]),
            ("Description", report.text("additionalDescription").map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) } ?? ["-"]),
            ("Phone", [report.text("contactPhone") ?? "-"]),
            ("Email", [report.text("contactEmail") ?? "-"]),
        ]
        if let photo = report.photo {
            rows.append(("Photo", ["\(photo.mediaType), \(ByteSize.text(photo.bytes)) (\(photo.bytes) bytes)", "sha256 \(photo.sha256)"]))
        } else {
            rows.append(("Photo", ["-"]))
        }
        rows.append(("Flow", [report.flowID]))
        return LabeledLines.lines("Report \(report.id)", rows)
    }
}

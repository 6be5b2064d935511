import ArgumentParser
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
            Everything needed to act on the report: the microchip number as printed on chip \
            readers (00000-00000-00000), the animal, when it went missing, where it was last \
            seen (coordinates to paste into a map, a geo: link for phones and an OpenStreetMap \
            link), the contacts, the photo's type, size and SHA-256, and whether a relay has \
            taken it to the central database yet (Delivery: pending, or delivered and when).

            Examples:
              petspot reports show 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              petspot reports show --json 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
            """)

    @OptionGroup var connection: SocketOption

    @Argument(help: "The report's id (see petspot reports list).", completion: .custom(ReportsCommand.completeReportIDs))
    var id: String

    @Flag(help: "Print the report as JSON, as petspotd stores it.")
    var json = false

    func run() throws {
        let conn = connection.connect()
        let report = conn.callOrExit(ReportsGet.self, ReportsGet.Params(reportId: id)).report
        if json {
            print(JSONPrettyPrinter.string(report.json))
            return
        }
        for line in Self.lines(ReportRecord(report), species: SpeciesNames(conn)) { print(line) }
    }

    static func lines(_ report: ReportRecord, species: SpeciesNames) -> [String] {
        var rows: [(String, [String])] = [
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
        let width = rows.map(\.0.count).max() ?? 0
        var out = [VisibleText.line("Report \(report.id)")]
        for (label, values) in rows {
            for (index, value) in values.enumerated() {
                out.append("  " + TextLayout.pad(index == 0 ? label : "", to: width) + "  " + VisibleText.line(value))
            }
        }
        return out
    }
}

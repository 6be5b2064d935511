import ArgumentParser
import PetSpotJSON
import PetSpotText

/// `petspot reports export`: every report of yours, for a spreadsheet or another program.
struct ReportsExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export all your reports as NDJSON or CSV.",
        discussion: """
            Writes every report of yours to stdout, newest first, fetching them page by page. \
            ndjson: one report per line, as petspotd stores it. csv: RFC 4180 with a header \
            row, CRLF line ends, and quotes around any field with a comma, a quote or a line \
            break; values are as stored (the chip as digits, coordinates with 5 decimals), the \
            photo as its type, size and SHA-256, then the report's status, version, updatedAt, \
            expiresAt (empty unless missing) and erased (true or false). Neither carries a character a terminal would \
            act on: NDJSON writes such a character as a JSON escape (the same document), CSV \
            as \\u{1B} (a tab as \\t); a line break in a description stays one.

            Examples:
              petspot reports export > reports.ndjson
              petspot reports export --format csv > reports.csv
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case ndjson
        case csv
    }

    static let csvColumns = [
        "id", "submittedAt", "flowId", "chipNumber", "species", "race", "gender", "age", "disappearanceDate",
        "latitude", "longitude", "additionalDescription", "contactPhone", "contactEmail",
        "photoMediaType", "photoBytes", "photoSha256", "status", "version", "updatedAt", "expiresAt", "erased",
    ]

    @OptionGroup var connection: SocketOption

    @Option(help: "The output format.")
    var format: Format = .ndjson

    func run() throws {
        let conn = connection.connect()
        if format == .csv { write(CSVWriter.record(Self.csvColumns)) }
        Pager(conn).reports { page in
            var chunk = ""
            for report in page {
                switch format {
                case .ndjson: chunk += JSONWriter.terminalString(report.json) + "\n"
                case .csv: chunk += CSVWriter.record(Self.csvRow(ReportRecord(report)).map(VisibleText.lines))
                }
            }
            write(chunk)
        }
    }

    static func csvRow(_ report: ReportRecord) -> [String] {
        let photo = report.photo
        return [report.id, report.submittedAt, report.flowID]
            + ["chipNumber", "species", "race", "gender", "age", "disappearanceDate", "latitude", "longitude",
               "additionalDescription", "contactPhone", "contactEmail"].map { report.text($0) ?? "" }
            + [photo?.mediaType ?? "", photo.map { String($0.bytes) } ?? "", photo?.sha256 ?? ""]
            + [report.view.status.rawValue, String(report.view.version), report.view.updatedAt, report.view.expiresAt ?? "",
               report.view.erased ? "true" : "false"]
    }

    private func write(_ text: String) {
        writeToStandardOutput(text)
    }
}

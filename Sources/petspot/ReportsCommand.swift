import ArgumentParser
import PetSpotClient
import PetSpotProtocol
import PetSpotText

/// `petspot reports`: the reports you have submitted.
struct ReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "List, show and export your submitted reports.",
        discussion: """
            You see only the reports your own Unix user submitted.

            Examples:
              petspot reports list
              petspot reports show 3f2a0c1e-…
              petspot reports export --format csv > reports.csv
            """,
        subcommands: [ReportsListCommand.self, ReportsShowCommand.self, ReportsExportCommand.self],
        defaultSubcommand: ReportsListCommand.self)

    /// Completes a report id from the daemon, reading --socket from the command line typed so far.
    /// An id a terminal would not show as it is (one with a control character) is not offered.
    @Sendable
    static func completeReportIDs(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        var socket = PetSpotConnection.defaultSocketPath()
        if let flag = words.firstIndex(of: "--socket"), flag + 1 < words.count { socket = words[flag + 1] }
        guard let connection = try? PetSpotConnection(socketPath: socket, timeout: .seconds(2)),
            case .success(let page)? = try? connection.call(ReportsList.self, ReportsList.Params(limit: 100))
        else { return [] }
        return page.reports.map(\.id).filter { $0.hasPrefix(prefix) && !$0.unicodeScalars.contains(where: VisibleText.isShownEscaped) }
    }
}

import ArgumentParser
import PetSpotClient
import PetSpotProtocol
import PetSpotText

/// `petspot reports`: the reports you have submitted.
struct ReportsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "List, show, export and look after your submitted reports.",
        discussion: """
            You see and change only the reports your own Unix user submitted. A report is \
            missing until you mark it found or withdraw it; one not renewed for \
            reports.expireAfterDays (90 days by default) becomes expired. Each change prints the \
            report as it is after it, its version one higher.

            Examples:
              petspot reports list
              petspot reports show 3f2a0c1e-…
              petspot reports export --format csv > reports.csv
              petspot reports found 3f2a0c1e-…             the pet is home
              petspot reports withdraw 3f2a0c1e-…          stop the search
              petspot reports renew 3f2a0c1e-…             still missing: expires later
              petspot reports amend 3f2a0c1e-… --phone '+48 601 234 999' --clear age
              petspot reports erase 3f2a0c1e-…             personal data gone for good (asks first)
            """,
        subcommands: [ReportsListCommand.self, ReportsShowCommand.self, ReportsExportCommand.self, ReportsFoundCommand.self,
                      ReportsWithdrawCommand.self, ReportsRenewCommand.self, ReportsAmendCommand.self, ReportsEraseCommand.self],
        defaultSubcommand: ReportsListCommand.self)

    /// Completes a report id from the daemon, reading --socket from the command line typed so far.
    /// An id a terminal would not show as it is (one with a control character) is not offered.
    @Sendable
    static func completeReportIDs(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        guard let connection = completionConnection(words),
            case .success(let page)? = try? connection.call(ReportsList.self, ReportsList.Params(limit: 100))
        else { return [] }
        return offered(page.reports.map(\.id), prefix)
    }

    /// Completes a species id from the daemon's list, as `completeReportIDs` completes an id.
    @Sendable
    static func completeSpecies(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        guard let connection = completionConnection(words),
            case .success(let list)? = try? connection.call(SpeciesList.self, SpeciesList.Params())
        else { return [] }
        return offered(list.species.map(\.id), prefix)
    }

    /// A connection to the daemon the command line typed so far names (--socket), quick to give up.
    static func completionConnection(_ words: [String]) -> PetSpotConnection? {
        var socket = PetSpotConnection.defaultSocketPath()
        if let flag = words.firstIndex(of: "--socket"), flag + 1 < words.count { socket = words[flag + 1] }
        return try? PetSpotConnection(socketPath: socket, timeout: .seconds(2))
    }

    /// The words starting with `prefix` that a terminal shows as they are.
    static func offered(_ words: [String], _ prefix: String) -> [String] {
        words.filter { $0.hasPrefix(prefix) && !$0.unicodeScalars.contains(where: VisibleText.isShownEscaped) }
    }
}

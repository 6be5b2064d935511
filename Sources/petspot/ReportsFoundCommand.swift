import ArgumentParser
import PetSpotProtocol

/// `petspot reports found`: the pet is home; the report ends.
struct ReportsFoundCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "found",
        abstract: "Mark a report found: the pet is home.",
        discussion: """
            Ends a missing or expired report as found (reports.close) and prints it as it is \
            now. It no longer expires and leaves every box's list of missing animals; it can \
            change no more, only be erased (by you with petspot reports erase, or by petspotd \
            reports.eraseAfterDays later, a year by default). Marking a found report found \
            again changes nothing; a withdrawn or erased one is refused (exit 1).

            Examples:
              petspot reports found 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              petspot reports found --json 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10 | jq .version
            """)

    @OptionGroup var change: ReportChangeOptions

    func run() throws {
        change.close(.found)
    }
}

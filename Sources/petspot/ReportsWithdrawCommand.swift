import ArgumentParser
import PetSpotProtocol

/// `petspot reports withdraw`: the owner takes the report back.
struct ReportsWithdrawCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "withdraw",
        abstract: "Withdraw a report you no longer want searched for.",
        discussion: """
            Ends a missing or expired report as withdrawn (reports.close) and prints it as it \
            is now: the pet was not found, but nobody should look for it any more. It no longer \
            expires and leaves every box's list of missing animals; it can change no more, only \
            be erased (by you with petspot reports erase, or by petspotd \
            reports.eraseAfterDays later, a year by default). Withdrawing a withdrawn report \
            again changes nothing; a found or erased one is refused (exit 1).

            Examples:
              petspot reports withdraw 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              petspot reports withdraw --json 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
            """)

    @OptionGroup var change: ReportChangeOptions

    func run() throws {
        change.close(.withdrawn)
    }
}

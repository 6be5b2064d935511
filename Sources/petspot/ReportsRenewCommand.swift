import ArgumentParser
import PetSpotProtocol

/// `petspot reports renew`: still missing, for another expiry period.
struct ReportsRenewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "renew",
        abstract: "Keep a report missing for another expiry period.",
        discussion: """
            A missing report expires reports.expireAfterDays after it was filed or last \
            renewed (90 days by default): then it is expired and leaves the list of missing \
            animals. Renewing (reports.renew) makes a missing or expired report missing again, \
            expiring that long from now, and prints it as it is now. A found, withdrawn or \
            erased report is refused (exit 1).

            Examples:
              petspot reports renew 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              petspot reports list --json | jq -r 'select(.status == "expired") | .id' \\
                | xargs -n 1 petspot reports renew
            """)

    @OptionGroup var change: ReportChangeOptions

    func run() throws {
        change.apply(ReportsRenew.self, ReportsRenew.Params(reportId: change.id))
    }
}

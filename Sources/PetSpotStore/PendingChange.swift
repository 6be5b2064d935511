import FoundationEssentials

/// What an owner's change comes to: the report after it (changed or not), or why not.
typealias ChangeOutcome = Result<ReportChangeResult, ReportChangeError>

/// An owner's change of a report (close, renew, amend, erase) waiting for the group
/// transaction that makes it.
final class PendingChange: Sendable, GroupMember {
    let action: String
    let id: String
    let ownerUID: UInt32
    /// The change's moment, to the whole millisecond as the store keeps times.
    let now: Date
    /// What the change comes to, decided of the report as it is in the transaction.
    let decide: @Sendable (StoredReport) -> ReportStore.Decision
    /// What it may add to the group's transaction (a photo an amendment brings).
    let bytes: Int
    private let reply = OneAnswer<ChangeOutcome>()

    init(action: String, id: String, ownerUID: UInt32, now: Date, bytes: Int, decide: @escaping @Sendable (StoredReport) -> ReportStore.Decision) {
        (self.action, self.id, self.ownerUID, self.now, self.bytes, self.decide) = (action, id, ownerUID, now, bytes, decide)
    }

    func answer(_ outcome: ChangeOutcome) { reply.answer(outcome) }

    func outcome() async -> ChangeOutcome { await reply.value() }
}

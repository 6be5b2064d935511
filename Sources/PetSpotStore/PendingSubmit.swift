import FoundationEssentials

/// What a submit comes to: the report stored (or the one its flow already had), or why not.
typealias SubmitOutcome = Result<(report: StoredReport, inserted: Bool), ReportStoreError>

/// A submit waiting for the group transaction that stores it.
final class PendingSubmit: Sendable, GroupMember {
    let report: NewReport
    /// Its life at submit, from its `submittedAt`.
    let life: ReportLife
    /// What the report weighs in a group's transaction: its photo and values, the bulk of its row.
    let bytes: Int
    private let reply = OneAnswer<SubmitOutcome>()

    init(_ report: NewReport, submitted: Date) {
        self.report = report
        self.life = .submitted(at: submitted.inWholeMilliseconds)
        self.bytes = report.valuesJSON.utf8.count + (report.photo?.data.count ?? 0)
    }

    func answer(_ outcome: SubmitOutcome) { reply.answer(outcome) }

    /// Waits until the group holding the report has committed or failed.
    func outcome() async -> SubmitOutcome { await reply.value() }
}

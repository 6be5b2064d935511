import NIOConcurrencyHelpers

/// A submit waiting for the group transaction that stores it, and then holding its answer.
///
/// The answer is set by the turn that commits (or fails) the group, before that turn ends; the
/// submitter reads it in its own turn, which comes later.
final class PendingSubmit: Sendable {
    let report: NewReport
    /// What the report weighs in a group's transaction: its photo and values, the bulk of its row.
    let bytes: Int
    private let answer = NIOLockedValueBox<Result<(report: StoredReport, inserted: Bool), ReportStoreError>?>(nil)

    init(_ report: NewReport) {
        self.report = report
        self.bytes = report.valuesJSON.utf8.count + (report.photo?.data.count ?? 0)
    }

    func answer(_ outcome: Result<(report: StoredReport, inserted: Bool), ReportStoreError>) {
        answer.withLockedValue { $0 = outcome }
    }

    /// The answer; nil until the group holding it has committed or failed.
    var outcome: Result<(report: StoredReport, inserted: Bool), ReportStoreError>? {
        answer.withLockedValue { $0 }
    }
}

import FoundationEssentials
import NIOConcurrencyHelpers

/// What a submit comes to: the report stored (or the one its flow already had), or why not.
typealias SubmitOutcome = Result<(report: StoredReport, inserted: Bool), ReportStoreError>

/// A submit waiting for the group transaction that stores it.
///
/// The turn that commits (or fails) the group answers each member directly, which resumes the
/// member's caller: no member needs a turn of the store of its own after its group's.
final class PendingSubmit: Sendable {
    let report: NewReport
    /// Its life at submit, from its `submittedAt`.
    let life: ReportLife
    /// What the report weighs in a group's transaction: its photo and values, the bulk of its row.
    let bytes: Int

    private enum State {
        case waiting(CheckedContinuation<SubmitOutcome, Never>?)
        case answered(SubmitOutcome)
    }

    private let state = NIOLockedValueBox(State.waiting(nil))

    init(_ report: NewReport, submitted: Date) {
        self.report = report
        self.life = .submitted(at: submitted.inWholeMilliseconds)
        self.bytes = report.valuesJSON.utf8.count + (report.photo?.data.count ?? 0)
    }

    /// Sets the outcome and resumes the caller if it is waiting. Only the first answer counts.
    func answer(_ outcome: SubmitOutcome) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<SubmitOutcome, Never>? in
            guard case .waiting(let waiter) = state else { return nil }
            state = .answered(outcome)
            return waiter
        }
        waiter?.resume(returning: outcome)
    }

    /// Waits until the group holding the report has committed or failed. Not cancellable: once
    /// queued, the report is stored or failed with its group, and the caller learns which.
    func outcome() async -> SubmitOutcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<SubmitOutcome, Never>) in
            let ready = state.withLockedValue { state -> SubmitOutcome? in
                switch state {
                case .answered(let outcome):
                    return outcome
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

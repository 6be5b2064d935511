/// Where a report stands in its life: `missing` from submit, until its owner closes it
/// (`found`, `withdrawn`) or retention turns it `expired`. Erasure is not a status: an erased
/// report keeps the status it had (a `missing` one becomes `withdrawn`).
public enum ReportStatus: String, Sendable, Hashable, CaseIterable {
    case missing
    case found
    case withdrawn
    case expired

    /// Closed by its owner: only erasure changes it from here.
    public var isClosed: Bool { self == .found || self == .withdrawn }
}

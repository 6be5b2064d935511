/// A report after an owner's change: as it is now, and whether the call changed it (false when
/// the change was already in effect: the same close again, an erasure of an erased report).
public struct ReportChangeResult: Sendable, Hashable {
    public let report: StoredReport
    public let changed: Bool

    public init(report: StoredReport, changed: Bool) {
        self.report = report
        self.changed = changed
    }
}

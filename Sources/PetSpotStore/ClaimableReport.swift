/// A report not yet delivered, with what a relay forwards: its photo's bytes too.
public struct ClaimableReport: Sendable, Hashable {
    public let report: StoredReport
    public let photo: StoredPhoto?

    public init(report: StoredReport, photo: StoredPhoto?) {
        self.report = report
        self.photo = photo
    }
}

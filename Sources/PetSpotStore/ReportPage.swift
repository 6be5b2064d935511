/// One page of a user's reports, newest first.
public struct ReportPage: Sendable, Hashable {
    public let reports: [StoredReport]
    /// Opaque text that fetches the next page; nil when this page is the last.
    public let nextCursor: String?

    public init(reports: [StoredReport], nextCursor: String?) {
        self.reports = reports
        self.nextCursor = nextCursor
    }
}

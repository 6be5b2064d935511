/// Where the next page of a listing starts: just after the report with this id, which must be
/// the caller's own. A cursor names only a report its owner has already seen on a page, so it
/// tells nothing about the reports of others (a sequence number would count them), and in
/// another user's hands it is refused like any cursor this daemon never gave out.
struct ReportCursor: Hashable {
    /// Report ids are short; anything longer was never given out.
    static let maxLength = 128

    let afterReportID: String

    init(afterReportID: String) {
        self.afterReportID = afterReportID
    }

    init?(text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maxLength else { return nil }
        self.afterReportID = text
    }

    var text: String { afterReportID }
}

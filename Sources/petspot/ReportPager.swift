import PetSpotClient
import PetSpotProtocol

/// Reads the caller's reports newest first, page by page with the daemon's cursor, so a
/// command never asks for more than a page at a time.
struct ReportPager {
    let daemon: DaemonCalling
    /// The daemon's largest page (`limits.maxReportsPage`).
    let pageSize: Int

    init(_ daemon: DaemonCalling) {
        self.daemon = daemon
        pageSize = max(daemon.callOrExit(DaemonInfo.self).limit("maxReportsPage") ?? 20, 1)
    }

    /// Hands each report to `body`, at most `limit` of them (nil: all); returns whether more
    /// reports remain beyond the limit.
    @discardableResult
    func forEach(limit: Int? = nil, _ body: ([ReportView]) -> Void) -> Bool {
        var cursor: String?
        var remaining = limit ?? Int.max
        while remaining > 0 {
            let page = daemon.callOrExit(ReportsList.self, ReportsList.Params(limit: min(pageSize, remaining), cursor: cursor))
            body(page.reports)
            remaining -= page.reports.count
            guard let next = page.cursor, !page.reports.isEmpty else { return false }
            cursor = next
        }
        return true
    }
}

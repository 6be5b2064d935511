import PetSpotClient
import PetSpotProtocol

/// Reads a list the daemon gives a page at a time with a cursor (reports.list, animals.list),
/// so a command never asks for more than a page at a time.
struct Pager {
    let daemon: DaemonCalling
    /// The daemon's largest page (`limits.maxReportsPage`, which bounds both lists).
    let pageSize: Int

    init(_ daemon: DaemonCalling) {
        self.daemon = daemon
        pageSize = max(daemon.callOrExit(DaemonInfo.self).limit("maxReportsPage") ?? 20, 1)
    }

    /// Hands each page of `fetch(limit, cursor)` to `body`, at most `limit` items in all (nil:
    /// all of them); returns whether more remain beyond the limit.
    @discardableResult
    func forEach<Item>(limit: Int?, fetch: (_ limit: Int, _ cursor: String?) -> (items: [Item], cursor: String?),
                       _ body: ([Item]) -> Void) -> Bool {
        var cursor: String?
        var remaining = limit ?? Int.max
        while remaining > 0 {
            let page = fetch(min(pageSize, remaining), cursor)
            body(page.items)
            remaining -= page.items.count
            guard let next = page.cursor, !page.items.isEmpty else { return false }
            cursor = next
        }
        return true
    }

    /// The caller's reports, newest first.
    @discardableResult
    func reports(limit: Int? = nil, _ body: ([ReportView]) -> Void) -> Bool {
        forEach(limit: limit, fetch: { limit, cursor in
            let page = daemon.callOrExit(ReportsList.self, ReportsList.Params(limit: limit, cursor: cursor))
            return (page.reports, page.cursor)
        }, body)
    }
}

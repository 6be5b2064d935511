import PetSpotJSON

/// Reads the caller's reports newest first, page by page with the daemon's cursor, so a
/// command never asks for more than a page at a time.
struct ReportPager {
    let daemon: DaemonCalling
    /// The daemon's largest page (`limits.maxReportsPage`).
    let pageSize: Int

    init(_ daemon: DaemonCalling) {
        self.daemon = daemon
        let info = daemon.callOrExit(.daemonInfo)
        pageSize = max(info["limits"]?["maxReportsPage"]?.intValue ?? 20, 1)
    }

    /// Hands each report to `body`, at most `limit` of them (nil: all); returns whether more
    /// reports remain beyond the limit.
    @discardableResult
    func forEach(limit: Int? = nil, _ body: ([JSONValue]) -> Void) -> Bool {
        var cursor: String?
        var remaining = limit ?? Int.max
        while remaining > 0 {
            var params: JSONObject = ["limit": .int(min(pageSize, remaining))]
            if let cursor { params["cursor"] = .string(cursor) }
            let page = daemon.callOrExit(.reportsList, params)
            let reports = page["reports"]?.arrayValue ?? []
            body(reports)
            remaining -= reports.count
            guard let next = page["cursor"]?.stringValue, !reports.isEmpty else { return false }
            cursor = next
        }
        return true
    }
}

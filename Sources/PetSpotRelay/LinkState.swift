/// Whether one side (the daemon, PostgreSQL) answered at the last attempt, and why not.
/// A change of `category` is what the relay logs: one line when a side goes away (or TLS is
/// refused) and one when it is back, never one per retry, even as the reason's wording moves
/// (a broken connection, then "connection refused" while it stays down).
public enum LinkState: Sendable, Equatable {
    case unknown
    case reachable
    /// `kind` names the sort of failure ("unreachable", "tls", "refused", ...).
    case unreachable(reason: String, kind: String)

    /// Moves to `next`; true when that is a change of category, worth a log line.
    public mutating func move(to next: LinkState) -> Bool {
        defer { self = next }
        return category != next.category
    }

    /// "unknown", "reachable", or the failure's kind.
    public var category: String {
        switch self {
        case .unknown: "unknown"
        case .reachable: "reachable"
        case .unreachable(_, let kind): kind
        }
    }

    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .reachable: "reachable"
        case .unreachable(_, let kind): kind == "unreachable" ? "unreachable" : "unreachable (\(kind))"
        }
    }
}

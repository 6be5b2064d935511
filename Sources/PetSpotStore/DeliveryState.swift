/// Whether a relay has taken a report to the central database.
public enum DeliveryState: Sendable, Hashable {
    /// Not yet acknowledged by a relay.
    case pending
    /// Acknowledged at this time (ISO 8601 UTC, the format of `submittedAt`).
    case delivered(at: String)
}

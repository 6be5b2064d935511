/// How far delivery has come, over the reports of all users.
public struct DeliveryCounts: Sendable, Hashable {
    /// Reports no relay has acknowledged.
    public let pending: Int
    public let delivered: Int
    /// The latest acknowledgement; nil before the first.
    public let lastDeliveredAt: String?

    public init(pending: Int, delivered: Int, lastDeliveredAt: String?) {
        self.pending = pending
        self.delivered = delivered
        self.lastDeliveredAt = lastDeliveredAt
    }
}

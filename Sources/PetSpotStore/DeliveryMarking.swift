/// What acknowledging a list of reports changed.
public struct DeliveryMarking: Sendable, Hashable {
    /// Reports marked delivered by this acknowledgement.
    public let delivered: Int
    /// Reports that were delivered already; their time is kept.
    public let alreadyDelivered: Int

    public init(delivered: Int, alreadyDelivered: Int) {
        self.delivered = delivered
        self.alreadyDelivered = alreadyDelivered
    }
}

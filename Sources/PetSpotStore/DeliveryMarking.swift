/// What acknowledging a list of reports changed.
public struct DeliveryMarking: Sendable, Hashable {
    /// Reports marked delivered by this acknowledgement.
    public let delivered: Int
    /// Reports that were delivered already; their time is kept.
    public let alreadyDelivered: Int
    /// The ids this acknowledgement marked, in the order given.
    public let newlyDelivered: [String]

    public init(delivered: Int, alreadyDelivered: Int, newlyDelivered: [String] = []) {
        self.delivered = delivered
        self.alreadyDelivered = alreadyDelivered
        self.newlyDelivered = newlyDelivered
    }
}

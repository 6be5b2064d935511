/// What acknowledging a list of report versions changed.
public struct DeliveryMarking: Sendable, Hashable {
    /// Reports whose delivered version this acknowledgement raised.
    public let delivered: Int
    /// Reports that had that version, or a later one, delivered already; their time is kept.
    public let alreadyDelivered: Int
    /// The ids whose delivered version this acknowledgement raised, in the order given.
    public let newlyDelivered: [String]

    public init(delivered: Int, alreadyDelivered: Int, newlyDelivered: [String] = []) {
        self.delivered = delivered
        self.alreadyDelivered = alreadyDelivered
        self.newlyDelivered = newlyDelivered
    }
}

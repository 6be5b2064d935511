/// A version of a report a relay has delivered (`relay.ack`).
public struct DeliveredVersion: Sendable, Hashable {
    public let reportID: String
    public let version: Int

    public init(reportID: String, version: Int) {
        self.reportID = reportID
        self.version = version
    }
}

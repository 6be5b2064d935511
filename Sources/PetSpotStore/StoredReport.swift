/// A stored report as listed and fetched: the photo is described, not loaded.
public struct StoredReport: Sendable, Hashable {
    public let id: String
    public let flowID: String
    public let ownerUID: UInt32
    public let submittedAt: String
    public let valuesJSON: String
    public let photoMediaType: String?
    public let photoSHA256: String?
    public let photoBytes: Int?
    public let delivery: DeliveryState

    public init(
        id: String, flowID: String, ownerUID: UInt32, submittedAt: String, valuesJSON: String,
        photoMediaType: String?, photoSHA256: String?, photoBytes: Int?, delivery: DeliveryState = .pending
    ) {
        self.id = id
        self.flowID = flowID
        self.ownerUID = ownerUID
        self.submittedAt = submittedAt
        self.valuesJSON = valuesJSON
        self.photoMediaType = photoMediaType
        self.photoSHA256 = photoSHA256
        self.photoBytes = photoBytes
        self.delivery = delivery
    }

    /// The report as it reads back after storing `report`: not yet delivered.
    init(_ report: NewReport) {
        self.init(
            id: report.id, flowID: report.flowID, ownerUID: report.ownerUID,
            submittedAt: report.submittedAt, valuesJSON: report.valuesJSON,
            photoMediaType: report.photo?.mediaType, photoSHA256: report.photo?.sha256,
            photoBytes: report.photo?.data.count)
    }
}

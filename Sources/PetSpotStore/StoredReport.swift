import FoundationEssentials

/// A stored report as listed and fetched: the photo is described, not loaded.
public struct StoredReport: Sendable, Hashable {
    public let id: String
    public let flowID: String
    public let ownerUID: UInt32
    public let submittedAt: String
    /// The `values` object; once erased, only `species` and `disappearanceDate` are not null.
    public let valuesJSON: String
    public let photoMediaType: String?
    public let photoSHA256: String?
    public let photoBytes: Int?
    /// Its status, version and the times retention counts from.
    public let life: ReportLife
    /// Pending while a relay has not acknowledged the report's current version.
    public let delivery: DeliveryState
    /// The version a relay last acknowledged; 0 before the first.
    public let deliveredVersion: Int

    public init(
        id: String, flowID: String, ownerUID: UInt32, submittedAt: String, valuesJSON: String,
        photoMediaType: String?, photoSHA256: String?, photoBytes: Int?, life: ReportLife,
        delivery: DeliveryState = .pending, deliveredVersion: Int = 0
    ) {
        self.id = id
        self.flowID = flowID
        self.ownerUID = ownerUID
        self.submittedAt = submittedAt
        self.valuesJSON = valuesJSON
        self.photoMediaType = photoMediaType
        self.photoSHA256 = photoSHA256
        self.photoBytes = photoBytes
        self.life = life
        self.delivery = delivery
        self.deliveredVersion = deliveredVersion
    }

    public var status: ReportStatus { life.status }
    public var version: Int { life.version }
    public var updatedAt: Date { life.updatedAt }
    public var isErased: Bool { life.isErased }

    /// The report as it reads back after storing `report` with `life`: not yet delivered.
    init(_ report: NewReport, life: ReportLife) {
        self.init(
            id: report.id, flowID: report.flowID, ownerUID: report.ownerUID,
            submittedAt: report.submittedAt, valuesJSON: report.valuesJSON,
            photoMediaType: report.photo?.mediaType, photoSHA256: report.photo?.sha256,
            photoBytes: report.photo?.data.count, life: life)
    }
}

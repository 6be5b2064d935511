/// A finished report as the server hands it over for storage.
public struct NewReport: Sendable {
    /// Report id chosen by the caller (UUID text).
    public let id: String
    /// The flow that produced the report. Unique: a retried submit of the same flow returns the first report.
    public let flowID: String
    /// Unix uid of the submitting user; only this user can see the report.
    public let ownerUID: UInt32
    /// ISO 8601 UTC, e.g. "2026-11-21T13:07:27Z", chosen by the caller so tests can inject a clock.
    public let submittedAt: String
    /// The report's `values` object as compact JSON text (photo as metadata only).
    public let valuesJSON: String
    /// Set by the caller just before it submits, when the bytes are at hand (read back from
    /// the daemon's spool).
    public var photo: StoredPhoto?
    /// What the animal list finds it by: read from `valuesJSON` by the caller, and its photo's
    /// public copy described once the bytes are at hand.
    public var board: BoardFields

    public init(id: String, flowID: String, ownerUID: UInt32, submittedAt: String, valuesJSON: String, photo: StoredPhoto?,
                board: BoardFields) {
        self.id = id
        self.flowID = flowID
        self.ownerUID = ownerUID
        self.submittedAt = submittedAt
        self.valuesJSON = valuesJSON
        self.photo = photo
        self.board = board
    }
}

import PetSpotJSON
import PetSpotProtocol

/// One report handed out by `relay.claim`, ready to be written centrally.
public struct ClaimedReport: Sendable, Equatable {
    public let id: String
    /// ISO 8601 UTC, as the daemon writes it; PostgreSQL reads it as a timestamptz.
    public let submittedAt: String
    /// The report as `reports.get` gives it, without its `delivery` member: that says "pending"
    /// at claim time and would be wrong centrally the moment the relay acknowledges it.
    public let report: JSONValue
    public let photo: Photo?
    /// Where the report stands and which of its versions this is: the central row keeps a
    /// version only over an older one.
    public let status: ReportView.Status
    public let version: Int
    /// ISO 8601 UTC, as the daemon writes it.
    public let updatedAt: String
    /// Its personal data is gone: the central row then holds none and no photo.
    public let erased: Bool

    /// The photo as claimed: its bytes stay base64 as the daemon sent them, and PostgreSQL
    /// decodes them (decode(…, 'base64')), so a batch of photos is never held twice here.
    public typealias Photo = RelayClaim.Photo

    public init(id: String, submittedAt: String, report: JSONValue, photo: Photo?, status: ReportView.Status, version: Int,
                updatedAt: String, erased: Bool)
    {
        self.id = id
        self.submittedAt = submittedAt
        self.report = report
        self.photo = erased ? nil : photo
        self.status = status
        self.version = version
        self.updatedAt = updatedAt
        self.erased = erased
    }

    /// One element of `relay.claim`'s `reports`, as the contract reads it. An erased report
    /// keeps centrally, whatever the daemon sent, only what erasure keeps: no photo, no member
    /// this version does not know, and of its values only `valuesKeptByErasure`.
    public init(_ item: RelayClaim.Item) throws(DaemonAnswerError) {
        var view = item.report
        guard !view.id.isEmpty else { throw DaemonAnswerError("a claimed report has an empty id") }
        guard view.version >= 1 else { throw DaemonAnswerError("claimed report \"\(view.id)\" has version \(view.version); versions start at 1") }
        if view.erased {
            let values = view.values.members.map { (key: $0.key, value: Self.valuesKeptByErasure.contains($0.key) ? $0.value : JSONValue.null) }
            view = ReportView(id: view.id, flowID: view.flowID, submittedAt: view.submittedAt, status: view.status, version: view.version,
                              updatedAt: view.updatedAt, expiresAt: view.expiresAt, erased: true, values: JSONObject(members: values),
                              delivery: view.delivery)
        }
        self.init(id: view.id, submittedAt: view.submittedAt, report: view.jsonWithoutDelivery, photo: item.photo,
                  status: view.status, version: view.version, updatedAt: view.updatedAt, erased: view.erased)
    }

    /// What erasure keeps of a report's values (docs/PROTOCOL.md, "Reports"); the others are null.
    public static let valuesKeptByErasure: Set<String> = ["species", "disappearanceDate"]
}

/// What one `relay.claim` handed out.
public struct ClaimBatch: Sendable, Equatable {
    public let reports: [ClaimedReport]
    /// Undelivered reports left in the daemon after this claim, claimed or not.
    public let pending: Int

    public init(reports: [ClaimedReport], pending: Int) {
        self.reports = reports
        self.pending = pending
    }

    public init(result: JSONValue) throws(DaemonAnswerError) {
        try self.init(try DaemonAnswerError.reading(RelayClaim.name, result, RelayClaim.Result.init(json:)))
    }

    public init(_ claim: RelayClaim.Result) throws(DaemonAnswerError) {
        var reports: [ClaimedReport] = []
        reports.reserveCapacity(claim.reports.count)
        for item in claim.reports { reports.append(try ClaimedReport(item)) }
        self.init(reports: reports, pending: claim.pending)
    }
}

/// The daemon answered, but not as the relay contract says.
public struct DaemonAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// `method`'s answer read with the contract's reader; a misfit names the method and the member.
    static func reading<T>(_ method: String, _ result: JSONValue, _ read: (JSONValue) throws(FlowViewError) -> T) throws(DaemonAnswerError) -> T {
        do throws(FlowViewError) {
            return try read(result)
        } catch {
            throw DaemonAnswerError("\(method)'s answer: \(error)")
        }
    }
}

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

    /// The photo as claimed: its bytes stay base64 as the daemon sent them, and PostgreSQL
    /// decodes them (decode(…, 'base64')), so a batch of photos is never held twice here.
    public typealias Photo = RelayClaim.Photo

    public init(id: String, submittedAt: String, report: JSONValue, photo: Photo?) {
        self.id = id
        self.submittedAt = submittedAt
        self.report = report
        self.photo = photo
    }

    /// One element of `relay.claim`'s `reports`, as the contract reads it.
    public init(_ item: RelayClaim.Item) throws(DaemonAnswerError) {
        guard !item.report.id.isEmpty else { throw DaemonAnswerError("a claimed report has an empty id") }
        self.init(id: item.report.id, submittedAt: item.report.submittedAt, report: item.report.jsonWithoutDelivery, photo: item.photo)
    }
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

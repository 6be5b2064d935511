import PetSpotJSON

/// One report handed out by `relay.claim`, ready to be written centrally.
public struct ClaimedReport: Sendable, Equatable {
    public let id: String
    /// ISO 8601 UTC, as the daemon writes it; PostgreSQL reads it as a timestamptz.
    public let submittedAt: String
    /// The report as `reports.get` gives it, without its `delivery` member: that says "pending"
    /// at claim time and would be wrong centrally the moment the relay acknowledges it.
    public let report: JSONValue
    public let photo: Photo?

    public struct Photo: Sendable, Equatable {
        public let mediaType: String
        /// Lower-case hex SHA-256 of the bytes, as the daemon computed it.
        public let sha256: String
        /// The bytes, base64 as the daemon sent them: PostgreSQL decodes them (decode(…, 'base64')),
        /// so a batch of photos is never held twice in the relay.
        public let base64: String

        public init(mediaType: String, sha256: String, base64: String) {
            self.mediaType = mediaType
            self.sha256 = sha256
            self.base64 = base64
        }
    }

    public init(id: String, submittedAt: String, report: JSONValue, photo: Photo?) {
        self.id = id
        self.submittedAt = submittedAt
        self.report = report
        self.photo = photo
    }

    /// Reads one element of `relay.claim`'s `reports`.
    public init(claimed value: JSONValue) throws(DaemonAnswerError) {
        guard case .object(var report)? = value["report"] else { throw DaemonAnswerError("a claimed report has no \"report\" object") }
        guard let id = report["id"]?.stringValue, !id.isEmpty else { throw DaemonAnswerError("a claimed report has no id") }
        guard let submittedAt = report["submittedAt"]?.stringValue else { throw DaemonAnswerError("report \(id) has no submittedAt") }
        report["delivery"] = nil
        var photo: Photo?
        switch value["photo"] {
        case nil, .null?:
            photo = nil
        case .object(let object)?:
            guard let mediaType = object["mediaType"]?.stringValue, let sha256 = object["sha256"]?.stringValue,
                  let data = object["data"]?.stringValue
            else { throw DaemonAnswerError("report \(id) has a photo without mediaType, sha256 or data") }
            photo = Photo(mediaType: mediaType, sha256: sha256, base64: data)
        case let other?:
            throw DaemonAnswerError("report \(id) has a photo that is \(other.typeName), not an object or null")
        }
        self.init(id: id, submittedAt: submittedAt, report: .object(report), photo: photo)
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
        guard let items = result["reports"]?.arrayValue else { throw DaemonAnswerError("relay.claim's answer has no \"reports\" array") }
        var reports: [ClaimedReport] = []
        reports.reserveCapacity(items.count)
        for item in items { reports.append(try ClaimedReport(claimed: item)) }
        guard case .number(let n)? = result["pending"], let pending = n.exactInt else {
            throw DaemonAnswerError("relay.claim's answer has no \"pending\" count")
        }
        self.init(reports: reports, pending: pending)
    }
}

/// The daemon answered, but not as the relay contract says.
public struct DaemonAnswerError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

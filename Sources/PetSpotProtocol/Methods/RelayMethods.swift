import PetSpotJSON

// The relay methods' params and results, written by the daemon and read by petspot-relay from
// these types alone, so that the two cannot drift apart. Member order is the wire's.

/// `relay.claim`: reports not yet delivered, oldest first, with their photos.
public enum RelayClaim: RPCMethodSpec {
    public static let name = "relay.claim"
    public static let visibility = MethodVisibility.relayGroup
    /// The most reports a claim or an acknowledgement names.
    public static let maxReportsRange = 1...10_000

    public struct Params: RPCParamsCoding, Equatable {
        /// Reports at most; the daemon hands out no more than `relay.maxClaimReports`.
        public var limit: Int?

        public init(limit: Int? = nil) {
            self.limit = limit
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            limit = try p.optionalInt("limit", in: RelayClaim.maxReportsRange)
            try p.finish()
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["limit": limit.map { .int($0) }])
        }
    }

    public struct Photo: Sendable, Equatable {
        public let mediaType: String
        /// Lower-case hex SHA-256 of the bytes.
        public let sha256: String
        /// The bytes in base64, as they travel.
        public let base64: String

        public init(mediaType: String, sha256: String, base64: String) {
            self.mediaType = mediaType
            self.sha256 = sha256
            self.base64 = base64
        }
    }

    public struct Item: Sendable, Equatable {
        /// The report as `reports.get` gives it.
        public let report: ReportView
        public let ownerUID: Int
        public let photo: Photo?

        public init(report: ReportView, ownerUID: Int, photo: Photo?) {
            self.report = report
            self.ownerUID = ownerUID
            self.photo = photo
        }

        public var json: JSONValue {
            [
                "report": report.json,
                "ownerUid": .int(ownerUID),
                "photo": photo.map { ["mediaType": .string($0.mediaType), "sha256": .string($0.sha256), "data": .string($0.base64)] } ?? .null,
            ]
        }

        init(_ wire: WireObject) throws(FlowViewError) {
            let photo = try wire.optionalObject("photo")
            self.init(report: try ReportView(try wire.object("report")), ownerUID: try wire.int("ownerUid"),
                      photo: try photo.map { (p) throws(FlowViewError) in
                          Photo(mediaType: try p.string("mediaType"), sha256: try p.string("sha256"), base64: try p.string("data"))
                      })
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let reports: [Item]
        /// How long the claim holds the reports for this relay.
        public let claimTimeoutSeconds: Int
        /// Undelivered reports left in the daemon after this claim, claimed or not.
        public let pending: Int

        public init(reports: [Item], claimTimeoutSeconds: Int, pending: Int) {
            self.reports = reports
            self.claimTimeoutSeconds = claimTimeoutSeconds
            self.pending = pending
        }

        public var json: JSONValue {
            ["reports": .array(reports.map(\.json)), "claimTimeoutSeconds": .int(claimTimeoutSeconds), "pending": .int(pending)]
        }

        /// Reads the result; an error names the member at fault ("result.reports[1].photo.data …").
        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(reports: try wire.objects("reports", Item.init), claimTimeoutSeconds: try wire.int("claimTimeoutSeconds"),
                      pending: try wire.int("pending"))
        }
    }

    public static let contract = MethodContract(
        name, "Reports not yet delivered, oldest first, with their photos, held for this relay a while (relay group only)",
        params: [.init("limit", .integer(maxReportsRange, "More than relay.maxClaimReports gets that many"), "Reports at most")],
        result: "claim", .object([
            "reports": .array(.object([
                "report": .ref("Report"),
                "ownerUid": .integer(0...4_294_967_295),
                "photo": .nullable(.object(["mediaType": .string(), "sha256": .string(), "data": .string("base64")])),
            ])),
            "claimTimeoutSeconds": .integer(1...Int.max),
            "pending": .integer(0...Int.max),
        ]),
        errors: [.storageFailed],
        example: ("one report with its photo", Params(limit: 100).json, Result(
            reports: [Item(report: ProtocolExamples.report(.pending), ownerUID: 1000,
                           photo: Photo(mediaType: "image/png", sha256: ProtocolExamples.photoSHA256, base64: ProtocolExamples.photoBase64))],
            claimTimeoutSeconds: 60, pending: 1).json))
}

/// `relay.ack`: claimed reports the central database has committed.
public enum RelayAck: RPCMethodSpec {
    public static let name = "relay.ack"
    public static let visibility = MethodVisibility.relayGroup

    /// A report stored centrally, at the version stored.
    public struct Delivered: Sendable, Equatable {
        public let reportId: String
        public let version: Int

        public init(reportId: String, version: Int) {
            self.reportId = reportId
            self.version = version
        }
    }

    public struct Params: RPCParamsCoding, Equatable {
        /// The reports stored centrally, each at the version stored.
        public var reports: [Delivered]?
        /// The reports stored centrally, each at the version its claim handed out: what a relay
        /// of protocol revision 3 sends.
        public var reportIds: [String]?

        public init(reports: [Delivered]) {
            self.reports = reports
            self.reportIds = nil
        }

        public init(reportIds: [String]) {
            self.reports = nil
            self.reportIds = reportIds
        }

        /// Whatever the daemon's limits are now: the ids may have been claimed before a reload
        /// lowered them.
        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            reports = try p.optionalVersions("reports", count: RelayClaim.maxReportsRange, id: "reportId", version: "version")?
                .map { Delivered(reportId: $0.id, version: $0.version) }
            reportIds = reports == nil ? try p.requiredStrings("reportIds", count: RelayClaim.maxReportsRange) : nil
            try p.finish()
        }

        public var json: JSONObject {
            if let reports {
                return ["reports": .array(reports.map { ["reportId": .string($0.reportId), "version": .int($0.version)] })]
            }
            return ["reportIds": .array((reportIds ?? []).map(JSONValue.string))]
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let delivered: Int
        public let alreadyDelivered: Int

        public init(delivered: Int, alreadyDelivered: Int) {
            self.delivered = delivered
            self.alreadyDelivered = alreadyDelivered
        }

        public var json: JSONValue {
            ["delivered": .int(delivered), "alreadyDelivered": .int(alreadyDelivered)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(delivered: try wire.int("delivered"), alreadyDelivered: try wire.int("alreadyDelivered"))
        }
    }

    public static let contract = MethodContract(
        name, "Marks claimed reports delivered once the central database has them (relay group only)",
        params: [.init("reports", .array(.object(["reportId": .string(), "version": .integer(1...Int.max)]), count: RelayClaim.maxReportsRange),
                       "The reports stored centrally, each at the version stored"),
                 .init("reportIds", .array(.string(), count: RelayClaim.maxReportsRange),
                       "Instead of reports (protocol revision 3): the reports stored centrally, at the version each claim handed out")],
        result: "acknowledged", .object(["delivered": .integer(0...RelayClaim.maxReportsRange.upperBound),
                                         "alreadyDelivered": .integer(0...RelayClaim.maxReportsRange.upperBound)]),
        errors: [.reportNotFound, .storageFailed],
        example: ("one report", Params(reports: [Delivered(reportId: ProtocolExamples.reportID, version: 1)]).json,
                  Result(delivered: 1, alreadyDelivered: 0).json))
}

/// `relay.status`: the daemon's delivery counts.
public enum RelayStatus: RPCMethodSpec {
    public static let name = "relay.status"
    public static let visibility = MethodVisibility.relayGroup
    public typealias Params = NoParams

    public struct Result: RPCResultCoding, Equatable {
        public let pending: Int
        /// Under a claim now, not yet acknowledged.
        public let claimed: Int
        public let delivered: Int
        /// ISO 8601 UTC; nil before the first delivery.
        public let lastDeliveredAt: String?

        public init(pending: Int, claimed: Int, delivered: Int, lastDeliveredAt: String?) {
            self.pending = pending
            self.claimed = claimed
            self.delivered = delivered
            self.lastDeliveredAt = lastDeliveredAt
        }

        public var json: JSONValue {
            ["pending": .int(pending), "claimed": .int(claimed), "delivered": .int(delivered), "lastDeliveredAt": .optional(lastDeliveredAt)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(pending: try wire.int("pending"), claimed: try wire.int("claimed"), delivered: try wire.int("delivered"),
                      lastDeliveredAt: try wire.optionalString("lastDeliveredAt"))
        }
    }

    public static let contract = MethodContract(
        name, "Pending, claimed and delivered counts (relay group only)",
        result: "status", .object(["pending": .integer(0...Int.max), "claimed": .integer(0...Int.max),
                                   "delivered": .integer(0...Int.max), "lastDeliveredAt": .nullable(.string())]),
        errors: [.storageFailed],
        example: ("all delivered", [:], Result(pending: 0, claimed: 0, delivered: 1, lastDeliveredAt: ProtocolExamples.deliveredAt).json))
}

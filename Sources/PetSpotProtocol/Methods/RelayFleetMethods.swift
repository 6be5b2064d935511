import PetSpotJSON

// The fleet's list coming down (REPORTS.md, "The animal list": every box lists the fleet's
// missing pets): petspot-relay reads the other boxes' reports from the central database and
// hands them to its daemon with these two methods. Written by the daemon and read by the relay
// from these types alone. Member order is the wire's.

/// `relay.fleet`: where this box's copy of the fleet's list stands.
public enum RelayFleet: RPCMethodSpec {
    public static let name = "relay.fleet"
    public static let visibility = MethodVisibility.relayGroup
    public typealias Params = NoParams

    public struct Result: RPCResultCoding, Equatable {
        /// The central feed position this box's copy is complete up to; 0: nothing yet.
        public let cursor: Int
        /// Other boxes' reports the box holds now.
        public let reports: Int
        /// `board.maxFleetReports`: past it the farthest go first, then the oldest.
        public let maxReports: Int
        /// The box's own position, which the relay's `boardRadiusKm` is measured from; nil when
        /// it has none to give (then the relay brings every box's reports).
        public let position: AnimalPosition?
        /// The longest request line the daemon takes (`limits.maxLineBytes`): what a
        /// `relay.fleetPut` must fit in.
        public let maxLineBytes: Int
        /// The largest photo the daemon takes (`limits.maxPhotoBytes`): a larger one would be
        /// refused, so it does not come down (its report does, without it).
        public let maxPhotoBytes: Int

        public init(cursor: Int, reports: Int, maxReports: Int, position: AnimalPosition?, maxLineBytes: Int, maxPhotoBytes: Int) {
            self.cursor = cursor
            self.reports = reports
            self.maxReports = maxReports
            self.position = position
            self.maxLineBytes = maxLineBytes
            self.maxPhotoBytes = maxPhotoBytes
        }

        public var json: JSONValue {
            ["cursor": .int(cursor), "reports": .int(reports), "maxReports": .int(maxReports),
             "position": position?.json ?? .null, "maxLineBytes": .int(maxLineBytes), "maxPhotoBytes": .int(maxPhotoBytes)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(cursor: try wire.int("cursor"), reports: try wire.int("reports"), maxReports: try wire.int("maxReports"),
                      position: try wire.optionalObject("position").map { (p) throws(FlowViewError) in try AnimalPosition(p) },
                      maxLineBytes: try wire.int("maxLineBytes"), maxPhotoBytes: try wire.int("maxPhotoBytes"))
        }
    }

    public static let contract = MethodContract(
        name, "Where this box's copy of the other boxes' reports stands: the central feed position it is complete up to, and the box's position (relay group only)",
        result: "fleet", .object([
            "cursor": .integer(0...Int.max),
            "reports": .integer(0...Int.max),
            "maxReports": .integer(0...Int.max),
            "position": .nullable(AnimalPosition.schema),
            "maxLineBytes": .integer(1...Int.max),
            "maxPhotoBytes": .integer(1...Int.max),
        ]),
        errors: [.storageFailed],
        example: ("a box that has the fleet up to position 42", [:], Result(
            cursor: 42, reports: 1, maxReports: 100_000,
            position: AnimalPosition(latitude: ProtocolExamples.latitude, longitude: ProtocolExamples.longitude),
            maxLineBytes: 16_777_216, maxPhotoBytes: 10_485_760).json))
}

/// `relay.fleetPut`: other boxes' reports as the central database has them, up to a feed
/// position; each either listed (a `missing` report with its values) or gone.
public enum RelayFleetPut: RPCMethodSpec {
    public static let name = "relay.fleetPut"
    public static let visibility = MethodVisibility.relayGroup
    /// The most reports one call brings.
    public static let maxReportsRange = 0...10_000

    public enum Status: String, Sendable, CaseIterable {
        case missing, found, withdrawn, expired
    }

    public struct Photo: Sendable, Equatable {
        public let mediaType: String
        /// The bytes in base64, as they travel.
        public let base64: String

        public init(mediaType: String, base64: String) {
            self.mediaType = mediaType
            self.base64 = base64
        }
    }

    /// One report of another box, at one version.
    public struct Item: Sendable, Equatable {
        public let reportId: String
        /// The `box.name` of the box it was filed at.
        public let box: String
        public let status: Status
        public let version: Int
        /// ISO 8601 UTC, as the report says.
        public let submittedAt: String
        public let updatedAt: String
        /// The report's values when it is to be listed here (`missing`, not erased, within the
        /// relay's radius); nil: it leaves this box's list (and disk).
        public let values: JSONObject?
        public let photo: Photo?

        public init(reportId: String, box: String, status: Status, version: Int, submittedAt: String, updatedAt: String,
                    values: JSONObject?, photo: Photo?) {
            self.reportId = reportId
            self.box = box
            self.status = status
            self.version = version
            self.submittedAt = submittedAt
            self.updatedAt = updatedAt
            self.values = values
            self.photo = photo
        }

        /// To be listed: missing and with values.
        public var isListed: Bool { status == .missing && values != nil }

        public var json: JSONValue {
            .object(JSONObject(presentMembers: [
                "reportId": .string(reportId), "box": .string(box), "status": .string(status.rawValue), "version": .int(version),
                "submittedAt": .string(submittedAt), "updatedAt": .string(updatedAt), "values": values.map(JSONValue.object),
                "photo": photo.map { ["mediaType": .string($0.mediaType), "data": .string($0.base64)] },
            ]))
        }

        /// Its length on the wire, photo and all, for cutting calls to the daemon's line limit.
        public var wireBytes: Int { JSONWriter.string(json).utf8.count }

        init(_ p: inout RPCParams) throws(RPCError) {
            reportId = try p.requiredString("reportId")
            box = try p.requiredString("box")
            guard let status = try p.optionalChoice("status", as: Status.self) else {
                throw RPCError(.invalidParams, "missing parameter \"status\"", parameter: "status")
            }
            self.status = status
            guard let version = try p.optionalInt("version", in: 1...Int.max) else {
                throw RPCError(.invalidParams, "missing parameter \"version\"", parameter: "version")
            }
            self.version = version
            submittedAt = try p.requiredString("submittedAt")
            updatedAt = try p.requiredString("updatedAt")
            values = try p.optionalObject("values")
            if let photo = try p.optionalObject("photo") {
                var inner = RPCParams(photo)
                do throws(RPCError) {
                    self.photo = Photo(mediaType: try inner.requiredString("mediaType"), base64: try inner.requiredString("data"))
                    try inner.finish()
                } catch {
                    throw RPCError(error.kind, "photo.\(error.message)", parameter: error.parameter.map { "photo.\($0)" })
                }
            } else {
                photo = nil
            }
        }
    }

    public struct Params: RPCParamsCoding, Equatable {
        /// The feed position the box's copy is complete up to once these are stored.
        public var cursor: Int
        public var reports: [Item]
        /// The copy is dropped whole before these are stored: the feed starts again (the
        /// central database went back to an earlier state).
        public var restart: Bool

        public init(cursor: Int, reports: [Item], restart: Bool = false) {
            self.cursor = cursor
            self.reports = reports
            self.restart = restart
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            guard let cursor = try p.optionalInt("cursor", in: 0...Int.max) else {
                throw RPCError(.invalidParams, "missing parameter \"cursor\"", parameter: "cursor")
            }
            self.cursor = cursor
            reports = try p.requiredObjects("reports", count: RelayFleetPut.maxReportsRange) { (item) throws(RPCError) in try Item(&item) }
            restart = try p.optionalBool("restart") ?? false
            try p.finish()
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["cursor": .int(cursor), "reports": .array(reports.map(\.json)), "restart": restart ? .bool(true) : nil])
        }
    }

    /// A report the daemon would not list: its values break a rule of the flow here.
    public struct Refusal: Sendable, Equatable, Error {
        public let reportId: String
        public let box: String
        public let reason: String

        public init(reportId: String, box: String, reason: String) {
            self.reportId = reportId
            self.box = box
            self.reason = reason
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let cursor: Int
        /// Reports now listed at the version brought (new, or newer than the copy held).
        public let listed: Int
        /// Copies that left the box: gone centrally, refused, or past `board.maxFleetReports`.
        public let removed: Int
        public let refused: [Refusal]

        public init(cursor: Int, listed: Int, removed: Int, refused: [Refusal]) {
            self.cursor = cursor
            self.listed = listed
            self.removed = removed
            self.refused = refused
        }

        public var json: JSONValue {
            ["cursor": .int(cursor), "listed": .int(listed), "removed": .int(removed),
             "refused": .array(refused.map { ["reportId": .string($0.reportId), "box": .string($0.box), "reason": .string($0.reason)] })]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(cursor: try wire.int("cursor"), listed: try wire.int("listed"), removed: try wire.int("removed"),
                      refused: try wire.objects("refused") { (r) throws(FlowViewError) in
                          Refusal(reportId: try r.string("reportId"), box: try r.string("box"), reason: try r.string("reason"))
                      })
        }
    }

    static let itemSchema = JSONSchema.object([
        "reportId": .string(),
        "box": .string(),
        "status": .oneOf(Status.allCases.map(\.rawValue)),
        "version": .integer(1...Int.max),
        "submittedAt": .string("ISO 8601 UTC"),
        "updatedAt": .string("ISO 8601 UTC"),
        "values": .ref("FlowValues"),
        "photo": .object(["mediaType": .string(), "data": .string("base64")]),
    ], optional: ["values", "photo"])

    public static let contract = MethodContract(
        name, "Stores other boxes' reports from the central database up to a feed position: a missing one with values is listed (when its values pass the flow's rules here), any other leaves this box (relay group only)",
        params: [.init("cursor", .integer(0...Int.max), required: true, "The central feed position the box's copy is complete up to with these"),
                 .init("reports", .array(itemSchema, count: maxReportsRange), required: true, "The reports, in feed order; a newer version of one replaces an older"),
                 .init("restart", .boolean, "true: every copy is dropped first, the feed starting again from the cursor (the central database went back to an earlier state)")],
        result: "stored", .object([
            "cursor": .integer(0...Int.max),
            "listed": .integer(0...maxReportsRange.upperBound),
            "removed": .integer(0...Int.max),
            "refused": .array(.object(["reportId": .string(), "box": .string(), "reason": .string()])),
        ]),
        errors: [.storageFailed],
        example: ("a report of another box, and one found there", Params(cursor: 44, reports: [
            Item(reportId: ProtocolExamples.fleetReportID, box: ProtocolExamples.otherBox, status: .missing, version: 1,
                 submittedAt: ProtocolExamples.submittedAt, updatedAt: ProtocolExamples.submittedAt,
                 values: ProtocolExamples.values(.contacted), photo: Photo(mediaType: "image/png", base64: ProtocolExamples.photoBase64)),
            Item(reportId: ProtocolExamples.foundFleetReportID, box: ProtocolExamples.otherBox, status: .found, version: 2,
                 submittedAt: ProtocolExamples.submittedAt, updatedAt: ProtocolExamples.deliveredAt, values: nil, photo: nil),
        ]).json, Result(cursor: 44, listed: 1, removed: 1, refused: []).json))
}

import PetSpotJSON

// reports.*: the caller's stored reports.

/// `reports.list`: the caller's reports, newest first, a page at a time.
public enum ReportsList: RPCMethodSpec {
    public static let name = "reports.list"

    public struct Params: RPCParamsCoding, Equatable {
        /// Reports on this page, at most the daemon's `limits.maxReportsPage`.
        public var limit: Int?
        /// The `cursor` of the page before.
        public var cursor: String?

        public init(limit: Int? = nil, cursor: String? = nil) {
            self.limit = limit
            self.cursor = cursor
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            limit = try p.optionalInt("limit", in: 1...bounds.maxReportsPage)
            cursor = try p.optionalString("cursor")
            try p.finish()
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["limit": limit.map { .int($0) }, "cursor": cursor.map(JSONValue.string)])
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let reports: [ReportView]
        /// Where the next page starts; nil at the end.
        public let cursor: String?

        public init(reports: [ReportView], cursor: String?) {
            self.reports = reports
            self.cursor = cursor
        }

        public var json: JSONValue { ["reports": .array(reports.map(\.json)), "cursor": .optional(cursor)] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(reports: try wire.objects("reports") { (r) throws(FlowViewError) in try ReportView(r) },
                      cursor: try wire.optionalString("cursor"))
        }
    }

    public static let contract = MethodContract(
        name, "The caller's reports, newest first, a page at a time",
        params: [.init("limit", .integer(1...ParamBounds.widest.maxReportsPage, "At most the daemon's limits.maxReportsPage"), "Reports on this page; 20 when left out"),
                 .init("cursor", .string(), "The cursor of the page before")],
        result: "page", .object(["reports": .array(.ref("Report")), "cursor": .nullable(.string("null at the end"))]),
        errors: [.storageFailed],
        example: ("the first page, the only one", Params(limit: 10).json,
                  Result(reports: [ProtocolExamples.report(.pending)], cursor: nil).json))
}

/// The params of a method that takes only a report's id.
public struct ReportIDParams: RPCParamsCoding, Equatable {
    public var reportId: String

    public init(reportId: String) {
        self.reportId = reportId
    }

    public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
        reportId = try p.requiredString("reportId")
        try p.finish()
    }

    public var json: JSONObject { ["reportId": .string(reportId)] }

    static let contract = MethodContract.Param("reportId", .string(), required: true, "The report's id")
}

/// The answer of a method about one report: the report as it is now.
public struct ReportAnswer: RPCResultCoding, Equatable {
    public let report: ReportView

    public init(report: ReportView) {
        self.report = report
    }

    public var json: JSONValue { ["report": report.json] }

    public init(json: JSONValue) throws(FlowViewError) {
        report = try ReportView(try WireObject(json, at: "result").object("report"))
    }

    static let schema = JSONSchema.object(["report": .ref("Report")])
}

/// `reports.get`: one of the caller's reports.
public enum ReportsGet: RPCMethodSpec {
    public static let name = "reports.get"
    public typealias Params = ReportIDParams
    public typealias Result = ReportAnswer

    public static let contract = MethodContract(
        name, "One of the caller's reports", params: [ReportIDParams.contract],
        result: "report", ReportAnswer.schema, errors: [.reportNotFound, .storageFailed],
        example: ("a report delivered", Params(reportId: ProtocolExamples.reportID).json,
                  Result(report: ProtocolExamples.report(.delivered(at: ProtocolExamples.deliveredAt))).json))
}

/// `reports.close`: the pet is home (`found`), or the owner takes the report back (`withdrawn`).
public enum ReportsClose: RPCMethodSpec {
    public static let name = "reports.close"
    public typealias Result = ReportAnswer

    /// How a report ends.
    public enum Outcome: String, Sendable, CaseIterable {
        case found, withdrawn
    }

    public struct Params: RPCParamsCoding, Equatable {
        public var reportId: String
        public var outcome: Outcome

        public init(reportId: String, outcome: Outcome) {
            self.reportId = reportId
            self.outcome = outcome
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            reportId = try p.requiredString("reportId")
            guard let outcome = try p.optionalChoice("outcome", as: Outcome.self) else {
                throw RPCError(.invalidParams, "outcome is required: \"found\" or \"withdrawn\"", parameter: "outcome")
            }
            self.outcome = outcome
            try p.finish()
        }

        public var json: JSONObject { ["reportId": .string(reportId), "outcome": .string(outcome.rawValue)] }
    }

    public static let contract = MethodContract(
        name, "Ends a missing or expired report: found, or withdrawn; the same call again answers the same report",
        params: [ReportIDParams.contract, .init("outcome", .oneOf(Outcome.allCases.map(\.rawValue)), required: true, "How it ends")],
        result: "report", ReportAnswer.schema, errors: [.reportNotFound, .reportClosed, .reportErased, .storageFailed],
        example: ("the pet is home", Params(reportId: ProtocolExamples.reportID, outcome: .found).json,
                  Result(report: ProtocolExamples.report(.pending, status: .found, version: 4, values: ProtocolExamples.amended)).json))
}

/// `reports.renew`: a missing or expired report is missing again, for another
/// `reports.expireAfterDays`.
public enum ReportsRenew: RPCMethodSpec {
    public static let name = "reports.renew"
    public typealias Params = ReportIDParams
    public typealias Result = ReportAnswer

    public static let contract = MethodContract(
        name, "Keeps a missing or expired report missing for another reports.expireAfterDays from now",
        params: [ReportIDParams.contract],
        result: "report", ReportAnswer.schema, errors: [.reportNotFound, .reportClosed, .reportErased, .storageFailed],
        example: ("still missing", Params(reportId: ProtocolExamples.reportID).json,
                  Result(report: ProtocolExamples.report(.pending, version: 3, renewed: true, values: ProtocolExamples.amended)).json))
}

/// `reports.amend`: fields of steps 1–4 of a missing or expired report, changed by the flow's
/// own rules.
public enum ReportsAmend: RPCMethodSpec {
    public static let name = "reports.amend"
    public typealias Result = ReportAnswer

    public struct Params: RPCParamsCoding, Equatable {
        public var reportId: String
        /// Field name → value, as `flow.update` takes them, for fields of any step; null clears
        /// an optional field.
        public var values: JSONObject

        public init(reportId: String, values: JSONObject) {
            self.reportId = reportId
            self.values = values
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            reportId = try p.requiredString("reportId")
            values = try p.requiredObject("values")
            try p.finish()
        }

        public var json: JSONObject { ["reportId": .string(reportId), "values": .object(values)] }
    }

    public static let contract = MethodContract(
        name, "Changes fields of a missing or expired report with the flow's own rules; a refused value changes nothing and names the field",
        params: [ReportIDParams.contract,
                 .init("values", .map(of: .any("A field's value: a string, a number, a photo {data, filename?} or null")),
                       required: true, "Field name → value, for fields of steps 1–4")],
        result: "report", ReportAnswer.schema, errors: [.reportNotFound, .reportClosed, .reportErased, .limitExceeded, .storageFailed],
        example: ("a new phone number", Params(reportId: ProtocolExamples.reportID, values: ["contactPhone": .string(ProtocolExamples.amendedPhoneTyped)]).json,
                  Result(report: ProtocolExamples.report(.pending, version: 2, values: ProtocolExamples.amended)).json))
}

/// `reports.erase`: the report's personal data gone for good; it keeps its id, times, status
/// and delivery, and of its values only the species and the date.
public enum ReportsErase: RPCMethodSpec {
    public static let name = "reports.erase"
    public typealias Params = ReportIDParams
    public typealias Result = ReportAnswer

    public static let contract = MethodContract(
        name, "Erases the report's personal data for good (a missing report becomes withdrawn); again, the same report",
        params: [ReportIDParams.contract],
        result: "report", ReportAnswer.schema, errors: [.reportNotFound, .storageFailed],
        example: ("erased", Params(reportId: ProtocolExamples.reportID).json,
                  Result(report: ProtocolExamples.erasedReport).json))
}

/// A photo's bytes: what `reports.photo` and `animals.photo` answer.
public struct PhotoData: RPCResultCoding, Equatable {
    public let mediaType: String
    /// Base64.
    public let data: String

    public init(mediaType: String, data: String) {
        self.mediaType = mediaType
        self.data = data
    }

    public var json: JSONValue { ["mediaType": .string(mediaType), "data": .string(data)] }

    public init(json: JSONValue) throws(FlowViewError) {
        let wire = try WireObject(json, at: "result")
        self.init(mediaType: try wire.string("mediaType"), data: try wire.string("data"))
    }

    static let schema = JSONSchema.object(["mediaType": .string(), "data": .string("base64")])
}

/// `reports.photo`: the photo of one of the caller's reports, as it was sent (for a poster).
public enum ReportsPhoto: RPCMethodSpec {
    public static let name = "reports.photo"
    public typealias Params = ReportIDParams
    public typealias Result = PhotoData

    public static let contract = MethodContract(
        name, "The photo of one of the caller's reports, as it was sent", params: [ReportIDParams.contract],
        result: "photo", PhotoData.schema, errors: [.reportNotFound, .photoNotFound, .storageFailed],
        example: ("a PNG", Params(reportId: ProtocolExamples.reportID).json, Result(mediaType: "image/png", data: ProtocolExamples.photoBase64).json))
}

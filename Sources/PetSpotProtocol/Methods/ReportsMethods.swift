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

/// `reports.get`: one of the caller's reports.
public enum ReportsGet: RPCMethodSpec {
    public static let name = "reports.get"

    public struct Params: RPCParamsCoding, Equatable {
        public var reportId: String

        public init(reportId: String) {
            self.reportId = reportId
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            reportId = try p.requiredString("reportId")
            try p.finish()
        }

        public var json: JSONObject { ["reportId": .string(reportId)] }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let report: ReportView

        public init(report: ReportView) {
            self.report = report
        }

        public var json: JSONValue { ["report": report.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            report = try ReportView(try WireObject(json, at: "result").object("report"))
        }
    }

    public static let contract = MethodContract(
        name, "One of the caller's reports", params: [.init("reportId", .string(), required: true, "The report's id")],
        result: "report", .object(["report": .ref("Report")]), errors: [.reportNotFound, .storageFailed],
        example: ("a report delivered", Params(reportId: ProtocolExamples.reportID).json,
                  Result(report: ProtocolExamples.report(.delivered(at: ProtocolExamples.deliveredAt))).json))
}

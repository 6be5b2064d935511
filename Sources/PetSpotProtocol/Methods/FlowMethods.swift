import PetSpotJSON
import PetSpotViews

// flow.*: one report being made, step by step. Every answer carries the flow as it is after
// the call.

/// The params of a flow method that takes only the flow's id.
public struct FlowIDParams: RPCParamsCoding, Equatable {
    public var flowId: String

    public init(flowId: String) {
        self.flowId = flowId
    }

    public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
        flowId = try p.requiredString("flowId")
        try p.finish()
    }

    public var json: JSONObject { ["flowId": .string(flowId)] }
}

/// The answer of a flow method: the flow as it is after the call, and whatever the method adds.
public protocol FlowResult: RPCResultCoding {
    var flow: FlowView { get }
}

/// The params of a method that takes only a language: `flow.start`, `species.list`.
public struct LocaleParams: RPCParamsCoding, Equatable {
    /// `en` when left out.
    public var locale: FlowLocale?

    public init(locale: FlowLocale? = nil) {
        self.locale = locale
    }

    public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
        locale = try p.optionalChoice("locale", as: FlowLocale.self)
        try p.finish()
    }

    public var json: JSONObject {
        JSONObject(presentMembers: ["locale": locale.map { .string($0.rawValue) }])
    }
}

/// `{flow}`: the answer of most flow methods.
public struct FlowAnswer: FlowResult, Equatable {
    public let flow: FlowView

    public init(flow: FlowView) {
        self.flow = flow
    }

    public var json: JSONValue { ["flow": flow.json] }

    public init(json: JSONValue) throws(FlowViewError) {
        flow = try FlowView(try WireObject(json, at: "result").object("flow"))
    }
}

/// `flow.start`: a new report on step chip.
public enum FlowStart: RPCMethodSpec {
    public static let name = "flow.start"
    public typealias Result = FlowAnswer

    public typealias Params = LocaleParams

    public static let contract = MethodContract(
        name, "Starts a report on step chip", params: [ProtocolContract.locale],
        result: "flow", ProtocolContract.flowAnswer, errors: [.limitExceeded],
        example: ("a new report", LocaleParams(locale: .en).json,
                  Result(flow: ProtocolExamples.active("chip", ProtocolExamples.chipScreen(.started), .started)).json))
}

/// `flow.get`: the flow as it is.
public enum FlowGet: RPCMethodSpec {
    public static let name = "flow.get"
    public typealias Params = FlowIDParams
    public typealias Result = FlowAnswer

    public static let contract = MethodContract(
        name, "The flow as it is: its screen and values", params: [ProtocolContract.flowID],
        result: "flow", ProtocolContract.flowAnswer, errors: [.flowNotFound],
        example: ("on the summary", Params(flowId: ProtocolExamples.flowID).json,
                  Result(flow: ProtocolExamples.active("summary", ProtocolExamples.summaryScreen, .contacted)).json))
}

/// `flow.update`: sets fields of the current step.
public enum FlowUpdate: RPCMethodSpec {
    public static let name = "flow.update"
    public typealias Result = FlowAnswer

    public struct Params: RPCParamsCoding, Equatable {
        public var flowId: String
        /// Field name → value: a string, a number, a photo `{data, filename?}` or null. Each
        /// field reads its own; the flow names what it refuses.
        public var values: JSONObject

        public init(flowId: String, values: JSONObject) {
            self.flowId = flowId
            self.values = values
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            flowId = try p.requiredString("flowId")
            values = try p.requiredObject("values")
            try p.finish()
        }

        public var json: JSONObject { ["flowId": .string(flowId), "values": .object(values)] }
    }

    public static let contract = MethodContract(
        name, "Sets fields of the current step; null or a blank string clears one, a refused value empties it and says why",
        params: [ProtocolContract.flowID, .init("values", .map(of: .any("A field's value: a string, a number, a photo {data, filename?} or null")),
                                                required: true, "Field name → value, for fields of the current step")],
        result: "flow", ProtocolContract.flowAnswer, errors: ProtocolContract.flowErrors + [.limitExceeded],
        example: ("a chip number", Params(flowId: ProtocolExamples.flowID, values: ["chipNumber": .string(ProtocolExamples.chipNumberTyped)]).json,
                  Result(flow: ProtocolExamples.active("chip", ProtocolExamples.chipScreen(.chip), .chip)).json))
}

/// A photo as `flow.update` takes it under `values.photo`: the daemon decides its type by its
/// bytes, so a client only reads and encodes.
public struct PhotoUpload: Sendable, Equatable {
    /// The bytes in base64.
    public let data: String
    /// The file's name, kept as a hint and shown back in `display`.
    public let filename: String?

    public init(data: String, filename: String?) {
        self.data = data
        self.filename = filename
    }

    /// `{data, filename?}`.
    public var json: JSONValue {
        .object(JSONObject(presentMembers: ["data": .string(data), "filename": filename.map(JSONValue.string)]))
    }
}

/// `flow.continue`: the next step, if the current one is complete.
public enum FlowContinue: RPCMethodSpec {
    public static let name = "flow.continue"
    public typealias Params = FlowIDParams

    public struct Result: FlowResult, Equatable {
        public let flow: FlowView
        /// False: the flow stayed where it was, and its fields say why.
        public let accepted: Bool

        public init(flow: FlowView, accepted: Bool) {
            self.flow = flow
            self.accepted = accepted
        }

        public var json: JSONValue { ["flow": flow.json, "accepted": .bool(accepted)] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(flow: try FlowView(try wire.object("flow")), accepted: try wire.bool("accepted"))
        }
    }

    public static let contract = MethodContract(
        name, "Goes to the next step if the current one is complete; accepted false leaves it as it was, with field errors",
        params: [ProtocolContract.flowID], result: "continued", .object(["flow": .ref("Flow"), "accepted": .boolean]),
        errors: ProtocolContract.flowErrors,
        example: ("to the photo", Params(flowId: ProtocolExamples.flowID).json,
                  Result(flow: ProtocolExamples.active("photo", ProtocolExamples.photoScreen, .chip), accepted: true).json))
}

/// `flow.back`: the previous step; from chip, the flow is cancelled.
public enum FlowBack: RPCMethodSpec {
    public static let name = "flow.back"
    public typealias Params = FlowIDParams
    public typealias Result = FlowAnswer

    public static let contract = MethodContract(
        name, "Goes to the previous step; from chip the flow is cancelled", params: [ProtocolContract.flowID],
        result: "flow", ProtocolContract.flowAnswer, errors: ProtocolContract.flowErrors,
        example: ("from the photo back to the chip number", Params(flowId: ProtocolExamples.flowID).json,
                  Result(flow: ProtocolExamples.active("chip", ProtocolExamples.chipScreen(.chip), .chip)).json))
}

/// `flow.cancel`: the flow ends unfiled.
public enum FlowCancel: RPCMethodSpec {
    public static let name = "flow.cancel"
    public typealias Params = FlowIDParams
    public typealias Result = FlowAnswer

    public static let contract = MethodContract(
        name, "Cancels the flow; its id is forgotten", params: [ProtocolContract.flowID],
        result: "flow", ProtocolContract.flowAnswer, errors: ProtocolContract.flowErrors,
        example: ("cancelled", Params(flowId: ProtocolExamples.cancelledFlowID).json, Result(flow: ProtocolExamples.cancelled).json))
}

/// `flow.requestLocation`: the coordinates from the location service.
public enum FlowRequestLocation: RPCMethodSpec {
    public static let name = "flow.requestLocation"

    public struct Params: RPCParamsCoding, Equatable {
        public var flowId: String
        /// At most the daemon's `location.timeoutMs`.
        public var timeoutMs: Int?

        public init(flowId: String, timeoutMs: Int? = nil) {
            self.flowId = flowId
            self.timeoutMs = timeoutMs
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            flowId = try p.requiredString("flowId")
            timeoutMs = try p.optionalInt("timeoutMs", in: 1...bounds.locationTimeoutMs)
            try p.finish()
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["flowId": .string(flowId), "timeoutMs": timeoutMs.map { .int($0) }])
        }
    }

    public struct Result: FlowResult, Equatable {
        public let flow: FlowView
        public let location: LocationView

        public init(flow: FlowView, location: LocationView) {
            self.flow = flow
            self.location = location
        }

        public var json: JSONValue { ["flow": flow.json, "location": location.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(flow: try FlowView(try wire.object("flow")), location: try LocationView(try wire.object("location")))
        }
    }

    public static let contract = MethodContract(
        name, "Fills the coordinates from the location service (step description only)",
        params: [ProtocolContract.flowID, ProtocolContract.timeoutMs],
        result: "located", .object(["flow": .ref("Flow"), "location": .ref("Location")]), errors: ProtocolContract.flowErrors,
        example: ("the GPS position", Params(flowId: ProtocolExamples.flowID, timeoutMs: 5000).json,
                  Result(flow: ProtocolExamples.active("description", ProtocolExamples.descriptionScreen(.located), .located),
                         location: ProtocolExamples.fix).json))
}

/// `flow.dismissAlert`: closes the alert on the screen.
public enum FlowDismissAlert: RPCMethodSpec {
    public static let name = "flow.dismissAlert"
    public typealias Params = FlowIDParams
    public typealias Result = FlowAnswer

    public static let contract = MethodContract(
        name, "Closes the alert on the screen", params: [ProtocolContract.flowID],
        result: "flow", ProtocolContract.flowAnswer, errors: ProtocolContract.flowErrors,
        example: ("the location refused, its alert closed", Params(flowId: ProtocolExamples.flowID).json,
                  Result(flow: ProtocolExamples.active("description", ProtocolExamples.descriptionScreen(.described), .described)).json))
}

/// `flow.submit`: stores the report; again, the same report.
public enum FlowSubmit: RPCMethodSpec {
    public static let name = "flow.submit"
    public typealias Params = FlowIDParams

    public struct Result: FlowResult, Equatable {
        public let flow: FlowView
        public let report: ReportView

        public init(flow: FlowView, report: ReportView) {
            self.flow = flow
            self.report = report
        }

        public var json: JSONValue { ["flow": flow.json, "report": report.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(flow: try FlowView(try wire.object("flow")), report: try ReportView(try wire.object("report")))
        }
    }

    public static let contract = MethodContract(
        name, "Stores the report (step summary only); again, the same report", params: [ProtocolContract.flowID],
        result: "submitted", .object(["flow": .ref("Flow"), "report": .ref("Report")]),
        errors: ProtocolContract.flowErrors + [.storageFailed, .limitExceeded],
        example: ("filed", Params(flowId: ProtocolExamples.flowID).json,
                  Result(flow: ProtocolExamples.completed, report: ProtocolExamples.report(.pending)).json))
}

import PetSpotJSON
import PetSpotViews

// The watches: each answers with a subscription id (and the state now, where there is one),
// then the daemon sends notifications carrying that id until `unwatch`, the connection's end,
// or, for a flow, the flow's end.

/// Reads and writes the `subscription` member all watch answers and notifications carry.
public enum SubscriptionID {
    public static let param = MethodContract.Param("subscription", .string(), required: true, "The id a watch answered with")
    static let schema = JSONSchema.string("The id of the watch on this connection")
}

/// `location.watch`: where the box is now, then `location.changed` whenever that changes.
public enum LocationWatch: RPCMethodSpec {
    public static let name = "location.watch"
    public typealias Params = LocaleParams

    public struct Result: RPCResultCoding, Equatable {
        public let subscription: String
        /// What `location.current` says now, without waiting for a fix.
        public let location: LocationView

        public init(subscription: String, location: LocationView) {
            self.subscription = subscription
            self.location = location
        }

        public var json: JSONValue { ["subscription": .string(subscription), "location": location.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(subscription: try wire.string("subscription"), location: try LocationView(try wire.object("location")))
        }
    }

    public static let contract = MethodContract(
        name, "Where the box is now, for this caller, then location.changed whenever that answer changes",
        params: [ProtocolContract.locale],
        result: "watch", .object(["subscription": SubscriptionID.schema, "location": .ref("Location")]),
        errors: [.limitExceeded],
        example: ("a fix", [:], Result(subscription: ProtocolExamples.subscription, location: ProtocolExamples.fix).json))
}

/// `flow.watch`: the caller's flow now, then `flow.changed` after every change to it.
public enum FlowWatch: RPCMethodSpec {
    public static let name = "flow.watch"
    public typealias Params = FlowIDParams

    public struct Result: FlowResult, Equatable {
        public let subscription: String
        public let flow: FlowView

        public init(subscription: String, flow: FlowView) {
            self.subscription = subscription
            self.flow = flow
        }

        public var json: JSONValue { ["subscription": .string(subscription), "flow": flow.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(subscription: try wire.string("subscription"), flow: try FlowView(try wire.object("flow")))
        }
    }

    public static let contract = MethodContract(
        name, "The caller's flow now, then flow.changed after every change to it from any connection, until it ends",
        params: [ProtocolContract.flowID],
        result: "watch", .object(["subscription": SubscriptionID.schema, "flow": .ref("Flow")]),
        errors: [.flowNotFound, .limitExceeded],
        example: ("on the contact step", Params(flowId: ProtocolExamples.flowID).json,
                  Result(subscription: ProtocolExamples.subscription,
                         flow: ProtocolExamples.active("contact", ProtocolExamples.contactScreen, .located)).json))
}

/// `reports.watch`: `reports.changed` for each of the caller's reports filed or delivered.
public enum ReportsWatch: RPCMethodSpec {
    public static let name = "reports.watch"
    public typealias Params = NoParams

    public struct Result: RPCResultCoding, Equatable {
        public let subscription: String

        public init(subscription: String) {
            self.subscription = subscription
        }

        public var json: JSONValue { ["subscription": .string(subscription)] }

        public init(json: JSONValue) throws(FlowViewError) {
            self.init(subscription: try WireObject(json, at: "result").string("subscription"))
        }
    }

    public static let contract = MethodContract(
        name, "reports.changed for each of the caller's reports filed or delivered from now on",
        result: "watch", .object(["subscription": SubscriptionID.schema]),
        errors: [.limitExceeded],
        example: ("watching", [:], Result(subscription: ProtocolExamples.subscription).json))
}

/// `relay.watch`: the undelivered count now, then `relay.pending` when reports become claimable.
public enum RelayWatch: RPCMethodSpec {
    public static let name = "relay.watch"
    public static let visibility = MethodVisibility.relayGroup
    public typealias Params = NoParams

    public struct Result: RPCResultCoding, Equatable {
        public let subscription: String
        /// Undelivered reports, claimed or not.
        public let pending: Int

        public init(subscription: String, pending: Int) {
            self.subscription = subscription
            self.pending = pending
        }

        public var json: JSONValue { ["subscription": .string(subscription), "pending": .int(pending)] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "result")
            self.init(subscription: try wire.string("subscription"), pending: try wire.int("pending"))
        }
    }

    public static let contract = MethodContract(
        name, "Undelivered reports now, then relay.pending when reports are filed (relay group only)",
        result: "watch", .object(["subscription": SubscriptionID.schema, "pending": .integer(0...Int.max)]),
        errors: [.limitExceeded, .storageFailed],
        example: ("nothing pending", [:], Result(subscription: ProtocolExamples.subscription, pending: 0).json))
}

/// `unwatch`: ends one of this connection's watches.
public enum Unwatch: RPCMethodSpec {
    public static let name = "unwatch"

    public struct Params: RPCParamsCoding, Equatable {
        public var subscription: String

        public init(subscription: String) {
            self.subscription = subscription
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            subscription = try p.requiredString("subscription")
            try p.finish()
        }

        public var json: JSONObject { ["subscription": .string(subscription)] }
    }

    public struct Result: RPCResultCoding, Equatable {
        public init() {}

        public var json: JSONValue { ["unwatched": true] }

        public init(json: JSONValue) throws(FlowViewError) {
            guard try WireObject(json, at: "result").bool("unwatched") else {
                throw FlowViewError(at: "result.unwatched", "must be true")
            }
        }
    }

    public static let contract = MethodContract(
        name, "Ends a watch of this connection; no notification of it follows the answer",
        params: [SubscriptionID.param],
        result: "unwatched", .object(["unwatched": .boolean]),
        example: ("a watch", Params(subscription: ProtocolExamples.subscription).json, Result().json))
}

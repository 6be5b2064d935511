import PetSpotJSON
import PetSpotViews

/// `location.changed`: the answer `location.watch` gave has changed (a new position after
/// rounding, the fix lost or stale, permission or provider state; never a new fix time alone).
public enum LocationChanged: RPCNotificationSpec {
    public static let notification = RPCNotification.locationChanged

    public struct Params: RPCNotificationParams, Equatable {
        public let subscription: String
        public let location: LocationView

        public init(subscription: String, location: LocationView) {
            self.subscription = subscription
            self.location = location
        }

        public var json: JSONObject { ["subscription": .string(subscription), "location": location.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "params")
            self.init(subscription: try wire.string("subscription"), location: try LocationView(try wire.object("location")))
        }
    }

    public static let contract = NotificationContract(
        notification, "Where the box is now, whenever that changes", watch: LocationWatch.self,
        params: [SubscriptionID.param, .init("location", .ref("Location"), required: true, "As location.current would answer now")],
        example: Params(subscription: ProtocolExamples.subscription, location: ProtocolExamples.fixLost).json)
}

/// `flow.changed`: the watched flow after a change from any connection of its owner; an ended
/// flow (completed, cancelled, expired) is the last one of its watch.
public enum FlowChanged: RPCNotificationSpec {
    public static let notification = RPCNotification.flowChanged

    public struct Params: RPCNotificationParams, Equatable {
        public let subscription: String
        public let flow: FlowView

        public init(subscription: String, flow: FlowView) {
            self.subscription = subscription
            self.flow = flow
        }

        /// The flow has ended, and the watch with it.
        public var isLast: Bool {
            if case .active = flow.state { return false }
            return true
        }

        public var json: JSONObject { ["subscription": .string(subscription), "flow": flow.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "params")
            self.init(subscription: try wire.string("subscription"), flow: try FlowView(try wire.object("flow")))
        }
    }

    public static let contract = NotificationContract(
        notification, "The watched flow after a change; an ended flow is the last notification of its watch", watch: FlowWatch.self,
        params: [SubscriptionID.param, .init("flow", .ref("Flow"), required: true, "As flow.get would answer now")],
        example: Params(subscription: ProtocolExamples.subscription, flow: ProtocolExamples.completed).json)
}

/// `reports.changed`: one of the caller's reports was filed or delivered; `overflow` when the
/// caller fell so far behind that some were left out (list again).
public enum ReportsChanged: RPCNotificationSpec {
    public static let notification = RPCNotification.reportsChanged

    public enum Change: String, Sendable, CaseIterable {
        case filed, delivered, updated, overflow
    }

    public struct Params: RPCNotificationParams, Equatable {
        public let subscription: String
        public let change: Change
        /// The report as `reports.list` gives it; nil with `overflow`.
        public let report: ReportView?

        public init(subscription: String, change: Change, report: ReportView?) {
            self.subscription = subscription
            self.change = change
            self.report = report
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["subscription": .string(subscription), "change": .string(change.rawValue), "report": report?.json])
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "params")
            let change = try wire.choice("change", as: Change.self)
            self.init(subscription: try wire.string("subscription"), change: change,
                      report: change == .overflow ? nil : try ReportView(try wire.object("report")))
        }
    }

    public static let contract = NotificationContract(
        notification, "One of the caller's reports was filed, delivered or changed (closed, renewed, amended, erased, expired); overflow: some were left out, list again", watch: ReportsWatch.self,
        params: [SubscriptionID.param, .init("change", .oneOf(Change.allCases.map(\.rawValue)), required: true, "What happened"),
                 .init("report", .ref("Report"), "As reports.list gives it; absent with overflow")],
        example: Params(subscription: ProtocolExamples.subscription, change: .filed, report: ProtocolExamples.report(.pending)).json)
}

/// `relay.pending`: reports became claimable; how many are undelivered now.
public enum RelayPending: RPCNotificationSpec {
    public static let notification = RPCNotification.relayPending

    public struct Params: RPCNotificationParams, Equatable {
        public let subscription: String
        public let pending: Int

        public init(subscription: String, pending: Int) {
            self.subscription = subscription
            self.pending = pending
        }

        public var json: JSONObject { ["subscription": .string(subscription), "pending": .int(pending)] }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "params")
            self.init(subscription: try wire.string("subscription"), pending: try wire.int("pending"))
        }
    }

    public static let contract = NotificationContract(
        notification, "Reports became claimable; undelivered reports now, claimed or not (relay group only)", watch: RelayWatch.self,
        params: [SubscriptionID.param, .init("pending", .integer(0...Int.max), required: true, "Undelivered reports")],
        example: Params(subscription: ProtocolExamples.subscription, pending: 1).json)
}

/// `watch.ended`: the daemon ended the watch on its own, and no more notifications of it come.
/// A reload took away the permission that let the connection make it (its user left
/// `relay.group`, or `board.staffGroup` for a watch of the whole animal list): the connection
/// keeps only what its user may still use.
public enum WatchEnded: RPCNotificationSpec {
    public static let notification = RPCNotification.watchEnded

    public enum Reason: String, Sendable, CaseIterable {
        case permissionRevoked
    }

    public struct Params: RPCNotificationParams, Equatable {
        public let subscription: String
        public let reason: Reason
        public let message: String

        public init(subscription: String, reason: Reason, message: String) {
            self.subscription = subscription
            self.reason = reason
            self.message = message
        }

        public var json: JSONObject {
            ["subscription": .string(subscription), "reason": .string(reason.rawValue), "message": .string(message)]
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "params")
            self.init(subscription: try wire.string("subscription"), reason: try wire.choice("reason", as: Reason.self),
                      message: try wire.string("message"))
        }
    }

    public static let contract = NotificationContract(
        notification, "The daemon ended the watch: a reload took away the permission that made it (relay group, staff group)",
        watches: [RelayWatch.self, AnimalsWatch.self],
        params: [SubscriptionID.param, .init("reason", .oneOf(Reason.allCases.map(\.rawValue)), required: true, "Why it ended"),
                 .init("message", .string(), required: true, "What happened, for a person")],
        example: ["subscription": "w1", "reason": "permissionRevoked",
                  "message": "This connection's user is no longer in relay.group: the watch has ended."])
}

/// `animals.changed`: an animal of the watched list came (`added`), changed (`updated`) or left
/// it (`removed`: found, withdrawn, expired, erased, or moved out of the radius).
public enum AnimalsChanged: RPCNotificationSpec {
    public static let notification = RPCNotification.animalsChanged

    public enum Change: String, Sendable, CaseIterable {
        case added, updated, removed
        /// The watcher fell so far behind that some were left out: list again.
        case overflow
    }

    public struct Params: RPCNotificationParams, Equatable {
        public let subscription: String
        public let change: Change
        /// As the watcher may see it, in its new state (with `removed`, it says why it left:
        /// its status, or a position out of the radius); nil with `overflow`.
        public let animal: Animal?

        public init(subscription: String, change: Change, animal: Animal?) {
            self.subscription = subscription
            self.change = change
            self.animal = animal
        }

        public var json: JSONObject {
            JSONObject(presentMembers: ["subscription": .string(subscription), "change": .string(change.rawValue), "animal": animal?.json])
        }

        public init(json: JSONValue) throws(FlowViewError) {
            let wire = try WireObject(json, at: "params")
            let change = try wire.choice("change", as: Change.self)
            self.init(subscription: try wire.string("subscription"), change: change,
                      animal: change == .overflow ? nil : try Animal(try wire.object("animal")))
        }
    }

    public static let contract = NotificationContract(
        notification, "An animal of the watched list was added, changed or removed (found, withdrawn, expired, erased, out of the radius)",
        watch: AnimalsWatch.self,
        params: [SubscriptionID.param, .init("change", .oneOf(Change.allCases.map(\.rawValue)), required: true, "What happened"),
                 .init("animal", .ref("Animal"), "As the watcher may see it; absent with overflow")],
        example: Params(subscription: ProtocolExamples.subscription, change: .added, animal: ProtocolExamples.animal(.publicView)).json)
}

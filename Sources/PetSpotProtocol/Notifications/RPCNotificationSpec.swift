import PetSpotJSON

/// The notifications the daemon sends to a watch: JSON-RPC requests without `id`, each
/// carrying the `subscription` it belongs to. Names are fixed by the protocol.
public enum RPCNotification: String, Sendable, CaseIterable {
    case locationChanged = "location.changed"
    case flowChanged = "flow.changed"
    case reportsChanged = "reports.changed"
    case relayPending = "relay.pending"
    case watchEnded = "watch.ended"
    case animalsChanged = "animals.changed"
}

/// One notification as a type, as `RPCMethodSpec` is for a method: its name, its params with
/// their JSON, and its entry in the OpenRPC document's `x-notifications`.
public protocol RPCNotificationSpec: SendableMetatype {
    associatedtype Params: RPCNotificationParams
    static var notification: RPCNotification { get }
    static var contract: NotificationContract { get }
}

/// A notification's params: written by the daemon, read by a client.
public protocol RPCNotificationParams: Sendable {
    /// The watch it belongs to.
    var subscription: String { get }
    var json: JSONObject { get }
    /// Reads a notification's params; an error names the member at fault ("params.flow …").
    init(json: JSONValue) throws(FlowViewError)
}

extension RPCNotificationSpec {
    /// The whole notification as one line's JSON (without its newline).
    public static func line(_ params: Params) -> [UInt8] {
        JSONWriter.bytes(["jsonrpc": "2.0", "method": .string(notification.rawValue), "params": .object(params.json)])
    }
}

/// The notifications as types, in the order of `RPCNotification`: what the contract's
/// `x-notifications` folds over.
public enum ProtocolNotifications {
    public static let all: [any RPCNotificationSpec.Type] = [LocationChanged.self, FlowChanged.self, ReportsChanged.self, RelayPending.self, WatchEnded.self, AnimalsChanged.self]
}

/// A notification as the OpenRPC document lists it under `x-notifications`: a method object
/// without result, by the name it is sent with.
public struct NotificationContract: Sendable {
    public let notification: RPCNotification
    public let summary: String
    public let params: [MethodContract.Param]
    /// Sent to the watches made by these methods.
    public let watches: [any RPCMethodSpec.Type]
    public let example: JSONObject

    public init(_ notification: RPCNotification, _ summary: String, watch: any RPCMethodSpec.Type, params: [MethodContract.Param], example: JSONObject) {
        self.init(notification, summary, watches: [watch], params: params, example: example)
    }

    public init(_ notification: RPCNotification, _ summary: String, watches: [any RPCMethodSpec.Type], params: [MethodContract.Param], example: JSONObject) {
        self.notification = notification
        self.summary = summary
        self.watches = watches
        self.params = params
        self.example = example
    }

    /// Listed for a caller who may make one of its watches.
    public func offered(toRelay relay: Bool) -> Bool {
        watches.contains { relay || $0.visibility == .everyone }
    }

    public var openRPC: JSONValue {
        [
            "name": .string(notification.rawValue),
            "summary": .string(summary),
            // The method whose watch it is sent to; several, as an array.
            "x-watch": watches.count == 1 ? .string(watches[0].name) : .array(watches.map { .string($0.name) }),
            "paramStructure": "by-name",
            "params": .array(params.map(\.openRPC)),
            "examples": [[
                "name": .string(notification.rawValue),
                "params": .array(example.map { ["name": .string($0.key), "value": $0.value] }),
            ]],
        ]
    }
}

import PetSpotJSON
import PetSpotViews

/// The protocol, method by method: what `rpc.discover` answers, what `petspot call --list`
/// shows and what docs/PROTOCOL.md is checked against: folds over `ProtocolMethods.all`.
public enum ProtocolContract {
    /// The OpenRPC version the document follows.
    public static let openRPCVersion = "1.3.2"

    static let flowID = MethodContract.Param("flowId", .string(), required: true, "The id flow.start gave")
    static let locale = MethodContract.Param("locale", .oneOf(FlowLocale.allCases.map(\.rawValue)), "The language of the screens; en when left out")
    static let timeoutMs = MethodContract.Param("timeoutMs", .integer(1...ParamBounds.widest.locationTimeoutMs, "At most the daemon's location.timeoutMs"),
                                                "How long to wait for a fix")
    static let flowAnswer = JSONSchema.object(["flow": .ref("Flow")])
    static let flowErrors: [RPCErrorKind] = [.flowNotFound, .wrongStep]

    /// Every method's entry, from its type.
    public static let methods: [MethodContract] = ProtocolMethods.all.map { $0.contract }

    /// Every notification's entry, from its type.
    public static let notifications: [NotificationContract] = ProtocolNotifications.all.map { $0.contract }

    /// The entry of the method named `name`, if there is one.
    public static func contract(named name: String) -> MethodContract? {
        methods.first { $0.name == name }
    }

    /// The OpenRPC document for a caller: relay methods only for members of the relay group.
    public static func openRPC(version: String, relay: Bool) -> JSONValue {
        document(version: version, methods: ProtocolMethods.offered(toRelay: relay).map { $0.contract },
                 notifications: notifications.filter { $0.offered(toRelay: relay) },
                 schemas: ProtocolSchemas.all.map { (name: $0.key, schema: $0.value) }, errors: RPCErrorKind.allCases)
    }

    /// An OpenRPC document of these methods and notifications, with these shared schemas and
    /// errors under `components`.
    static func document(version: String, methods offered: [MethodContract], notifications: [NotificationContract],
                         schemas shared: [(name: String, schema: JSONSchema)], errors kinds: [RPCErrorKind]) -> JSONValue {
        var schemas = JSONObject()
        for (name, schema) in shared { schemas[name] = schema.json }
        var errors = JSONObject()
        for kind in kinds {
            errors[kind.rawValue] = ["code": .int(kind.code), "message": .string(kind.summary), "data": ["kind": .string(kind.rawValue)]]
        }
        return [
            "openrpc": .string(openRPCVersion),
            "info": [
                "title": "petspotd",
                "version": .string(version),
                "description": .string("Missing-pet reports over a Unix socket: newline-delimited JSON-RPC 2.0. protocolVersion \(petspotProtocolVersion). Every error carries data.kind; invalidParams and the not-found errors name data.parameter."),
            ],
            "methods": .array(offered.map(\.openRPC)),
            "components": ["schemas": .object(schemas), "errors": .object(errors)],
            // OpenRPC 1.x has no object for notifications (server → client, no id): each is listed
            // here as a method object without result, by the method name it is sent with.
            "x-notifications": .array(notifications.map(\.openRPC)),
        ]
    }
}

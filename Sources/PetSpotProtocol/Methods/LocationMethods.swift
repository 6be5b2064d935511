import PetSpotJSON
import PetSpotViews

// location.*: where the box is, for this caller.

/// `location.current`: a position, or why there is none.
public enum LocationCurrent: RPCMethodSpec {
    public static let name = "location.current"

    public struct Params: RPCParamsCoding, Equatable {
        /// At most the daemon's `location.timeoutMs`.
        public var timeoutMs: Int?
        /// The oldest fix to take; never more than the daemon's `location.maxAgeMs`.
        public var maxAgeMs: Int?
        public var locale: FlowLocale?

        public init(timeoutMs: Int? = nil, maxAgeMs: Int? = nil, locale: FlowLocale? = nil) {
            self.timeoutMs = timeoutMs
            self.maxAgeMs = maxAgeMs
            self.locale = locale
        }

        public init(_ p: inout RPCParams, bounds: ParamBounds) throws(RPCError) {
            timeoutMs = try p.optionalInt("timeoutMs", in: 1...bounds.locationTimeoutMs)
            maxAgeMs = try p.optionalInt("maxAgeMs", in: Self.maxAgeRange)
            locale = try p.optionalChoice("locale", as: FlowLocale.self)
            try p.finish()
        }

        public static let maxAgeRange = 0...3_600_000

        public var json: JSONObject {
            JSONObject(presentMembers: [
                "timeoutMs": timeoutMs.map { .int($0) }, "maxAgeMs": maxAgeMs.map { .int($0) }, "locale": locale.map { .string($0.rawValue) },
            ])
        }
    }

    public struct Result: RPCResultCoding, Equatable {
        public let location: LocationView

        public init(location: LocationView) {
            self.location = location
        }

        public var json: JSONValue { ["location": location.json] }

        public init(json: JSONValue) throws(FlowViewError) {
            location = try LocationView(try WireObject(json, at: "result").object("location"))
        }
    }

    public static let contract = MethodContract(
        name, "Where the box is now, for this caller",
        params: [ProtocolContract.timeoutMs,
                 .init("maxAgeMs", .integer(Params.maxAgeRange), "The oldest fix to take; never more than location.maxAgeMs"),
                 ProtocolContract.locale],
        result: "location", .object(["location": .ref("Location")]),
        example: ("a fix", [:], Result(location: ProtocolExamples.fix).json))
}

/// `location.status`: the providers, their state and this caller's permission.
public enum LocationStatus: RPCMethodSpec {
    public static let name = "location.status"
    public typealias Params = NoParams
    public typealias Result = LocationStatusView

    public static let contract = MethodContract(
        name, "The location providers, their state and this caller's permission",
        result: "status", .object([
            "enabled": .boolean,
            "permission": .oneOf(LocationStatusView.Permission.allCases.map(\.rawValue)),
            "providers": .array(.object([
                "name": .string(),
                "state": .oneOf(ProviderStatus.State.allCases.map(\.rawValue)),
                "lastFixAgeMs": .nullable(.integer(0...Int.max)),
                "lastError": .nullable(.string()),
                "detail": .nullable(.string()),
            ])),
            "timeoutMs": .integer(0...Int.max),
            "maxAgeMs": .integer(0...Int.max),
        ]),
        example: ("gpsd with a fix", [:], LocationStatusView(
            enabled: true, permission: .allowed,
            providers: [ProviderStatus(name: "gpsd", state: .connected, lastFixAgeMs: 120, lastError: nil, detail: "127.0.0.1:2947")],
            timeoutMs: 10000, maxAgeMs: 2000).json))
}

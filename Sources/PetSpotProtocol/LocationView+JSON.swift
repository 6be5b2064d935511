import PetSpotJSON
import PetSpotViews

// The location service's answers on the wire; members in the order of PROTOCOL.md.

extension LocationView {
    /// `{status, fix?, message, settings?}`.
    public var json: JSONValue {
        .object(JSONObject(presentMembers: [
            "status": .string(status.rawValue), "fix": fix?.json, "message": .string(message), "settings": settings?.json,
        ]))
    }

    init(_ location: WireObject) throws(FlowViewError) {
        self.init(status: try location.choice("status", as: Status.self),
                  fix: try location.has("fix") ? LocationFix(try location.object("fix")) : nil,
                  message: try location.string("message"),
                  settings: try location.has("settings") ? SettingsLocation(try location.object("settings")) : nil)
    }
}

extension LocationFix {
    /// `{latitude, longitude, source, time, accuracy?}`.
    public var json: JSONValue {
        .object(JSONObject(presentMembers: [
            "latitude": latitude.json,
            "longitude": longitude.json,
            "source": .string(source),
            "time": .string(time),
            "accuracy": accuracy.map(JSONValue.number),
        ]))
    }

    init(_ fix: WireObject) throws(FlowViewError) {
        self.init(latitude: try fix.coordinate("latitude"), longitude: try fix.coordinate("longitude"), source: try fix.string("source"),
                  time: try fix.string("time"), accuracy: try fix.has("accuracy") ? fix.number("accuracy") : nil)
    }
}

extension LocationStatusView: RPCResultCoding {
    public var json: JSONValue {
        [
            "enabled": .bool(enabled),
            "permission": .string(permission.rawValue),
            "providers": .array(providers.map(\.json)),
            "timeoutMs": .int(timeoutMs),
            "maxAgeMs": .int(maxAgeMs),
        ]
    }

    public init(json: JSONValue) throws(FlowViewError) {
        let wire = try WireObject(json, at: "result")
        self.init(enabled: try wire.bool("enabled"), permission: try wire.choice("permission", as: Permission.self),
                  providers: try wire.objects("providers") { (p) throws(FlowViewError) in try ProviderStatus(p) },
                  timeoutMs: try wire.int("timeoutMs"), maxAgeMs: try wire.int("maxAgeMs"))
    }
}

extension ProviderStatus {
    public var json: JSONValue {
        [
            "name": .string(name),
            "state": .string(state.rawValue),
            "lastFixAgeMs": .optional(lastFixAgeMs),
            "lastError": .optional(lastError),
            "detail": .optional(detail),
        ]
    }

    init(_ provider: WireObject) throws(FlowViewError) {
        self.init(name: try provider.string("name"), state: try provider.choice("state", as: State.self),
                  lastFixAgeMs: try provider.optionalInt("lastFixAgeMs"), lastError: try provider.optionalString("lastError"),
                  detail: try provider.optionalString("detail"))
    }
}

import PetSpotJSON
import PetSpotViews

/// What the location service answered to one request.
public enum LocationOutcome: Sendable, Hashable {
    case fix(LocationFix)
    case permissionDenied(SettingsLocation)
    case servicesDisabled(SettingsLocation)
    case timeout
    /// No provider could answer; `reason` is for logs, not for the screen.
    case unavailable(reason: String)

    /// The wire name: "ok", "permissionDenied", "servicesDisabled", "timeout", "unavailable".
    public var status: String {
        switch self {
        case .fix: "ok"
        case .permissionDenied: "permissionDenied"
        case .servicesDisabled: "servicesDisabled"
        case .timeout: "timeout"
        case .unavailable: "unavailable"
        }
    }

    /// The `location` object of PROTOCOL.md: `{status, fix?, message, settings?}`.
    public func json(locale: FlowLocale) -> JSONValue {
        let strings = StringCatalog(locale)
        var object: JSONObject = ["status": .string(status)]
        if case .fix(let fix) = self {
            object.members.append((key: "fix", value: fix.json))
        }
        object.members.append((key: "message", value: .string(strings.locationMessage(self))))
        switch self {
        case .permissionDenied(let settings), .servicesDisabled(let settings):
            object.members.append((key: "settings", value: settings.json))
        case .fix, .timeout, .unavailable:
            break
        }
        return .object(object)
    }
}

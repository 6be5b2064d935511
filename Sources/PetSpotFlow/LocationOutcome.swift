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

    /// Its status as a client sees it.
    public var status: LocationView.Status {
        switch self {
        case .fix: .ok
        case .permissionDenied: .permissionDenied
        case .servicesDisabled: .servicesDisabled
        case .timeout: .timeout
        case .unavailable: .unavailable
        }
    }

    /// What a client is shown, its message in `locale`.
    public func view(locale: FlowLocale) -> LocationView {
        let message = StringCatalog(locale).locationMessage(self)
        return switch self {
        case .fix(let fix): LocationView(status: status, fix: fix, message: message)
        case .permissionDenied(let settings), .servicesDisabled(let settings): LocationView(status: status, message: message, settings: settings)
        case .timeout, .unavailable: LocationView(status: status, message: message)
        }
    }
}

import PetSpotJSON

/// The answer of the location service as a client sees it: `{status, fix?, message,
/// settings?}` of PROTOCOL.md, its message in the caller's language.
public struct LocationView: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case ok, permissionDenied, servicesDisabled, timeout, unavailable
    }

    public let status: Status
    /// With `ok` only.
    public let fix: LocationFix?
    public let message: String
    /// With `permissionDenied` and `servicesDisabled`: where to change it.
    public let settings: SettingsLocation?

    public init(status: Status, fix: LocationFix? = nil, message: String, settings: SettingsLocation? = nil) {
        self.status = status
        self.fix = fix
        self.message = message
        self.settings = settings
    }
}

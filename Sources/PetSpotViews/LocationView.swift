import PetSpotJSON

/// The answer of the location service as a client sees it: `{status, fix?, message,
/// settings?}` of PROTOCOL.md, its message in the caller's language.
public struct LocationView: Sendable, Equatable {
    public enum Status: String, Sendable, CaseIterable {
        case ok, permissionDenied, servicesDisabled, timeout, unavailable
    }

    /// A position, its coordinates as the 5-decimal literals they travel as.
    public struct Fix: Sendable, Equatable {
        public let latitude: JSONNumber
        public let longitude: JSONNumber
        /// The provider that made it: "gpsd", "simulated".
        public let source: String
        /// ISO 8601 UTC.
        public let time: String
        /// Metres, when the provider knows it.
        public let accuracy: JSONNumber?

        public init(latitude: JSONNumber, longitude: JSONNumber, source: String, time: String, accuracy: JSONNumber?) {
            self.latitude = latitude
            self.longitude = longitude
            self.source = source
            self.time = time
            self.accuracy = accuracy
        }
    }

    public let status: Status
    /// With `ok` only.
    public let fix: Fix?
    public let message: String
    /// With `permissionDenied` and `servicesDisabled`: where to change it.
    public let settings: SettingsLocation?

    public init(status: Status, fix: Fix? = nil, message: String, settings: SettingsLocation? = nil) {
        self.status = status
        self.fix = fix
        self.message = message
        self.settings = settings
    }
}

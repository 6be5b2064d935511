import PetSpotViews

/// What a screen shows about the person's last actions rather than about the stored values.
/// It belongs to one visit of a step and is reset when the step changes.
struct ScreenFeedback: Sendable {
    /// A dialog the client must show until it is dismissed.
    enum Alert: Sendable, Hashable {
        case permissionDenied(SettingsLocation)
        case servicesDisabled(SettingsLocation)
    }

    /// The result of the last location request, shown under the coordinate fields.
    enum LocationNote: Sendable, Hashable {
        case found(source: String)
        case timedOut
        case unavailable
    }

    var issues: [FlowField: FieldIssue] = [:]
    var showsToast = false
    var alert: Alert?
    var locationNote: LocationNote?
}

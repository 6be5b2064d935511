import PetSpotFlow
import PetSpotViews

/// One source of positions behind the location service. A provider only answers "a fix, or
/// why not"; the order of providers, fallback and permission live in `LocationService`. A
/// provider is an object with a lifetime: a reload keeps the same one when its settings stay.
public protocol LocationProvider: AnyObject, Sendable {
    /// The name a fix carries as its `source` ("gpsd", "simulated").
    var name: String { get }

    /// One fix no older than `maxAge`, waiting at most `timeout` for it.
    func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer

    /// What it would answer now without waiting: a fix no older than `maxAge`, or why not
    /// (`timeout`: none now, though one may come). A watch asks this on every change.
    func answerNow(maxAge: Duration) -> ProviderAnswer

    /// Has `changed` called, on any thread, whenever `answerNow` may have changed: a fix, a
    /// lost fix, the link. A provider that never changes on its own need not call it.
    func onChange(_ changed: @escaping @Sendable () -> Void)

    /// What the provider can say about itself for `location.status`.
    func status() async -> ProviderStatus

    /// Begins whatever the provider does in the background (gpsd: its watch thread). Nothing
    /// runs before this, so a daemon that fails to start leaves nothing behind.
    func start()

    /// Ends the background work for good; a provider stopped is never started again.
    func stop()
}

extension LocationProvider {
    public func onChange(_ changed: @escaping @Sendable () -> Void) {}
    public func start() {}
    public func stop() {}
}

/// A provider's answer to one request.
public enum ProviderAnswer: Sendable, Equatable {
    case fix(LocationFix)
    /// The provider refuses location to this user; `settingsKey` is the configuration key that grants it.
    case permissionDenied(settingsKey: String)
    /// Location is switched off where this provider gets it; `settingsKey` switches it on.
    case servicesDisabled(settingsKey: String)
    /// No fix came within the time given.
    case timeout
    /// The provider cannot answer at all now (not connected, not configured).
    case unavailable(reason: String)
}

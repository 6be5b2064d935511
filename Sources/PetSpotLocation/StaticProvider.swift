import FoundationEssentials
import PetSpotSystem
import PetSpotViews

/// A box that never moves (a kiosk bolted to a shelter's wall): the position its operator
/// surveyed, always current, with the accuracy the operator gives. Serves `source: "static"`.
public final class StaticProvider: LocationProvider {
    public let name = "static"
    public let latitude: Coordinate
    public let longitude: Coordinate
    /// Metres, as the operator knows the survey; nil when not given.
    public let accuracyMetres: Double?
    private let clock: DaemonClock

    public init(latitude: Coordinate, longitude: Coordinate, accuracyMetres: Double?, clock: DaemonClock) {
        self.latitude = latitude
        self.longitude = longitude
        self.accuracyMetres = accuracyMetres
        self.clock = clock
    }

    public func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer {
        answerNow(maxAge: maxAge)
    }

    /// The surveyed position, as of now: it is never old.
    public func answerNow(maxAge: Duration) -> ProviderAnswer {
        .fix(LocationFix(latitude: latitude, longitude: longitude, source: name, time: ISO8601.string(clock.wallTime()),
                         accuracyMetres: accuracyMetres))
    }

    public func status() async -> ProviderStatus {
        ProviderStatus(name: name, state: .ready, lastFixAgeMs: 0, detail: "surveyed position \(latitude.text),\(longitude.text)")
    }
}

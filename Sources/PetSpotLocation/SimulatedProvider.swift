import FoundationEssentials
import PetSpotFlow
import PetSpotSystem
import NIOConcurrencyHelpers
import PetSpotViews

/// Positions without hardware, for machines with no GPS and for exercising every outcome a
/// client must handle.
public final class SimulatedProvider: LocationProvider {
    public enum Mode: String, Sendable, CaseIterable {
        case fix
        case permissionDenied = "permission-denied"
        case settingsPrompt = "settings-prompt"
        case noFix = "no-fix"
    }

    public struct Position: Sendable, Equatable {
        public let latitude: Coordinate
        public let longitude: Coordinate
        public init(latitude: Coordinate, longitude: Coordinate) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    public let name = "simulated"
    private let mode: Mode
    /// The configured position first, then the rest of the track; each fix moves one point on.
    private let track: [Position]
    private let clock: DaemonClock
    private let state = NIOLockedValueBox<(next: Int, lastFix: DaemonInstant?)>((0, nil))
    private let observers = NIOLockedValueBox<[@Sendable () -> Void]>([])

    public init(mode: Mode, track: [Position], clock: DaemonClock) {
        precondition(!track.isEmpty, "the simulated provider needs at least one position")
        self.mode = mode
        self.track = track
        self.clock = clock
    }

    public func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer {
        switch mode {
        case .fix:
            let (time, at) = (clock.wallTime(), clock.now)
            let position = state.withLockedValue { state in
                let position = track[state.next % track.count]
                state.next += 1
                state.lastFix = at
                return position
            }
            // A watch sees the simulated box move as requests move it along its track.
            for observer in observers.withLockedValue({ $0 }) { observer() }
            return .fix(LocationFix(latitude: position.latitude, longitude: position.longitude, source: name,
                                    time: ISO8601.string(time), accuracy: nil))
        case .permissionDenied:
            return .permissionDenied(settingsKey: "location.simulated.mode")
        case .settingsPrompt:
            return .servicesDisabled(settingsKey: "location.simulated.mode")
        case .noFix:
            // Never a fix: the request runs into its timeout, without holding any thread.
            try? await clock.sleep(for: timeout)
            return .timeout
        }
    }

    /// The position last handed out (the first before any), as fresh as the clock.
    public func answerNow(maxAge: Duration) -> ProviderAnswer {
        switch mode {
        case .fix:
            let position = state.withLockedValue { track[max($0.next - 1, 0) % track.count] }
            return .fix(LocationFix(latitude: position.latitude, longitude: position.longitude, source: name,
                                    time: ISO8601.string(clock.wallTime()), accuracy: nil))
        case .permissionDenied: return .permissionDenied(settingsKey: "location.simulated.mode")
        case .settingsPrompt: return .servicesDisabled(settingsKey: "location.simulated.mode")
        case .noFix: return .timeout
        }
    }

    public func onChange(_ changed: @escaping @Sendable () -> Void) {
        observers.withLockedValue { $0.append(changed) }
    }

    public func status() async -> ProviderStatus {
        let lastFix = state.withLockedValue { $0.lastFix }
        let now = clock.now
        let age = lastFix.map { now.elapsed(since: $0).milliseconds }
        let state: ProviderStatus.State = switch mode {
        case .fix: .ready
        case .permissionDenied: .denied
        case .settingsPrompt: .disabled
        case .noFix: .noFix
        }
        return ProviderStatus(name: name, state: state, lastFixAgeMs: age, detail: "mode \(mode.rawValue)")
    }
}

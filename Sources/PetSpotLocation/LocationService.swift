import PetSpotFlow
import PetSpotJSON
import PetSpotSystem
import PetSpotViews

/// "Where are we now?" for the daemon: asks the configured providers in order and turns their
/// answers into the outcome a client shows.
public final class LocationService: Sendable {
    public let providers: [any LocationProvider]
    /// The configuration file a person edits to change location settings ("Go to Settings").
    public let settingsFile: String
    /// Location switched off as a whole.
    public let enabled: Bool
    public let permission: LocationPermission
    public let defaultTimeout: Duration
    public let defaultMaxAge: Duration
    private let accounts: any UnixAccounts
    /// What the timeout is reckoned on.
    private let clock: DaemonClock

    public init(providers: [any LocationProvider], settingsFile: String, enabled: Bool = true,
                permission: LocationPermission = .everyone, accounts: any UnixAccounts = SystemAccounts(), clock: DaemonClock,
                defaultTimeout: Duration = .seconds(10), defaultMaxAge: Duration = .seconds(2))
    {
        self.providers = providers
        self.settingsFile = settingsFile
        self.enabled = enabled
        self.permission = permission
        self.accounts = accounts
        self.clock = clock
        self.defaultTimeout = defaultTimeout
        self.defaultMaxAge = defaultMaxAge
    }

    /// Whether `client` may have a location at all, before any provider is asked.
    public func refusal(for client: LocationClient?) -> LocationOutcome? {
        guard enabled else {
            return .servicesDisabled(SettingsLocation(file: settingsFile, key: "location.enabled"))
        }
        if let client, !permission.allows(client, accounts: accounts) {
            return .permissionDenied(SettingsLocation(file: settingsFile, key: permission.settingsKey))
        }
        return nil
    }

    public var providerNames: [String] { providers.map(\.name) }

    /// Starts the providers' background work (a gpsd watch). Starting one twice does nothing.
    public func start() {
        for provider in providers { provider.start() }
    }

    /// Stops the providers that `successor` (the service a reload puts in force) does not keep;
    /// without a successor, all of them.
    public func stop(keeping successor: LocationService? = nil) {
        for provider in providers where !(successor?.providers.contains { $0 === provider } ?? false) {
            provider.stop()
        }
    }

    /// One fix for `client`, or why there is none. Never waits longer than `timeout` in all.
    public func current(for client: LocationClient? = nil, timeout: Duration? = nil, maxAge: Duration? = nil) async -> LocationOutcome {
        if let refusal = refusal(for: client) { return refusal }
        guard !providers.isEmpty else { return .unavailable(reason: "no location provider is configured") }
        let timeout = min(timeout ?? defaultTimeout, defaultTimeout)
        // A client may ask for a fresher fix, never for an older one than configured.
        let maxAge = min(maxAge ?? defaultMaxAge, defaultMaxAge)
        let deadline = clock.now.advanced(by: timeout)
        var reasons: [String] = []
        var timedOut = false
        for (index, provider) in providers.enumerated() {
            // Each provider gets an equal share of what is left, so a silent first provider
            // still leaves time for the fallback.
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { timedOut = true; break }
            let share = remaining / (providers.count - index)
            switch await provider.currentFix(timeout: share, maxAge: maxAge) {
            case .fix(let fix):
                return .fix(fix)
            case .permissionDenied(let key):
                return .permissionDenied(SettingsLocation(file: settingsFile, key: key))
            case .servicesDisabled(let key):
                return .servicesDisabled(SettingsLocation(file: settingsFile, key: key))
            case .timeout:
                timedOut = true
                reasons.append("\(provider.name): no fix in time")
            case .unavailable(let reason):
                reasons.append("\(provider.name): \(reason)")
            }
        }
        return timedOut ? .timeout : .unavailable(reason: reasons.joined(separator: "; "))
    }

    /// What `current` would answer now without waiting for any provider: a watch's view.
    public func now(for client: LocationClient? = nil) -> LocationOutcome {
        if let refusal = refusal(for: client) { return refusal }
        guard !providers.isEmpty else { return .unavailable(reason: "no location provider is configured") }
        var reasons: [String] = []
        var waiting = false
        for provider in providers {
            switch provider.answerNow(maxAge: defaultMaxAge) {
            case .fix(let fix): return .fix(fix)
            case .permissionDenied(let key): return .permissionDenied(SettingsLocation(file: settingsFile, key: key))
            case .servicesDisabled(let key): return .servicesDisabled(SettingsLocation(file: settingsFile, key: key))
            case .timeout: waiting = true
            case .unavailable(let reason): reasons.append("\(provider.name): \(reason)")
            }
        }
        return waiting ? .timeout : .unavailable(reason: reasons.joined(separator: "; "))
    }

    /// The service's state for `location.status`, with what it means for `client`.
    public func status(for client: LocationClient? = nil) async -> LocationStatusView {
        var providerStates: [ProviderStatus] = []
        for provider in providers {
            providerStates.append(await provider.status())
        }
        let permission: LocationStatusView.Permission = switch refusal(for: client) {
        case nil: .allowed
        case .servicesDisabled?: .servicesDisabled
        default: .denied
        }
        return LocationStatusView(enabled: enabled, permission: permission, providers: providerStates,
                                  timeoutMs: defaultTimeout.milliseconds, maxAgeMs: defaultMaxAge.milliseconds)
    }
}

extension Duration {
    public var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}

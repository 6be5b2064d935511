/// Holds a provider's place in the chain when it cannot work in this build or on this
/// machine: it always passes to the next provider, and says why in `location.status`.
public struct UnavailableProvider: LocationProvider {
    public let name: String
    public let reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }

    public func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer {
        .unavailable(reason: reason)
    }

    public func status() async -> ProviderStatus {
        ProviderStatus(name: name, state: .disconnected, lastError: reason)
    }
}

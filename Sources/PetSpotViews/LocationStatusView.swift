/// What `location.status` shows: whether location is on, this caller's permission, each
/// provider's state and the waits a caller gets when it asks for none.
public struct LocationStatusView: Sendable, Equatable {
    public enum Permission: String, Sendable, CaseIterable {
        case allowed, denied, servicesDisabled
    }

    public let enabled: Bool
    public let permission: Permission
    public let providers: [ProviderStatus]
    /// `location.timeoutMs`.
    public let timeoutMs: Int
    /// `location.maxAgeMs`.
    public let maxAgeMs: Int

    public init(enabled: Bool, permission: Permission, providers: [ProviderStatus], timeoutMs: Int, maxAgeMs: Int) {
        self.enabled = enabled
        self.permission = permission
        self.providers = providers
        self.timeoutMs = timeoutMs
        self.maxAgeMs = maxAgeMs
    }
}

/// A provider's state for `location.status`.
public struct ProviderStatus: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        case ready, connected, disconnected, denied, disabled, noFix
    }

    public let name: String
    public let state: State
    public let lastFixAgeMs: Int?
    public let lastError: String?
    public let detail: String?

    public init(name: String, state: State, lastFixAgeMs: Int? = nil, lastError: String? = nil, detail: String? = nil) {
        self.name = name
        self.state = state
        self.lastFixAgeMs = lastFixAgeMs
        self.lastError = lastError
        self.detail = detail
    }
}

import PetSpotFlow

/// Why the registry refused: the flow is not the caller's to see, a limit is reached, or the
/// flow's own rules refused. `RPCError.init(_:)` says it to the client.
public enum FlowRegistryError: Error, Sendable, Equatable {
    /// Missing, expired, cancelled or another user's: to the caller it does not exist.
    case flowNotFound(id: String)
    /// `setting` (as docs/OPERATIONS.md names it) is at `max`.
    case limitReached(setting: String, max: Int, message: String)
    case flow(FlowError)
}

import Logging
import NIOConcurrencyHelpers
import PetSpotJSON
import PetSpotProtocol

/// What every handler gets besides its params: who asks (from the kernel), the request's
/// logger, the connection's watches, the settings in force when the request came, and whether
/// the daemon is stopping.
struct RequestContext: Sendable {
    let peer: Peer
    /// The settings in force for this request (as its connection keeps them: `KeptRequestSettings`).
    let settings: RequestSettings
    /// The daemon is stopping.
    let draining: Bool
    /// The connection's watches; nil where nothing can be notified.
    let subscriber: Subscriber?
    /// The connection's logger (who the client is).
    let connectionLogger: Logger
    /// The request's method and id, for its logger.
    let method: String
    let id: JSONValue?

    /// The logger of this request: the connection's with the method and the request's id.
    /// Made when something is logged, not for every request.
    var logger: Logger { connectionLogger.forRequest(method: method, id: id) }

    var limits: DaemonConfiguration.Limits { settings.limits }
    var bounds: ParamBounds { settings.bounds }
    /// The peer is a member of `relay.group` now.
    var isRelay: Bool { settings.isRelay }
    /// The peer is a member of `board.staffGroup` now.
    var isStaff: Bool { settings.isStaff }

    /// The connection's watches, for a handler that makes one.
    func watcher() throws(RPCError) -> Subscriber {
        guard let subscriber else { throw RPCError(.internalError, "this request has no connection to send notifications to") }
        return subscriber
    }
}

/// What the daemon's settings say of one caller, read under one lock and kept by its
/// connection until a reload. A class: every request's context holds it, and the limits are
/// large enough that copying them for each request showed in its profile.
final class RequestSettings: Sendable {
    /// The generation of the settings it was read from (`DaemonServices.settingsGeneration`).
    let generation: UInt64
    let isRelay: Bool
    /// The peer is a member of `board.staffGroup` now: it sees the animal list whole.
    let isStaff: Bool
    let limits: DaemonConfiguration.Limits
    /// The limits its params are read with.
    let bounds: ParamBounds

    init(generation: UInt64, isRelay: Bool, isStaff: Bool, limits: DaemonConfiguration.Limits, bounds: ParamBounds) {
        self.generation = generation
        self.isRelay = isRelay
        self.isStaff = isStaff
        self.limits = limits
        self.bounds = bounds
    }
}

/// The settings a connection's last request was read with, for its next one
/// (`DaemonServices.requestSettings(for:kept:)`).
final class KeptRequestSettings: Sendable {
    // A lock though one connection's requests run one at a time: a long line's runs in a task.
    private let settings = NIOLockedValueBox<RequestSettings?>(nil)

    func current(_ services: DaemonServices, for peer: Peer) -> RequestSettings {
        settings.withLockedValue { kept in
            let current = services.requestSettings(for: peer, kept: kept)
            kept = current
            return current
        }
    }
}

import NIOCore
import NIOConcurrencyHelpers
import Synchronization

/// Asks a connection to finish what it has in hand, then close: sent at shutdown. The
/// descriptors let the connection shut its input, so that every line its client sent before
/// is read and answered, and none is left unread in the socket when it closes.
struct DrainAndCloseEvent: Sendable {
    let descriptors: [UInt64: CInt]
}

/// The open client connections: counted against the connection limit, and asked to drain
/// and close at shutdown.
final class ConnectionTracker: Sendable {
    private struct State {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var draining = false
        /// Completed once draining has begun and the last connection has closed.
        var allClosed: EventLoopPromise<Void>?
    }

    private let state = NIOLockedValueBox(State())
    /// Changes on reload; connections already open stay.
    let maxConnections: Synchronization.Atomic<Int>

    init(maxConnections: Int) {
        self.maxConnections = Synchronization.Atomic(maxConnections)
    }

    /// Registers the channel unless the limit is reached; forgets it when it closes.
    func admit(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let limit = maxConnections.load(ordering: .relaxed)
        let admitted = state.withLockedValue { state -> Bool in
            guard state.channels.count < limit else { return false }
            state.channels[key] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [self] _ in
                let finished = state.withLockedValue { state -> EventLoopPromise<Void>? in
                    state.channels.removeValue(forKey: key)
                    guard state.draining, state.channels.isEmpty else { return nil }
                    defer { state.allClosed = nil }
                    return state.allClosed
                }
                finished?.succeed(())
            }
        }
        return admitted
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    var isDraining: Bool { state.withLockedValue { $0.draining } }

    /// Asks every connection to answer what it has and close, including one accepted while
    /// this runs (see `isDraining`). The future completes when all are closed.
    func drainAll(on loop: any EventLoop) -> EventLoopFuture<Void> {
        let promise = loop.makePromise(of: Void.self)
        let open = state.withLockedValue { state -> [any Channel] in
            state.draining = true
            if state.channels.isEmpty { return [] }
            state.allClosed = promise
            return Array(state.channels.values)
        }
        if open.isEmpty {
            promise.succeed(())
            return promise.futureResult
        }
        let event = DrainAndCloseEvent(descriptors: SocketCookie.descriptors())
        for channel in open { channel.pipeline.fireUserInboundEventTriggered(event) }
        return promise.futureResult
    }
}

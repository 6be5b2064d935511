import NIOCore
import NIOConcurrencyHelpers
import Synchronization

/// Asks a connection to finish what it has in hand, then close: sent at shutdown. The
/// descriptors let the connection shut its input, so that every line its client sent before
/// is read and answered, and none is left unread in the socket when it closes.
struct DrainAndCloseEvent: Sendable {
    let descriptors: [UInt64: CInt]
}

/// The open client connections: counted against the connection limit and, once the peer is
/// known, against its uid's own limit; asked to drain and close at shutdown.
///
/// A connection is known from the moment the listening socket accepts it (`accepted`, through
/// `AcceptedConnections`), not only once it is set up: NIO sets it up on its own event loop and
/// then hops back to the listening socket's loop, which registers it or, once that socket is
/// closed, closes it. A stop that did not wait for that hop would shut the event loops down
/// under it ("Cannot schedule tasks on an EventLoop that has already shut down").
final class ConnectionTracker: Sendable {
    private struct State {
        /// Every connection accepted and not yet closed: being set up, refused, or served.
        var accepted: [ObjectIdentifier: any Channel] = [:]
        /// The served ones, counted against the limit.
        var channels: [ObjectIdentifier: any Channel] = [:]
        /// The uid of each served connection whose peer is known, and how many each uid holds.
        var owners: [ObjectIdentifier: UInt32] = [:]
        var perUser: [UInt32: Int] = [:]
        var draining = false
        /// Finished once draining has begun and the last connection has closed. Not an event
        /// loop's promise: the last close may come while the event loops shut down (after a
        /// drain cut short), and nothing is then to be scheduled on one.
        var allClosed: AsyncStream<Void>.Continuation?

        var noneOpen: Bool { accepted.isEmpty && channels.isEmpty }
    }

    private let state = NIOLockedValueBox(State())
    /// Changes on reload; connections already open stay.
    let maxConnections: Synchronization.Atomic<Int>

    init(maxConnections: Int) {
        self.maxConnections = Synchronization.Atomic(maxConnections)
    }

    /// Called on the listening socket's event loop as it accepts `channel`, before NIO sets
    /// the connection up: from now until it closes, a drain waits for it.
    func accepted(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        state.withLockedValue { $0.accepted[key] = channel }
        channel.closeFuture.whenComplete { [self] _ in closed(key) }
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
            channel.closeFuture.whenComplete { [self] _ in closed(key) }
        }
        return admitted
    }

    /// Counts an admitted channel against its peer's uid, unless that uid already holds `limit`
    /// connections. Called once the peer's credentials are read.
    func admit(_ channel: any Channel, user uid: UInt32, limit: Int) -> Bool {
        let key = ObjectIdentifier(channel)
        return state.withLockedValue { state -> Bool in
            // Closed while its credentials were read: nothing to count.
            guard state.channels[key] != nil, state.owners[key] == nil else { return false }
            let held = state.perUser[uid, default: 0]
            guard held < limit else { return false }
            state.perUser[uid] = held + 1
            state.owners[key] = uid
            return true
        }
    }

    private func closed(_ key: ObjectIdentifier) {
        let finished = state.withLockedValue { state -> AsyncStream<Void>.Continuation? in
            state.accepted.removeValue(forKey: key)
            state.channels.removeValue(forKey: key)
            if let uid = state.owners.removeValue(forKey: key) {
                let held = state.perUser[uid, default: 1] - 1
                state.perUser[uid] = held > 0 ? held : nil
            }
            guard state.draining, state.noneOpen else { return nil }
            defer { state.allClosed = nil }
            return state.allClosed
        }
        finished?.yield()
        finished?.finish()
    }

    var count: Int { state.withLockedValue { $0.channels.count } }

    /// Connections accepted and not yet closed, also those still being set up.
    var acceptedCount: Int { state.withLockedValue { $0.accepted.count } }

    var isDraining: Bool { state.withLockedValue { $0.draining } }

    /// Asks every connection to answer what it has and close, including one accepted while
    /// this runs (see `isDraining`). The sequence yields once all are closed, also those that
    /// were still being set up; it ends without yielding if the task waiting on it is cancelled.
    func drainAll() -> AsyncStream<Void> {
        let (allClosed, continuation) = AsyncStream.makeStream(of: Void.self)
        let open = state.withLockedValue { state -> [any Channel]? in
            state.draining = true
            if state.noneOpen { return nil }
            state.allClosed = continuation
            return Array(state.channels.values)
        }
        guard let open else {
            continuation.yield()
            continuation.finish()
            return allClosed
        }
        // Those still being set up get the event from the child initializer (`isDraining`),
        // or are closed by NIO as the listening socket is closed.
        if !open.isEmpty {
            let event = DrainAndCloseEvent(descriptors: SocketCookie.descriptors())
            for channel in open { channel.pipeline.fireUserInboundEventTriggered(event) }
        }
        return allClosed
    }
}

/// In the listening socket's pipeline, before NIO's accept handler: tells the tracker of each
/// connection as it is accepted.
final class AcceptedConnections: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    private let tracker: ConnectionTracker

    init(tracker: ConnectionTracker) {
        self.tracker = tracker
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        tracker.accepted(Self.unwrapInboundIn(data))
        context.fireChannelRead(data)
    }
}

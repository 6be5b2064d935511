import NIOCore
import Synchronization

/// The open client connections: counted against the connection limit, and asked to drain
/// and close at shutdown.
final class ConnectionTracker: Sendable {
    private let channels = Mutex<[ObjectIdentifier: any Channel]>([:])
    /// Changes on reload; connections already open stay.
    let maxConnections: Atomic<Int>

    init(maxConnections: Int) {
        self.maxConnections = Atomic(maxConnections)
    }

    /// Registers the channel unless the limit is reached; forgets it when it closes.
    func admit(_ channel: any Channel) -> Bool {
        let key = ObjectIdentifier(channel)
        let limit = maxConnections.load(ordering: .relaxed)
        let admitted = channels.withLock { table -> Bool in
            guard table.count < limit else { return false }
            table[key] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [self] _ in
                _ = channels.withLock { $0.removeValue(forKey: key) }
            }
        }
        return admitted
    }

    var count: Int { channels.withLock { $0.count } }

    /// Asks every connection to answer what it has and close. Returns once every connection
    /// has been told, with a future that completes when all are closed.
    func drainAll(on loop: any EventLoop) async -> EventLoopFuture<Void> {
        let open = channels.withLock { Array($0.values) }
        let told = open.map { channel in
            channel.eventLoop.submit { channel.pipeline.fireUserInboundEventTriggered(DrainAndCloseEvent()) }
        }
        _ = try? await EventLoopFuture.andAllComplete(told, on: loop).get()
        return EventLoopFuture.andAllComplete(open.map(\.closeFuture), on: loop)
    }
}

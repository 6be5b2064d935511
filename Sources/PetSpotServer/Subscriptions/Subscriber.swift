import NIOConcurrencyHelpers
import PetSpotProtocol

/// What a watch follows.
enum WatchTopic: Hashable, Sendable {
    case location
    case flow(String)
    /// The reports of this owner.
    case reports(UInt32)
    case relay

    /// A newer notification of such a watch makes an unsent older one pointless: only the
    /// latest waits. Reports are each news of their own, and wait in order.
    var coalesces: Bool {
        if case .reports = self { return false }
        return true
    }
}

/// One connection's watches and the notifications not yet handed to its socket.
///
/// Any thread posts (a flow change, a fix, a filed report); the connection's event loop takes
/// what waits when it may write: after the answer in hand, while its client reads. What waits
/// is bounded: one notification per coalescing watch, and reports within `maxQueuedBytes`,
/// past which a watch's waiting reports become one `overflow`. `queuedBytes` is that count.
final class Subscriber: Sendable {
    struct Queued: Sendable {
        let subscription: String
        var line: [UInt8]
    }

    private struct State {
        var watches: [String: WatchTopic] = [:]
        var issued: UInt64 = 0
        var queue: [Queued] = []
        var queuedBytes = 0
        /// Watches whose waiting reports became one `overflow`, until it is taken.
        var overflowed: Set<String> = []
        /// The connection has been told that something waits and has not taken it yet.
        var wakeSent = false
        var closed = false

        mutating func drop(_ subscription: String) {
            queue.removeAll { queued in
                guard queued.subscription == subscription else { return false }
                queuedBytes -= queued.line.count
                return true
            }
            overflowed.remove(subscription)
        }
    }

    let peer: Peer
    private let state = NIOLockedValueBox(State())
    /// Tells the connection, on its event loop, that notifications wait.
    private let wake: @Sendable () -> Void

    init(peer: Peer, wake: @escaping @Sendable () -> Void) {
        self.peer = peer
        self.wake = wake
    }

    /// Bytes of notifications waiting to be handed to the socket.
    var queuedBytes: Int { state.withLockedValue { $0.queuedBytes } }

    var watchCount: Int { state.withLockedValue { $0.watches.count } }

    /// A new watch's id, or nil when the connection already has `max` watches or is closed.
    func add(_ topic: WatchTopic, max: Int) -> String? {
        state.withLockedValue { s in
            guard !s.closed, s.watches.count < max else { return nil }
            s.issued += 1
            let id = "w\(s.issued)"
            s.watches[id] = topic
            return id
        }
    }

    /// Ends a watch; what it had waiting is dropped. Nil: no such watch on this connection.
    func remove(_ subscription: String) -> WatchTopic? {
        state.withLockedValue { s in
            guard let topic = s.watches.removeValue(forKey: subscription) else { return nil }
            s.drop(subscription)
            return topic
        }
    }

    /// Queues `line` for `subscription` if the watch still exists. `last`: the watch ends with
    /// it. `overflow` is the line that stands for a watch's reports left out.
    func post(_ subscription: String, _ line: [UInt8], last: Bool = false, maxQueuedBytes: Int, overflow: () -> [UInt8]) {
        let wakeNow = state.withLockedValue { s -> Bool in
            guard !s.closed, let topic = s.watches[subscription] else { return false }
            if last { s.watches[subscription] = nil }
            if topic.coalesces, let index = s.queue.firstIndex(where: { $0.subscription == subscription }) {
                s.queuedBytes += line.count - s.queue[index].line.count
                s.queue[index].line = line
            } else if s.overflowed.contains(subscription) {
                return false
            } else if !topic.coalesces, s.queuedBytes + line.count > maxQueuedBytes {
                s.drop(subscription)
                let marker = overflow()
                s.queue.append(Queued(subscription: subscription, line: marker))
                s.queuedBytes += marker.count
                s.overflowed.insert(subscription)
            } else {
                s.queue.append(Queued(subscription: subscription, line: line))
                s.queuedBytes += line.count
            }
            guard !s.wakeSent else { return false }
            s.wakeSent = true
            return true
        }
        if wakeNow { wake() }
    }

    /// Everything waiting, oldest first; the next post tells the connection again.
    func takeQueued() -> [Queued] {
        state.withLockedValue { s in
            defer {
                s.queue.removeAll()
                s.queuedBytes = 0
                s.overflowed.removeAll()
                s.wakeSent = false
            }
            return s.queue
        }
    }

    /// The connection is gone: its watches end, and nothing more is queued.
    func close() -> [String: WatchTopic] {
        state.withLockedValue { s in
            s.closed = true
            s.queue.removeAll()
            s.queuedBytes = 0
            defer { s.watches.removeAll() }
            return s.watches
        }
    }
}

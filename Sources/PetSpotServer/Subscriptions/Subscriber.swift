import NIOConcurrencyHelpers
import PetSpotProtocol

/// What a watch follows.
enum WatchTopic: Hashable, Sendable {
    case location
    case flow(String)
    /// The reports of this owner.
    case reports(UInt32)
    case relay
    /// The animal list.
    case animals

    /// A newer notification of such a watch makes an unsent older one pointless: only the
    /// latest waits. Reports and animals are each news of their own, and wait in order.
    var coalesces: Bool {
        switch self {
        case .reports, .animals: false
        case .location, .flow, .relay: true
        }
    }
}

/// One connection's watches and the notifications not yet handed to its socket.
///
/// Any thread posts (a flow change, a fix, a filed report); the connection's event loop takes
/// what waits when it may write: after the answer in hand, while its client reads. What waits
/// is bounded: one notification per coalescing watch, and reports within `maxQueuedBytes`,
/// past which a watch's waiting reports become one `overflow`. `queuedBytes` is that count.
/// It counts in the user's share of the memory budget as it grows, before the connection
/// writes anything: a report that would take the user past its share (or the daemon past its
/// budget) becomes its watch's `overflow` too, so that all the user's watches together wait
/// within its share.
final class Subscriber: Sendable {
    struct Queued: Sendable {
        let subscription: String
        var line: [UInt8]
        /// What the line says, apart from what is no news (a fix's time): see `post`.
        var key: [UInt8]? = nil
    }

    private struct State {
        var watches: [String: WatchTopic] = [:]
        var issued: UInt64 = 0
        var queue: [Queued] = []
        var queuedBytes = 0
        /// Room taken from the budget for the queue: `queuedBytes` once counted.
        var counted = 0
        /// Watches whose waiting reports became one `overflow`, until it is taken.
        var overflowed: Set<String> = []
        /// The newest revision each flow watch was given: an older view published late is skipped.
        var revisions: [String: UInt64] = [:]
        /// The key of the line each watch was last given, for those posted with one.
        var givenKeys: [String: [UInt8]] = [:]
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

        /// Takes room for `bytes` more if the share and the budget have it.
        mutating func reserve(_ bytes: Int, in budget: ClientMemoryBudget?, for uid: UInt32) -> Bool {
            guard let budget else { return true }
            guard budget.take(bytes, for: uid) == nil else { return false }
            counted += bytes
            return true
        }

        /// Counts what the queue grew or shrank by since the last count: what grew is there,
        /// whatever it costs.
        mutating func count(in budget: ClientMemoryBudget?, for uid: UInt32) {
            guard let budget, queuedBytes != counted else { return }
            if queuedBytes > counted {
                _ = budget.take(queuedBytes - counted, for: uid, force: true)
            } else {
                budget.giveBack(counted - queuedBytes, for: uid)
            }
            counted = queuedBytes
        }
    }

    let peer: Peer
    /// Where the waiting notifications count, against the share of `peer.uid`; nil where nothing
    /// is counted.
    private let budget: ClientMemoryBudget?
    private let state = NIOLockedValueBox(State())
    /// Tells the connection, on its event loop, that notifications wait.
    private let wake: @Sendable () -> Void

    init(peer: Peer, budget: ClientMemoryBudget? = nil, wake: @escaping @Sendable () -> Void) {
        self.peer = peer
        self.budget = budget
        self.wake = wake
    }

    /// Bytes of notifications waiting to be handed to the socket.
    var queuedBytes: Int { state.withLockedValue { $0.queuedBytes } }

    var watchCount: Int { state.withLockedValue { $0.watches.count } }

    /// The connection has closed.
    var isClosed: Bool { state.withLockedValue { $0.closed } }

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
            s.count(in: budget, for: peer.uid)
            s.revisions[subscription] = nil
            s.givenKeys[subscription] = nil
            return topic
        }
    }

    /// Queues `line` for `subscription` if the watch still exists. `last`: the watch ends with
    /// it. `revision`: a line older than one given before is skipped. `key`: a line whose key
    /// is that of the line last given replaces a waiting one by nothing, since the client
    /// already has it (A given, B waiting, A again: the client sees no B, and no second A).
    /// `overflow` is the line that stands for a watch's reports left out: past `maxQueuedBytes`
    /// of the connection, or past the user's share.
    func post(_ subscription: String, _ line: [UInt8], last: Bool = false, revision: UInt64? = nil, key: [UInt8]? = nil,
              maxQueuedBytes: Int, overflow: () -> [UInt8])
    {
        let wakeNow = state.withLockedValue { s -> Bool in
            defer { s.count(in: budget, for: peer.uid) }
            guard !s.closed, let topic = s.watches[subscription] else { return false }
            if let revision {
                if let given = s.revisions[subscription], given >= revision { return false }
                s.revisions[subscription] = revision
            }
            if last {
                s.watches[subscription] = nil
                s.revisions[subscription] = nil
            }
            let alreadyGiven = key != nil && s.givenKeys[subscription] == key
            if topic.coalesces, let index = s.queue.firstIndex(where: { $0.subscription == subscription }) {
                if alreadyGiven {
                    s.queuedBytes -= s.queue[index].line.count
                    s.queue.remove(at: index)
                    return false
                }
                s.queuedBytes += line.count - s.queue[index].line.count
                s.queue[index].line = line
                s.queue[index].key = key
            } else if alreadyGiven {
                return false
            } else if s.overflowed.contains(subscription) {
                return false
            } else if !topic.coalesces, s.queuedBytes + line.count > maxQueuedBytes || !s.reserve(line.count, in: budget, for: peer.uid) {
                s.drop(subscription)
                let marker = overflow()
                s.queue.append(Queued(subscription: subscription, line: marker))
                s.queuedBytes += marker.count
                s.overflowed.insert(subscription)
            } else {
                s.queue.append(Queued(subscription: subscription, line: topic.coalesces ? line : Self.compact(line), key: key))
                s.queuedBytes += line.count
            }
            guard !s.wakeSent else { return false }
            s.wakeSent = true
            return true
        }
        if wakeNow { wake() }
    }

    /// `line` in as many bytes as it has: the writer's array keeps room to grow, up to as much
    /// again, and reports may wait by the thousand.
    private static func compact(_ line: [UInt8]) -> [UInt8] {
        guard line.capacity - line.count > 64 else { return line }
        return [UInt8](unsafeUninitializedCapacity: line.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: line)
        }
    }

    /// `key` is what the watch's answer gave: a line with it is no news until another came.
    func given(_ key: [UInt8], for subscription: String) {
        state.withLockedValue { s in
            if s.watches[subscription] != nil { s.givenKeys[subscription] = key }
        }
    }

    /// Everything waiting, oldest first; the next post tells the connection again.
    func takeQueued() -> [Queued] {
        state.withLockedValue { s in
            for queued in s.queue {
                if let key = queued.key { s.givenKeys[queued.subscription] = key }
            }
            defer {
                s.queue.removeAll()
                s.queuedBytes = 0
                s.count(in: budget, for: peer.uid)
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
            s.count(in: budget, for: peer.uid)
            s.revisions.removeAll()
            s.givenKeys.removeAll()
            defer { s.watches.removeAll() }
            return s.watches
        }
    }
}

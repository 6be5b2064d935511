import FoundationEssentials
import Synchronization

/// Time that moves only when told to: what tests hand the daemon (through
/// `DaemonClock.manual`) so a timeout, an idle expiry or a rate-limit interval is reached by
/// advancing it, not by waiting. Wall time moves with it, and can also be set on its own, as
/// a step of the system clock would.
public final class ManualTime: Sendable {
    private typealias Sleeper = (deadline: DaemonInstant, continuation: CheckedContinuation<Void, any Error>)

    private struct State {
        var now: DaemonInstant
        var wall: Date
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered: they end at once when they are.
        /// (An id whose sleep already ended stays here harmlessly: ids are never reused.)
        /// (An id whose sleep already ended may land here too; harmless, ids are never reused.)
        var cancelledEarly: Set<Int> = []
        /// Those waiting for a number of sleepers to be asleep, by id.
        var watchers: [Int: (count: Int, continuation: CheckedContinuation<Void, any Error>)] = [:]
    }

    private let state: Mutex<State>

    public init(now: DaemonInstant = DaemonInstant(sinceOrigin: .seconds(1_000)),
                wall: Date = Date(timeIntervalSince1970: 1_795_000_000))
    {
        state = Mutex(State(now: now, wall: wall))
    }

    public var now: DaemonInstant { state.withLock { $0.now } }
    public var wallTime: Date { state.withLock { $0.wall } }

    /// How many sleeps are waiting for the time to move.
    public var sleepers: Int { state.withLock { $0.sleepers.count } }

    /// Moves monotonic and wall time on by `duration`, ending every sleep whose deadline comes,
    /// earliest first.
    public func advance(by duration: Duration) {
        precondition(duration >= .zero, "monotonic time never goes back")
        let due = state.withLock { s -> [Sleeper] in
            s.now = s.now.advanced(by: duration)
            s.wall = s.wall.addingTimeInterval(duration.timeInterval)
            let due = s.sleepers.filter { $0.value.deadline <= s.now }
            for id in due.keys { s.sleepers[id] = nil }
            return due.values.sorted { $0.deadline < $1.deadline }
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Steps the wall clock alone, as an administrator or NTP would; monotonic time stays.
    public func setWallTime(_ date: Date) {
        state.withLock { $0.wall = date }
    }

    /// Returns once at least `count` sleeps are waiting: then advancing the time reaches them.
    /// Throws if they are not there within `limit` of real time, so a test whose code under
    /// test never sleeps fails rather than hangs.
    public func waitForSleepers(_ count: Int, within limit: Duration = .seconds(10)) async throws {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = state.withLock { s in
                guard s.sleepers.count < count else { return true }
                s.watchers[id] = (count, continuation)
                return false
            }
            if ready { return continuation.resume() }
            Task { [self] in
                try? await Task.sleep(for: limit)
                let late = state.withLock { $0.watchers.removeValue(forKey: id) }
                late?.continuation.resume(throwing: SleepersMissing(expected: count, limit: limit))
            }
        }
    }

    public struct SleepersMissing: Error, CustomStringConvertible {
        public let expected: Int
        public let limit: Duration
        public var description: String { "fewer than \(expected) sleeps were waiting after \(limit)" }
    }

    func sleep(until deadline: DaemonInstant) async throws {
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (outcome, watchers) = state.withLock { s -> (Result<Void, any Error>?, [CheckedContinuation<Void, any Error>]) in
                    if s.cancelledEarly.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= s.now { return (.success(()), []) }
                    s.sleepers[id] = (deadline, continuation)
                    let count = s.sleepers.count
                    let ready = s.watchers.filter { $0.value.count <= count }
                    for id in ready.keys { s.watchers[id] = nil }
                    return (nil, ready.values.map(\.continuation))
                }
                if let outcome { continuation.resume(with: outcome) }
                for watcher in watchers { watcher.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { s -> Sleeper? in
                if let sleeper = s.sleepers.removeValue(forKey: id) { return sleeper }
                s.cancelledEarly.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}

extension Duration {
    /// Seconds as a floating-point number, for `Date` arithmetic.
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// The daemon's one source of time, handed in from its start: `system` in petspotd, a clock
/// on `ManualTime` in tests, so every deadline, age and "today" can be reached without waiting.
///
/// A `Clock` (monotonic, for deadlines, ages and timers) that also tells wall time (for "today"
/// and submission times) from the same source.
public struct DaemonClock: Clock, Sendable {
    public typealias Instant = DaemonInstant

    private enum Source: Sendable {
        case system
        case manual(ManualTime)
    }

    private let source: Source

    /// The machine's clocks: CLOCK_MONOTONIC (what systemd's MONOTONIC_USEC means) and the wall clock.
    public static let system = DaemonClock(source: .system)

    /// A clock that moves only when `time` is advanced.
    public static func manual(_ time: ManualTime) -> DaemonClock {
        DaemonClock(source: .manual(time))
    }

    private init(source: Source) {
        self.source = source
    }

    public var now: DaemonInstant {
        switch source {
        case .system:
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return DaemonInstant(sinceOrigin: .seconds(ts.tv_sec) + .nanoseconds(ts.tv_nsec))
        case .manual(let time):
            return time.now
        }
    }

    /// Wall time, for dates people read; never for a deadline or an age.
    public func wallTime() -> Date {
        switch source {
        case .system: Date()
        case .manual(let time): time.wallTime
        }
    }

    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: DaemonInstant, tolerance: Duration? = nil) async throws {
        switch source {
        case .system:
            let remaining = now.duration(to: deadline)
            guard remaining > .zero else { return try Task.checkCancellation() }
            try await Task.sleep(for: remaining, tolerance: tolerance, clock: .continuous)
        case .manual(let time):
            try await time.sleep(until: deadline)
        }
    }
}

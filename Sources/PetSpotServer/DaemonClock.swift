#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PetSpotFlow

/// The daemon's only sources of time, handed in so tests can set them.
public struct DaemonClock: Sendable {
    /// Wall time, for "today" and submission times.
    public let now: @Sendable () -> Date
    /// Monotonic nanoseconds, for idle timeouts (immune to wall-clock steps).
    public let monotonicNanos: @Sendable () -> UInt64

    public init(now: @escaping @Sendable () -> Date, monotonicNanos: @escaping @Sendable () -> UInt64) {
        self.now = now
        self.monotonicNanos = monotonicNanos
    }

    public static let system = DaemonClock(
        now: { Date() },
        monotonicNanos: {
            var ts = timespec()
            clock_gettime(CLOCK_MONOTONIC, &ts)
            return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        }
    )

    /// Today's date in `calendar`'s zone.
    public func today(in calendar: LocalCalendar) -> CalendarDate {
        calendar.day(of: now())
    }
}

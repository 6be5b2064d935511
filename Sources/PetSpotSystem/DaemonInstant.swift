/// A moment on the daemon's monotonic clock, as the time since that clock's origin (for the
/// system clock, CLOCK_MONOTONIC's). Deadlines and ages are reckoned with these, never with wall
/// time, so a step of the wall clock neither expires a flow nor makes a fix look fresh.
public struct DaemonInstant: InstantProtocol, Hashable, Sendable {
    public let sinceOrigin: Duration

    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    public func advanced(by duration: Duration) -> DaemonInstant {
        DaemonInstant(sinceOrigin: sinceOrigin + duration)
    }

    public func duration(to other: DaemonInstant) -> Duration {
        other.sinceOrigin - sinceOrigin
    }

    /// How long ago `earlier` was, seen from here; never negative, so an instant read out of
    /// order by another thread counts as no time at all rather than a huge one.
    public func elapsed(since earlier: DaemonInstant) -> Duration {
        earlier < self ? earlier.duration(to: self) : .zero
    }

    /// Whole microseconds since the origin: systemd's MONOTONIC_USEC, for the system clock.
    public var microsecondsSinceOrigin: Int64 {
        let (seconds, attoseconds) = sinceOrigin.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    public static func < (a: DaemonInstant, b: DaemonInstant) -> Bool {
        a.sinceOrigin < b.sinceOrigin
    }
}

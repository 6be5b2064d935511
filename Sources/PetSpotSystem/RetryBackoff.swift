/// How long to wait before the next attempt after a run of failures: doubling from `initial`,
/// never more than `maximum`, and from `initial` again after a success. A value without a
/// clock, so that its table can be tested; the caller does the waiting (the relay in a task,
/// the gpsd watch on its own thread, where a stop can wake it).
public struct RetryBackoff: Sendable, Equatable {
    public let initial: Duration
    public let maximum: Duration
    /// Failures in a row so far; 0 after a success.
    public private(set) var failures = 0

    public init(initial: Duration = .milliseconds(250), maximum: Duration = .seconds(30)) {
        precondition(initial > .zero && maximum > .zero)
        self.initial = initial
        self.maximum = maximum
    }

    /// The wait after `failures` failures in a row (1 for the first).
    public func delay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        var delay = min(initial, maximum)
        // Doubling stops at the cap, so a long outage never overflows.
        for _ in 1..<failures {
            delay *= 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// Counts one more failure and gives the wait before the next attempt.
    public mutating func failed() -> Duration {
        failures += 1
        return delay(afterFailures: failures)
    }

    public mutating func succeeded() {
        failures = 0
    }
}

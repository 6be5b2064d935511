import Logging
import PetSpotSystem
import NIOConcurrencyHelpers

/// Where faults are written: storage failures, internal errors, limits hit, refused connections.
/// One line per fault, naming who and what (uid, method, request id, flow id: the metadata of
/// the request's or the connection's logger it is recorded with); a flood of the same fault
/// becomes one line per `log.faultIntervalSeconds` with its count (`repeated=N`).
public final class FaultLog: Sendable {
    public struct Fault: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: Logger.Metadata
        /// The logger the fault is written with; nil: the daemon's own.
        public let logger: Logger?
    }

    public let interval: Duration
    private let logger: Logger
    private let clock: DaemonClock
    private let limiter: NIOLockedValueBox<FaultRateLimiter<Fault>>

    public init(logger: Logger, interval: Duration, clock: DaemonClock) {
        self.logger = logger
        self.interval = interval
        self.clock = clock
        limiter = NIOLockedValueBox(FaultRateLimiter(interval: max(.nanoseconds(1), interval)))
    }

    /// A fault happened. `key` says which faults count as the same one; `logger`, when given,
    /// writes it (a request's logger, whose metadata says whose request it was).
    public func record(_ key: String, _ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata = [:], logger: Logger? = nil) {
        let now = clock.now
        let fault = Fault(level: level, message: message, metadata: metadata, logger: logger)
        write(limiter.withLockedValue { $0.record(key, fault, at: now) })
    }

    /// A client hit a limit outside any one method (a batch too large, a line too long);
    /// `connection` is the connection's logger.
    func limitHit(_ limit: String, kind: String = "limitExceeded", connection: Logger, _ error: String) {
        record("\(kind) \(limit)", .warning, "request failed", ["kind": "\(kind)", "limit": "\(limit)", "error": "\(error)"], logger: connection)
    }

    /// Writes the counts of floods whose interval is over.
    public func flush() {
        let now = clock.now
        write(limiter.withLockedValue { $0.flush(at: now) })
    }

    /// Writes every count still held back, interval over or not: the daemon is stopping.
    public func drain() {
        write(limiter.withLockedValue { $0.drain() })
    }

    private func write(_ lines: [FaultRateLimiter<Fault>.Line]) {
        for line in lines {
            switch line {
            case .single(let fault):
                (fault.logger ?? logger).log(level: fault.level, "\(fault.message)", metadata: fault.metadata)
            case .repeated(let last, let count):
                var metadata = last.metadata
                metadata["repeated"] = "\(count)"
                metadata["interval"] = "\(interval.components.seconds)s"
                (last.logger ?? logger).log(level: last.level, "\(last.message)", metadata: metadata)
            }
        }
    }
}

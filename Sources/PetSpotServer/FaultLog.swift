import Logging
import Synchronization

/// Where faults are written: storage failures, internal errors, limits hit, refused connections.
/// One line per fault, naming who and what (uid, method, flow id); a flood of the same fault
/// becomes one line per `log.faultIntervalSeconds` with its count (`repeated=N`).
public final class FaultLog: Sendable {
    public struct Fault: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: Logger.Metadata
    }

    public let interval: Duration
    private let logger: Logger
    private let monotonicNanos: @Sendable () -> UInt64
    private let limiter: Mutex<FaultRateLimiter<Fault>>

    public init(logger: Logger, interval: Duration, monotonicNanos: @escaping @Sendable () -> UInt64) {
        self.logger = logger
        self.interval = interval
        self.monotonicNanos = monotonicNanos
        let nanos = UInt64(interval.components.seconds) * 1_000_000_000 + UInt64(interval.components.attoseconds / 1_000_000_000)
        limiter = Mutex(FaultRateLimiter(intervalNanos: max(1, nanos)))
    }

    /// A fault happened. `key` says which faults count as the same one.
    public func record(_ key: String, _ level: Logger.Level, _ message: String, _ metadata: Logger.Metadata = [:]) {
        let now = monotonicNanos()
        let fault = Fault(level: level, message: message, metadata: metadata)
        write(limiter.withLock { $0.record(key, fault, at: now) })
    }

    /// A client hit a limit outside any one method (a batch too large, a line too long).
    func limitHit(_ limit: String, kind: String = "limitExceeded", peer: Peer, _ error: String) {
        record("\(kind) \(limit)", .warning, "request failed",
               ["uid": "\(peer.uid)", "pid": "\(peer.pid)", "kind": "\(kind)", "limit": "\(limit)", "error": "\(error)"])
    }

    /// Writes the counts of floods whose interval is over.
    public func flush() {
        let now = monotonicNanos()
        write(limiter.withLock { $0.flush(at: now) })
    }

    /// Writes every count still held back, interval over or not: the daemon is stopping.
    public func drain() {
        write(limiter.withLock { $0.drain() })
    }

    private func write(_ lines: [FaultRateLimiter<Fault>.Line]) {
        for line in lines {
            switch line {
            case .single(let fault):
                logger.log(level: fault.level, "\(fault.message)", metadata: fault.metadata)
            case .repeated(let last, let count):
                var metadata = last.metadata
                metadata["repeated"] = "\(count)"
                metadata["interval"] = "\(interval.components.seconds)s"
                logger.log(level: last.level, "\(last.message)", metadata: metadata)
            }
        }
    }
}

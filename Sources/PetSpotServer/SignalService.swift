import Logging
import ServiceLifecycle
import UnixSignals

/// A second SIGTERM or SIGINT came while the daemon drained: it stopped without waiting.
public struct StopCutShort: Error, CustomStringConvertible {
    public let signal: UnixSignal

    /// 128 + the signal's number, as a shell reports a process the signal ended.
    public var exitStatus: Int32 { 128 + signal.rawValue }

    public var description: String { "stopped by a second \(signal.name) before every connection had finished" }
}

extension UnixSignal {
    var name: String { "\(self)".uppercased() }
}

/// The daemon's signals, for its whole life: SIGHUP reloads; the first SIGTERM or SIGINT stops
/// the services gracefully; another one while they stop ends the wait at once.
struct SignalService<Signals: AsyncSequence & Sendable>: Service where Signals.Element == UnixSignal, Signals.Failure == Never {
    let signals: Signals
    let services: ServiceGroup
    let reload: @Sendable () -> Void
    let logger: Logger

    func run() async throws(StopCutShort) {
        var stopping = false
        for await signal in signals.cancelOnGracefulShutdown() {
            if signal == .sighup {
                // Once stopping, a reload could only start what is being stopped.
                if stopping {
                    logger.notice("stopping: not reloading", metadata: ["signal": "SIGHUP"])
                } else {
                    reload()
                }
            } else if !stopping {
                stopping = true
                logger.info("received signal", metadata: ["signal": "\(signal.name)"])
                await services.triggerGracefulShutdown()
            } else {
                logger.warning("received signal again: stopping now", metadata: ["signal": "\(signal.name)"])
                throw StopCutShort(signal: signal)
            }
        }
    }
}

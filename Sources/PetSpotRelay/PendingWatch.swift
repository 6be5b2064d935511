#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import PetSpotClient
import PetSpotProtocol

/// petspotd's `relay.pending`, on a connection of its own: the relay sleeps until reports are
/// filed rather than asking every poll interval, and the poll stays only as a safety net (for
/// claims that expired, or a daemon too old to watch).
///
/// The watch is read with the blocking `PetSpotConnection` on a thread of its own, as
/// `DaemonLink` reads its calls, and for the same reasons; a stop shuts its socket down under it.
public final class PendingWatch: Sendable {
    private struct State {
        /// Reports were filed since the relay last waited.
        var filed = false
        var waiter: CheckedContinuation<Void, Never>?
        /// The socket the thread reads, while it reads.
        var descriptor: Int32 = -1
        var stopped = false
    }

    private let socketPath: String
    private let logger: Logger
    private let pool = NIOThreadPool(numberOfThreads: 1)
    private let state = NIOLockedValueBox(State())
    /// Cuts the wait before the next try short when the relay stops.
    private let wake = DispatchSemaphore(value: 0)

    public init(socketPath: String, logger: Logger) {
        self.socketPath = socketPath
        self.logger = logger
    }

    /// Starts watching; a watch that fails is made again after `retry`.
    public func start(retry: Duration) {
        pool.start()
        pool.submit { [self] _ in watch(retry: retry) }
    }

    /// Ends the watch and wakes a waiting relay.
    public func stop() async {
        let waiter = state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            s.stopped = true
            if s.descriptor >= 0 { shutdown(s.descriptor, Int32(SHUT_RDWR)) }
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume()
        wake.signal()
        try? await pool.shutdownGracefully()
    }

    /// Returns once reports are filed (at once if some were since the last wait), after
    /// `timeout` at the latest, or when the calling task is cancelled.
    public func waitForFiled(atMost timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: timeout) }
            group.addTask { await self.filed() }
            await group.next()
            group.cancelAll()
        }
    }

    private func filed() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { s -> Bool in
                    if s.filed || s.stopped || Task.isCancelled {
                        s.filed = false
                        return true
                    }
                    s.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
                defer { s.waiter = nil }
                return s.waiter
            }?.resume()
        }
    }

    private func reportsFiled() {
        state.withLockedValue { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.filed = true
                return nil
            }
            s.waiter = nil
            return waiter
        }?.resume()
    }

    // MARK: the watch (its own thread)

    private func watch(retry: Duration) {
        var told = false
        while !state.withLockedValue({ $0.stopped }) {
            let reason: String
            do throws(ClientError) {
                let connection = try PetSpotConnection(socketPath: socketPath, timeout: .seconds(30))
                defer { connection.close() }
                guard connection.withDescriptor({ fd in
                    state.withLockedValue { s in
                        guard !s.stopped else { return false }
                        s.descriptor = fd
                        return true
                    }
                }) else { return }
                defer { state.withLockedValue { $0.descriptor = -1 } }
                switch try connection.call(RelayWatch.self) {
                case .success(let watch):
                    told = false
                    logger.debug("watching petspotd for filed reports", metadata: ["pending": "\(watch.pending)"])
                    // A report filed while the watch was down is claimed now.
                    reportsFiled()
                    var ended: WatchEnded.Params?
                    while ended == nil {
                        guard let notification = try connection.nextNotification() else { continue }
                        if try notification.reading(RelayPending.self) != nil { reportsFiled() }
                        ended = try notification.reading(WatchEnded.self)
                    }
                    // A reload took the relay's user out of relay.group: its claims say so too.
                    reason = "petspotd ended relay.watch: \(ended?.message ?? "")"
                case .failure(let error):
                    reason = "petspotd refused relay.watch: \(error.message)"
                }
            } catch {
                reason = error.description
            }
            if state.withLockedValue({ $0.stopped }) { return }
            if !told {
                told = true
                logger.notice("not watching petspotd for filed reports; polling until the watch is back", metadata: ["reason": "\(reason)"])
            }
            let microseconds = Int(min(retry.components.seconds, 3_600)) * 1_000_000 + Int(retry.components.attoseconds / 1_000_000_000_000)
            _ = wake.wait(timeout: .now() + .microseconds(microseconds))
        }
    }
}

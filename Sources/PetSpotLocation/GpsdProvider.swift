import CGPS
import Dispatch
import FoundationEssentials
import Logging
import PetSpotFlow
import PetSpotJSON
import PetSpotSystem
import NIOConcurrencyHelpers
import PetSpotViews

/// Real fixes from gpsd through libgps.
///
/// One watch runs on a thread of its own (libgps blocks; an event loop never does) and keeps
/// the newest valid fix. A request is answered at once from a fix younger than its maximum age,
/// otherwise it waits for the next fix up to its timeout. When the fix is lost, or gpsd goes
/// away, nothing is served: never an old position as a current one. A lost connection is
/// retried with capped exponential backoff, and each change of state is logged once.
public final class GpsdProvider: LocationProvider {
    public struct Settings: Sendable, Equatable {
        public var host: String
        public var port: Int
        public var reconnectInitial: Duration
        public var reconnectMax: Duration
        /// How long one wait for data lasts before the watch checks whether it should stop.
        public var pollInterval: Duration
        /// The watch thread's name in `ps -L` and /proc (15 bytes at most).
        public var threadName: String

        public init(host: String = "127.0.0.1", port: Int = 2947, reconnectInitial: Duration = .milliseconds(250),
                    reconnectMax: Duration = .seconds(10), pollInterval: Duration = .milliseconds(250),
                    threadName: String = "petspotd-gpsd")
        {
            self.host = host
            self.port = port
            self.reconnectInitial = reconnectInitial
            self.reconnectMax = reconnectMax
            self.pollInterval = pollInterval
            self.threadName = threadName
        }
    }

    public let name = "gpsd"
    public let settings: Settings
    private let logger: Logger
    /// Ages and timeouts on its monotonic time; wall time for a fix whose receiver reported no time of its own.
    private let clock: DaemonClock
    private let state: NIOLockedValueBox<WatchState>
    private let wake = DispatchSemaphore(value: 0)

    private struct Newest {
        let fix: LocationFix
        let fixTime: (seconds: Int64, nanoseconds: Int)
        let receivedAt: DaemonInstant
    }

    private enum Link: Equatable {
        case connecting, connected, disconnected
    }

    private struct WatchState {
        var link: Link = .connecting
        var newest: Newest?
        var lastFixAt: DaemonInstant?
        var lastError: String?
        var waiters: [UInt64: CheckedContinuation<ProviderAnswer, Never>] = [:]
        /// Each waiter's timeout, cancelled when a fix or a disconnect answers it first.
        var timers: [UInt64: Task<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var started = false
        var stopping = false
        /// Told of every change of what `answerNow` gives.
        var observers: [@Sendable () -> Void] = []
    }

    public init(settings: Settings, logger: Logger, clock: DaemonClock) {
        self.settings = settings
        self.logger = logger
        self.clock = clock
        self.state = NIOLockedValueBox(WatchState())
    }

    /// Starts the watch on its own thread, once; a provider already stopped stays stopped.
    public func start() {
        let start = state.withLockedValue { s in
            defer { s.started = true }
            return !s.started && !s.stopping
        }
        if start { DetachedThread.start(named: settings.threadName) { [self] in watch() } }
    }

    private var endpoint: String { "\(settings.host):\(settings.port)" }

    // MARK: requests

    public func answerNow(maxAge: Duration) -> ProviderAnswer {
        state.withLockedValue { s in
            if let newest = s.newest, clock.now.elapsed(since: newest.receivedAt) <= max(.zero, maxAge) {
                return .fix(newest.fix)
            }
            guard s.link != .disconnected, !s.stopping else {
                return .unavailable(reason: "not connected to gpsd at \(endpoint)\(s.lastError.map { ": \($0)" } ?? "")")
            }
            return .timeout
        }
    }

    public func onChange(_ changed: @escaping @Sendable () -> Void) {
        state.withLockedValue { $0.observers.append(changed) }
    }

    private func changed() {
        for observer in state.withLockedValue({ $0.observers }) { observer() }
    }

    public func currentFix(timeout: Duration, maxAge: Duration) async -> ProviderAnswer {
        let waiterID: UInt64 = state.withLockedValue { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<ProviderAnswer, Never>) in
            let immediate: ProviderAnswer? = state.withLockedValue { s in
                if let newest = s.newest, clock.now.elapsed(since: newest.receivedAt) <= max(.zero, maxAge) {
                    return .fix(newest.fix)
                }
                // While connecting, or connected without a fix yet, wait for one; only a link
                // known to be down answers at once.
                guard s.link != .disconnected, !s.stopping else {
                    return .unavailable(reason: "not connected to gpsd at \(endpoint)\(s.lastError.map { ": \($0)" } ?? "")")
                }
                s.waiters[waiterID] = continuation
                return nil
            }
            if let immediate {
                continuation.resume(returning: immediate)
            } else {
                expire(waiterID, after: timeout)
            }
        }
        return answer
    }

    /// Arms the timeout of a waiting request; it answers `timeout` only if no fix or
    /// disconnect answered first, and is cancelled when one does.
    private func expire(_ waiterID: UInt64, after timeout: Duration) {
        let timer = Task { [self] in
            try? await clock.sleep(for: timeout)
            guard !Task.isCancelled else { return }
            let waiter = state.withLockedValue { s in
                s.timers[waiterID] = nil
                return s.waiters.removeValue(forKey: waiterID)
            }
            waiter?.resume(returning: .timeout)
        }
        let answered = state.withLockedValue { s in
            guard s.waiters[waiterID] != nil else { return true }
            s.timers[waiterID] = timer
            return false
        }
        if answered { timer.cancel() }
    }

    /// Takes every waiting request out of the state, cancelling their timers.
    private static func takeWaiters(_ s: inout WatchState) -> [CheckedContinuation<ProviderAnswer, Never>] {
        for timer in s.timers.values { timer.cancel() }
        s.timers.removeAll()
        defer { s.waiters.removeAll() }
        return Array(s.waiters.values)
    }

    public func status() async -> ProviderStatus {
        return state.withLockedValue { s in
            let now = clock.now
            let age = s.lastFixAt.map { now.elapsed(since: $0).milliseconds }
            let link: ProviderStatus.State = switch s.link {
            case .connected: s.newest == nil ? .noFix : .connected
            case .connecting, .disconnected: .disconnected
            }
            return ProviderStatus(name: name, state: link, lastFixAgeMs: age, lastError: s.lastError, detail: endpoint)
        }
    }

    /// Ends the watch (its thread notices within `pollInterval`); waiting requests are
    /// answered `unavailable`.
    public func stop() {
        let waiters = state.withLockedValue { s in
            s.stopping = true
            return Self.takeWaiters(&s)
        }
        for waiter in waiters { waiter.resume(returning: .unavailable(reason: "the location service is stopping")) }
        wake.signal()
    }

    // MARK: the watch (its own thread)

    private func watch() {
        var backoff = RetryBackoff(initial: settings.reconnectInitial, maximum: settings.reconnectMax)
        while !state.withLockedValue({ $0.stopping }) {
            guard let data = petspot_gps_new() else {
                linkDown("out of memory for the gpsd connection")
                break
            }
            defer { petspot_gps_free(data) }
            if petspot_gps_open_watch(data, settings.host, String(settings.port)) != 0 {
                linkDown(Self.describeOpenError(petspot_errno()))
                waitBeforeRetry(&backoff)
                continue
            }
            let reason = readUntilLost(data, backoff: &backoff)
            petspot_gps_close(data, reason == nil)
            linkDown(reason)
            if reason != nil { waitBeforeRetry(&backoff) }
        }
    }

    /// Reads until the connection ends; returns why (nil when asked to stop). The link counts
    /// as up, and the backoff starts over, only once gpsd has sent something: a port that
    /// accepts and hangs up at once is retried with growing waits, like one that refuses.
    private func readUntilLost(_ data: UnsafeMutablePointer<gps_data_t>, backoff: inout RetryBackoff) -> String? {
        let pollMicros = Int32(clamping: settings.pollInterval.milliseconds * 1000)
        var up = false
        while !state.withLockedValue({ $0.stopping }) {
            guard petspot_gps_waiting(data, pollMicros) else { continue }
            var snapshot = petspot_gps_snapshot()
            let result = petspot_gps_read(data, &snapshot)
            if result == -1 {
                let code = petspot_errno()
                return code == 0 ? "gpsd closed the connection" : String(cString: strerror(code))
            }
            guard result > 0 else { continue }
            if !up {
                up = true
                backoff.succeeded()
                linkUp()
            }
            take(snapshot)
        }
        return nil
    }

    private func take(_ snapshot: petspot_gps_snapshot) {
        if snapshot.has_position {
            guard let latitude = DecimalLiteral(snapshot.latitude).flatMap(Coordinate.init),
                  let longitude = DecimalLiteral(snapshot.longitude).flatMap(Coordinate.init),
                  abs(latitude.scaled) <= 9_000_000, abs(longitude.scaled) <= 18_000_000
            else { return }
            let fixTime = (seconds: Int64(snapshot.time_sec), nanoseconds: snapshot.time_nsec)
            let time = fixTime.seconds == 0 ? clock.wallTime() : Date(timeIntervalSince1970: Double(fixTime.seconds) + Double(fixTime.nanoseconds) / 1e9)
            let accuracy = snapshot.horizontal_error_m.isFinite ? (snapshot.horizontal_error_m * 10).rounded() / 10 : nil
            let fix = LocationFix(latitude: latitude, longitude: longitude, source: name,
                                  time: ISO8601.string(time), accuracyMetres: accuracy)
            let received = clock.now
            let (waiters, acquired) = state.withLockedValue { s -> ([CheckedContinuation<ProviderAnswer, Never>], Bool) in
                // gpsd may report one fix time several times (a receiver's RMC then its GGA, or
                // one reporting twice a second): serve the latest report, as `gpspipe -w` shows
                // it last, but age it from the first, so that a receiver stuck on one time goes
                // stale. A repeat is no new fix, so it answers no request waiting for one.
                if let newest = s.newest, newest.fixTime == fixTime, fixTime.seconds != 0 {
                    s.newest = Newest(fix: fix, fixTime: fixTime, receivedAt: newest.receivedAt)
                    return ([], false)
                }
                let acquired = s.newest == nil
                s.newest = Newest(fix: fix, fixTime: fixTime, receivedAt: received)
                s.lastFixAt = received
                return (Self.takeWaiters(&s), acquired)
            }
            if acquired { logger.info("gpsd has a fix", metadata: ["gpsd": "\(endpoint)"]) }
            for waiter in waiters { waiter.resume(returning: .fix(fix)) }
            changed()
        } else if snapshot.mode_reported, snapshot.mode < 2 {
            let lost = state.withLockedValue { s -> Bool in
                defer { s.newest = nil }
                return s.newest != nil
            }
            if lost {
                logger.notice("gpsd lost its fix", metadata: ["gpsd": "\(endpoint)"])
                changed()
            }
        }
    }

    private func linkUp() {
        state.withLockedValue { s in
            s.link = .connected
            s.lastError = nil
        }
        logger.info("connected to gpsd", metadata: ["gpsd": "\(endpoint)"])
        changed()
    }

    /// Marks the link down; logs only when that is news, not on every retry.
    private func linkDown(_ reason: String?) {
        let (changed, waiters) = state.withLockedValue { s -> (Bool, [CheckedContinuation<ProviderAnswer, Never>]) in
            let changed = s.link != .disconnected || s.lastError != reason
            s.link = .disconnected
            s.newest = nil
            if let reason { s.lastError = reason }
            return (changed, Self.takeWaiters(&s))
        }
        let answer = ProviderAnswer.unavailable(reason: "lost gpsd at \(endpoint)\(reason.map { ": \($0)" } ?? "")")
        for waiter in waiters { waiter.resume(returning: answer) }
        if changed { self.changed() }
        if changed, let reason {
            logger.warning("gpsd unavailable; retrying with backoff", metadata: ["gpsd": "\(endpoint)", "error": "\(reason)"])
        }
    }

    private func waitBeforeRetry(_ backoff: inout RetryBackoff) {
        _ = wake.wait(timeout: .now() + .milliseconds(backoff.failed().milliseconds))
    }

    private static func describeOpenError(_ code: Int32) -> String {
        if code < 0 { return String(cString: gps_errstr(code)) }
        if code == 0 { return "cannot connect" }
        return String(cString: strerror(code))
    }
}

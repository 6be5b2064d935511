#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import PetSpotProtocol
import ServiceLifecycle

/// The delivery loop: claim a batch from the daemon, store it centrally, and only once
/// PostgreSQL has committed it acknowledge it to the daemon. Either side may be away at any
/// step; the loop waits (capped exponential backoff) and goes on where it stood, so that a
/// report is acknowledged only once stored, and stored once however often it is sent.
public final class RelayService: Service, Sendable {
    public struct Settings: Sendable {
        public var box: String
        public var batchSize: Int
        public var pollInterval: Duration
        public var retryMaxDelay: Duration
        public var stateFile: String?

        public init(box: String, batchSize: Int, pollInterval: Duration, retryMaxDelay: Duration, stateFile: String?) {
            self.box = box
            self.batchSize = batchSize
            self.pollInterval = pollInterval
            self.retryMaxDelay = retryMaxDelay
            self.stateFile = stateFile
        }
    }

    private let settings: Settings
    private let daemon: DaemonLink
    private let database: CentralDatabase
    private let logger: Logger
    private let recorder: StateRecorder

    public init(settings: Settings, daemon: DaemonLink, database: CentralDatabase, logger: Logger,
                wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.daemon = daemon
        self.database = database
        self.logger = logger
        recorder = StateRecorder(box: settings.box, file: settings.stateFile.map(StateFile.init(path:)), logger: logger, wallClock: wallClock)
    }

    public func run() async throws {
        logger.notice("relay started", metadata: [
            "box": "\(settings.box)", "socket": "\(daemon.socketPath)", "postgres": "\(database.url.redacted)",
            "batchSize": "\(settings.batchSize)",
        ])
        await recorder.flush()
        var daemonBackoff = RetryBackoff(maximum: settings.retryMaxDelay)
        var postgresBackoff = RetryBackoff(maximum: settings.retryMaxDelay)
        // Connect (and migrate) before the first claim, so that a relay that cannot reach its
        // database does not hold claims it cannot deliver.
        while !Task.isShuttingDownGracefully {
            do {
                try await database.connect()
                await recorder.postgres(.reachable)
                postgresBackoff.succeeded()
                break
            } catch {
                await recorder.postgres(.unreachable(reason: error.reason, kind: error.kind.rawValue))
                await pause(postgresBackoff.failed())
            }
        }

        while !Task.isShuttingDownGracefully {
            let batch: ClaimBatch
            do {
                batch = try await daemon.claim(limit: settings.batchSize)
                await recorder.daemon(.reachable)
                daemonBackoff.succeeded()
            } catch {
                await recorder.daemon(.unreachable(reason: "\(error)", kind: Self.kind(of: error)))
                await pause(daemonBackoff.failed())
                continue
            }
            await recorder.pending(batch.pending)
            guard !batch.reports.isEmpty else {
                await recorder.settle()
                await pause(settings.pollInterval)
                continue
            }

            // Write until PostgreSQL has it; the claim may expire meanwhile, which costs at
            // most a second copy that the database ignores.
            var outcome: CentralDatabase.WriteOutcome?
            while outcome == nil, !Task.isShuttingDownGracefully {
                do {
                    outcome = try await database.write(batch.reports, box: settings.box)
                    await recorder.postgres(.reachable)
                    postgresBackoff.succeeded()
                } catch {
                    await recorder.postgres(.unreachable(reason: error.reason, kind: error.kind.rawValue))
                    await pause(postgresBackoff.failed())
                }
            }
            guard let outcome else { break }

            let ids = batch.reports.map(\.id)
            var acknowledged = false, known = true
            while !acknowledged, !Task.isShuttingDownGracefully {
                do {
                    try await daemon.acknowledge(ids)
                    acknowledged = true
                    await recorder.daemon(.reachable)
                    daemonBackoff.succeeded()
                } catch let refused as DaemonRefused where refused.error.kind == .invalidParams {
                    // An id the daemon no longer knows (its database replaced from a backup):
                    // it marked none of them. Asking again would fail forever; the known ones
                    // are claimed, stored (again, ignored) and acknowledged in a later batch.
                    logger.warning("petspotd does not know a report of the batch; its reports stay stored centrally", metadata: [
                        "reason": "\(refused.error.message)",
                    ])
                    acknowledged = true
                    known = false
                } catch {
                    await recorder.daemon(.unreachable(reason: "\(error)", kind: Self.kind(of: error)))
                    await pause(daemonBackoff.failed())
                }
            }
            guard acknowledged else { break }
            if known { await recorder.delivered(ids.count, outcome: outcome) }
        }
        await recorder.flush()
        await database.close()
        await daemon.shutdown()
        logger.notice("relay stopped")
    }

    /// "refused" when the daemon answered with an error that retrying will not cure by itself
    /// (not in relay.group, a batch size over its limit); "unreachable" for a daemon that is
    /// away or stopping.
    static func kind(of error: any Error) -> String {
        guard let refused = error as? DaemonRefused, refused.error.kind != .shuttingDown else { return "unreachable" }
        return "refused"
    }

    /// Waits, unless a graceful stop comes first.
    private func pause(_ delay: Duration) async {
        try? await cancelWhenGracefulShutdown {
            try await Task.sleep(for: delay)
        }
    }
}

/// The relay's state as it goes: logs each change of a side's reachability once and keeps the
/// state file current (at most once a second for deliveries, at once for a change).
actor StateRecorder {
    private var state: RelayState
    private let file: StateFile?
    private let logger: Logger
    private let wallClock: @Sendable () -> Date
    private let monotonic = ContinuousClock()
    private var lastWrite: ContinuousClock.Instant?
    private var unwritten = false

    init(box: String, file: StateFile?, logger: Logger, wallClock: @escaping @Sendable () -> Date) {
        self.file = file
        self.logger = logger
        self.wallClock = wallClock
        state = RelayState(box: box, pid: getpid(), startedAt: Self.iso(wallClock()))
    }

    private static let style = Date.ISO8601FormatStyle()
    static func iso(_ date: Date) -> String { style.format(date) }

    func daemon(_ next: LinkState) {
        if case .unreachable(let reason, _) = next { noteError("petspotd: \(reason)") }
        guard state.daemon.move(to: next) else { return save(now: false) }
        switch next {
        case .reachable: logger.notice("petspotd reachable")
        case .unreachable(let reason, let kind):
            // Away is a warning (it comes back by itself); a refusal needs someone to act.
            if kind == "refused" {
                logger.error("petspotd refuses the relay; retrying with backoff", metadata: ["reason": "\(reason)"])
            } else {
                logger.warning("petspotd unreachable; retrying with backoff", metadata: ["reason": "\(reason)"])
            }
        case .unknown: break
        }
        save(now: true)
    }

    func postgres(_ next: LinkState) {
        if case .unreachable(let reason, _) = next { noteError("PostgreSQL: \(reason)") }
        guard state.postgres.move(to: next) else { return save(now: false) }
        switch next {
        case .reachable: logger.notice("PostgreSQL reachable")
        case .unreachable(let reason, let kind):
            let what = switch kind {
            case CentralDatabaseError.Kind.tls.rawValue: "PostgreSQL TLS refused"
            case CentralDatabaseError.Kind.server.rawValue: "PostgreSQL refused the relay"
            case CentralDatabaseError.Kind.schema.rawValue: "PostgreSQL schema not usable"
            default: "PostgreSQL unreachable"
            }
            // Away is a warning (a box on the move loses its network); a refusal needs someone to act.
            logger.log(level: what == "PostgreSQL unreachable" ? .warning : .error,
                       "\(what); retrying with backoff", metadata: ["reason": "\(reason)"])
        case .unknown: break
        }
        save(now: true)
    }

    func pending(_ count: Int) {
        guard state.pending != count else { return }
        state.pending = count
        save(now: false)
    }

    func delivered(_ count: Int, outcome: CentralDatabase.WriteOutcome) {
        state.delivered += count
        state.storedNew += outcome.inserted
        state.alreadyStored += outcome.alreadyStored
        state.lastDeliveryAt = Self.iso(wallClock())
        if outcome.alreadyStored > 0 {
            logger.debug("batch delivered; some reports were already stored centrally", metadata: [
                "reports": "\(count)", "alreadyStored": "\(outcome.alreadyStored)",
            ])
        } else {
            logger.debug("batch delivered", metadata: ["reports": "\(count)"])
        }
        save(now: false)
    }

    func flush() {
        save(now: true)
    }

    /// Writes what a throttled save left unwritten: called when the relay goes idle.
    func settle() {
        if unwritten { save(now: true) }
    }

    private func noteError(_ text: String) {
        state.lastError = text
        state.lastErrorAt = Self.iso(wallClock())
    }

    private func save(now: Bool) {
        unwritten = true
        guard let file else { return }
        let instant = monotonic.now
        if !now, let lastWrite, lastWrite.duration(to: instant) < .seconds(1) { return }
        state.updatedAt = Self.iso(wallClock())
        do {
            try file.write(state)
            lastWrite = instant
            unwritten = false
        } catch {
            logger.warning("cannot write the state file", metadata: ["path": "\(file.path)", "reason": "\(error)"])
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import PetSpotJSON
import PetSpotProtocol
import PetSpotLogging
import PetSpotSystem
import ServiceLifecycle

/// The delivery loop: claim a batch from the daemon, store it centrally, and only once
/// PostgreSQL has committed it acknowledge it to the daemon. Either side may be away at any
/// step; the loop waits (capped exponential backoff) and goes on where it stood, so that a
/// report is acknowledged only once stored, and stored once however often it is sent.
public final class RelayService: Service, Sendable {
    public struct Settings: Sendable {
        /// The box the daemon must name (`--box`): a check, so that a relay set up for one box
        /// never stores another's reports under its name; nil: whatever `box.name` the daemon has.
        public var box: String?
        public var batchSize: Int
        public var pollInterval: Duration
        public var retryMaxDelay: Duration
        public var stateFile: String?
        /// The fleet's list coming down: nil, off; else the radius (nil: every box's) and the
        /// photo bytes of a page.
        public var fleet: (radiusKm: Double?, pagePhotoBytes: Int)?

        public init(box: String?, batchSize: Int, pollInterval: Duration, retryMaxDelay: Duration, stateFile: String?,
                    fleet: (radiusKm: Double?, pagePhotoBytes: Int)? = nil) {
            self.box = box
            self.batchSize = batchSize
            self.pollInterval = pollInterval
            self.retryMaxDelay = retryMaxDelay
            self.stateFile = stateFile
            self.fleet = fleet
        }
    }

    private let settings: Settings
    private let daemon: DaemonLink
    private let database: CentralDatabase
    private let logger: Logger
    private let recorder: StateRecorder
    private let filed: PendingWatch

    public init(settings: Settings, daemon: DaemonLink, database: CentralDatabase, logger: Logger,
                wallClock: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.daemon = daemon
        self.database = database
        self.logger = logger
        filed = PendingWatch(socketPath: daemon.socketPath, logger: logger)
        // The state names a box once the daemon has told it (--box is only what it must be).
        recorder = StateRecorder(box: nil, file: settings.stateFile.map(StateFile.init(path:)), logger: logger, wallClock: wallClock)
    }

    public func run() async throws {
        await withDiscardingTaskGroup { group in
            if let fleet = settings.fleet {
                let downlink = FleetDownlink(
                    settings: .init(radiusKm: fleet.radiusKm, batchSize: settings.batchSize, maxPagePhotoBytes: fleet.pagePhotoBytes,
                                    pollInterval: settings.pollInterval, retryMaxDelay: settings.retryMaxDelay),
                    // Connections of their own: a page waits on neither a claim nor a write.
                    daemon: DaemonLink(socketPath: daemon.socketPath), feed: FleetFeed(target: database.target, logger: logger),
                    recorder: recorder, logger: logger, expectedBox: settings.box,
                    previousScan: settings.stateFile.flatMap { try? StateFile(path: $0).read() }?.fleet?.scan)
                group.addTask { await downlink.run() }
            }
            await deliver()
        }
        await recorder.flush()
        logger.notice("relay stopped")
    }

    /// Reports up: claimed from the daemon, stored centrally, acknowledged.
    private func deliver() async {
        logger.notice("relay started", metadata: [
            "box": "\(settings.box ?? "the daemon's")", "socket": "\(daemon.socketPath)", "postgres": "\(database.target.masked)",
            "batchSize": "\(settings.batchSize)",
            "fleet": "\(settings.fleet.map { f in f.radiusKm.map { "within \($0) km" } ?? "every box's" } ?? "off")",
        ])
        await recorder.flush()
        filed.start(retry: min(settings.pollInterval, settings.retryMaxDelay))
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

        var withheld = WithheldReports(maximumDelay: settings.retryMaxDelay)
        // Each time the relay goes idle after a delivery, the program's pages go back: what a
        // burst ran (libpq, the claim's JSON) would otherwise stay resident as the relay's own
        // memory until the next burst, and the next burst maps them again from the page cache.
        var pages = PageRelease.dueAtStart
        // The daemon's box name, and the connection it was asked on: asked again on any new
        // connection (a restarted daemon may have another), so every report is stored under the
        // name of the daemon that handed it out.
        var knownBox: (name: String, connection: Int)?
        while !Task.isShuttingDownGracefully {
            guard await box(&knownBox, backoff: &daemonBackoff) != nil else { continue }
            let batch: ClaimBatch
            do {
                // A claim that hangs (a daemon that stopped answering) must not hold up a stop.
                batch = try await cancelWhenGracefulShutdown { [daemon, settings] in try await daemon.claim(limit: settings.batchSize) }
                await recorder.daemon(.reachable)
                daemonBackoff.succeeded()
            } catch {
                if Task.isShuttingDownGracefully { break }
                await recorder.daemon(.unreachable(reason: "\(error)", kind: Self.kind(of: error)))
                await pause(daemonBackoff.failed())
                continue
            }
            // Claimed on a connection the name was not asked on: asked first. Unstored, the
            // batch is handed out again once its claim expires.
            guard let box = await box(&knownBox, backoff: &daemonBackoff) else { continue }
            await recorder.pending(batch.pending)
            // Reports PostgreSQL dropped before wait out their backoff: left unacknowledged, the
            // daemon hands them out again once their claim expires; the others go on meanwhile.
            let due = batch.reports.filter { withheld.isDue($0.id) }
            guard !due.isEmpty else {
                await recorder.settle()
                if pages == .dueAtStart || pages == .dueAfterDelivery {
                    // The first release says so at info, as petspotd's does; the later ones at
                    // debug. A kernel that refuses it once (one warning) is not asked again.
                    let first = pages == .dueAtStart
                    pages = StartupPages.release(logger: logger, level: first ? .info : .debug,
                                                 message: first ? "startup pages released" : "pages released after delivering")
                        ? .released : .refused
                }
                // Until reports are filed (relay.pending), or the poll's safety net.
                await cancelWhenGracefulShutdown { [filed, settings] in await filed.waitForFiled(atMost: settings.pollInterval) }
                continue
            }

            // Write until PostgreSQL has it; the claim may expire meanwhile, which costs at
            // most a second copy that the database ignores.
            var outcome: CentralDatabase.WriteOutcome?
            while outcome == nil, !Task.isShuttingDownGracefully {
                do {
                    outcome = try await database.write(due, box: box)
                    await recorder.postgres(.reachable)
                    postgresBackoff.succeeded()
                } catch {
                    await recorder.postgres(.unreachable(reason: error.reason, kind: error.kind.rawValue))
                    await pause(postgresBackoff.failed())
                }
            }
            guard let outcome else { break }

            let notStored = Set(outcome.notStored)
            if !notStored.isEmpty {
                for id in notStored { withheld.failed(id) }
                logger.error("PostgreSQL did not keep reports although the statement succeeded; they are not acknowledged and are retried with backoff", metadata: [
                    "reports": "\(outcome.notStored.prefix(5).joined(separator: ","))\(outcome.notStored.count > 5 ? ",…" : "")",
                    "count": "\(outcome.notStored.count)",
                ])
            }
            // Each at the version claimed: the central row holds it or a newer one (another
            // relay's), and the daemon keeps the highest version acknowledged.
            let stored = due.filter { !notStored.contains($0.id) }.map { RelayAck.Delivered(reportId: $0.id, version: $0.version) }
            for report in stored { withheld.stored(report.reportId) }
            await recorder.notStored(withheld.count, reason: notStored.isEmpty ? nil : RelayState.notStoredText(notStored.count))
            guard !stored.isEmpty else { continue }
            // Stored centrally: acknowledged even when a stop came meanwhile (the daemon would
            // otherwise keep the claims until they expire and hand them out again), within a
            // bound that leaves the unit's TimeoutStopSec room.
            let acknowledged = await acknowledge(stored, outcome: outcome, backoff: &daemonBackoff)
            if pages == .released { pages = .dueAfterDelivery }
            guard acknowledged, !Task.isShuttingDownGracefully else { break }
        }
        await filed.stop()
        await database.close()
        await daemon.shutdown()
    }

    /// When the program's pages go back to the kernel next: at the first idle moment, at the
    /// next one after a delivery, or not at all (released since, or refused by the kernel).
    private enum PageRelease { case dueAtStart, dueAfterDelivery, released, refused }

    /// How long a stop waits for the acknowledgement of a batch already stored centrally: under
    /// the unit's TimeoutStopSec (20 s), with room for the rest of the stop.
    static let acknowledgeOnStop: Duration = .seconds(10)

    /// Acknowledges a stored batch until the daemon takes it; returns false when a stop ended
    /// the attempts (after `acknowledgeOnStop`).
    private func acknowledge(_ reports: [RelayAck.Delivered], outcome: CentralDatabase.WriteOutcome, backoff: inout RetryBackoff) async -> Bool {
        var stopDeadline: ContinuousClock.Instant?
        while true {
            if Task.isShuttingDownGracefully, stopDeadline == nil { stopDeadline = .now + Self.acknowledgeOnStop }
            if let stopDeadline, ContinuousClock.now >= stopDeadline {
                logger.warning("stopping before petspotd took the acknowledgement; the daemon hands the batch out again once its claim expires, and PostgreSQL ignores the copy",
                               metadata: ["reports": "\(reports.count)"])
                return false
            }
            do {
                try await daemon.acknowledge(reports)
                await recorder.daemon(.reachable)
                backoff.succeeded()
                await recorder.delivered(reports.count, outcome: outcome)
                return true
            } catch let refused as DaemonRefused where refused.error.kind == .reportNotFound {
                // An id or version the daemon no longer knows (its database replaced from a
                // backup): it marked none of them. Asking again would fail forever; the known ones are
                // claimed, stored (again, ignored) and acknowledged in a later batch.
                logger.warning("petspotd does not know a report of the batch; its reports stay stored centrally", metadata: [
                    "reason": "\(refused.error.message)",
                ])
                return true
            } catch {
                await recorder.daemon(.unreachable(reason: "\(error)", kind: Self.kind(of: error)))
                let delay = backoff.failed()
                if let stopDeadline {
                    try? await Task.sleep(for: min(delay, max(.zero, ContinuousClock.now.duration(to: stopDeadline))))
                } else {
                    await pause(delay)
                }
            }
        }
    }

    /// The daemon's box name: `known` while it was asked on the link's current connection,
    /// else asked now; nil (told, and waited out) when it cannot be had or is refused.
    private func box(_ known: inout (name: String, connection: Int)?, backoff: inout RetryBackoff) async -> String? {
        if let known, known.connection == daemon.connectionsMade { return known.name }
        do {
            let named = try await daemonBox()
            known = (named, daemon.connectionsMade)
            await recorder.box(named)
            return named
        } catch {
            known = nil
            if !Task.isShuttingDownGracefully {
                await recorder.daemon(.unreachable(reason: "\(error)", kind: Self.kind(of: error)))
                await pause(backoff.failed())
            }
            return nil
        }
    }

    /// The name the daemon files its reports under (`box.name` in daemon.info), which each is
    /// stored centrally with; a configured `--box` must be that name.
    private func daemonBox() async throws -> String {
        try await Self.daemonBox(daemon, expected: settings.box)
    }

    /// The box name `daemon` gives in daemon.info, which `expected` (`--box`), if given, must be:
    /// the delivery's and the fleet's one check of it.
    static func daemonBox(_ daemon: DaemonLink, expected: String?) async throws -> String {
        let info = try await cancelWhenGracefulShutdown { try await daemon.call(DaemonInfo.self, NoParams()) }
        guard let named = info.box ?? expected else { throw BoxRefused.unnamed(protocolVersion: info.protocolVersion) }
        if let problem = RelayConfiguration.boxProblem(named) { throw BoxRefused.unusable(named, problem) }
        if let expected, expected != named { throw BoxRefused.mismatch(daemon: named, relay: expected) }
        return named
    }

    /// "refused" when the daemon answered with an error that retrying will not cure by itself
    /// (not in relay.group, a batch size over its limit); "unreachable" for a daemon that is
    /// away or stopping.
    static func kind(of error: any Error) -> String {
        if error is BoxRefused { return "refused" }
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

    init(box: String?, file: StateFile?, logger: Logger, wallClock: @escaping @Sendable () -> Date) {
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

    /// The daemon's box name, now known (or changed by a restart of the daemon).
    func box(_ name: String) {
        guard state.box != name else { return }
        state.box = name
        save(now: true)
    }

    func pending(_ count: Int) {
        guard state.pending != count else { return }
        state.pending = count
        save(now: false)
    }

    /// How many reports PostgreSQL dropped and now wait for their retry; `reason` is set when
    /// a batch just had such reports.
    func notStored(_ count: Int, reason: String?) {
        if let reason { noteError("PostgreSQL: \(reason)") }
        guard state.notStored != count || reason != nil else { return }
        state.notStored = count
        save(now: true)
    }

    func delivered(_ count: Int, outcome: CentralDatabase.WriteOutcome) {
        state.delivered += count
        state.storedNew += outcome.written
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

    /// The fleet's progress changed; an appearing or clearing problem is logged once and saved
    /// at once, as is any change when `now`.
    func fleet(now: Bool = false, _ change: (inout FleetProgress) -> Void) {
        var progress = state.fleet ?? FleetProgress()
        let before = progress.problem
        change(&progress)
        state.fleet = progress
        if progress.problem != before {
            // Not the delivery's last error: --status shows it on the fleet's line.
            if let problem = progress.problem {
                logger.warning("the fleet's list does not come down; retrying with backoff", metadata: ["reason": "\(problem)"])
            } else {
                logger.notice("the fleet's list comes down again")
            }
            return save(now: true)
        }
        save(now: now)
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

/// Reports PostgreSQL did not keep, each with its own capped exponential backoff (1 s, 2 s, 4 s,
/// … up to the relay's retryMaxDelay), so that a row a trigger refuses is tried again without
/// holding up the reports after it.
struct WithheldReports {
    private var entries: [String: (backoff: RetryBackoff, retryAt: ContinuousClock.Instant)] = [:]
    /// At least a second: retryMaxDelay is.
    let maximumDelay: Duration

    init(maximumDelay: Duration) {
        self.maximumDelay = maximumDelay
    }

    var count: Int { entries.count }

    func isDue(_ id: String, now: ContinuousClock.Instant = .now) -> Bool {
        guard let entry = entries[id] else { return true }
        return entry.retryAt <= now
    }

    mutating func failed(_ id: String, now: ContinuousClock.Instant = .now) {
        var backoff = entries[id]?.backoff ?? RetryBackoff(initial: .seconds(1), maximum: maximumDelay)
        let delay = backoff.failed()
        entries[id] = (backoff, now + delay)
    }

    mutating func stored(_ id: String) {
        entries[id] = nil
    }
}

/// The box the daemon names cannot be the one the relay stores reports under: a setting to
/// change, which the relay says until it is changed.
enum BoxRefused: Error, CustomStringConvertible {
    case unnamed(protocolVersion: Int)
    case unusable(String, String)
    case mismatch(daemon: String, relay: String)

    var description: String {
        switch self {
        case .unnamed(let version):
            "petspotd names no box (protocol revision \(version), before 5): give the relay --box"
        case .unusable(let name, let problem):
            "petspotd's box name \(JSONWriter.terminalString(.string(name))) cannot be stored: \(problem)"
        case .mismatch(let daemon, let relay):
            "petspotd files its reports as box \"\(daemon)\" (box.name) but the relay was given --box \"\(relay)\": make them the same, or leave out --box"
        }
    }
}

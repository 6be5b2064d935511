#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotSettings
import PetSpotStore
import PetSpotSystem
import PetSpotViews
import ServiceLifecycle
import UnixSignals

/// The daemon: `start` opens everything it needs and fails with nothing left running;
/// `run` runs its services in a `ServiceGroup` until a signal stops them.
public final class Daemon: Sendable {
    public let services: DaemonServices
    let group: MultiThreadedEventLoopGroup
    let tracker: ConnectionTracker
    let buffers: ClientMemoryBudget
    let faults: FaultLog
    let notifier: SystemdNotifier?
    let logger: Logger
    let server: ServerService
    let location: LocationWatchService
    let locationNotifier: LocationNotifier
    /// Where the daemon serves, for the log and systemd's status line.
    private let servingAt: String

    /// Opens everything the daemon needs: the socket (bound and accepting, so no client that
    /// comes early is refused) and the database. A setting that cannot work throws
    /// `ConfigurationError`; then whatever was opened is closed again, and nothing that runs on
    /// its own (a gpsd watch, a timer) has been started: that is `run`'s part.
    public static func start(configuration: DaemonConfiguration, clock: DaemonClock, logger: Logger,
                             environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Daemon
    {
        try UserNamespace.requireIdentityMapping()
        let settings = try RuntimeSettings.make(configuration, clock: clock, logger: logger, reusing: nil)
        let activated = try SystemdActivation.takeListeningSocket()
        if activated == nil { try SocketFile.prepare(configuration.socketPath) }
        let store: ReportStore
        do {
            store = try await ReportStore(path: configuration.databasePath, now: clock.wallTime(), box: settings.boxName,
                                          checkAtOpenMaxBytes: configuration.databaseCheckAtStartMaxBytes)
        } catch where error.kind == .damaged {
            throw DatabaseDamaged(error: error)
        } catch {
            throw ConfigurationError("database.path: \(error.description)")
        }
        let photoSpool: PhotoSpool
        do {
            photoSpool = try PhotoSpool.beside(databasePath: configuration.databasePath)
        } catch {
            try? await store.close()
            throw ConfigurationError("database.path: cannot prepare the photo spool beside \(configuration.databasePath): \(error)")
        }
        let limits = configuration.limits
        let subscriptions = SubscriptionHub(maxQueuedBytes: limits.maxPendingOutputBytes)
        let registry = FlowRegistry(limits: limits, clock: clock) { id in
            subscriptions.flowChanged(FlowView(id: id, state: .expired))
        }
        let services = DaemonServices(settings: settings, registry: registry, store: store, photoSpool: photoSpool, clock: clock, subscriptions: subscriptions)
        let faults = FaultLog(logger: logger, interval: .seconds(configuration.logFaultIntervalSeconds), clock: clock)
        let routes = Routes.daemon(services: services, faults: RequestFaults(log: faults, databasePath: configuration.databasePath))
        let tracker = ConnectionTracker(maxConnections: limits.maxConnections)
        let buffers = ClientMemoryBudget(limits: limits.bufferBudget)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.eventLoops(cores: System.coreCount))

        FileDescriptorLimit.ensure(maxConnections: limits.maxConnections, logger: logger)
        let admission = ConnectionAdmission(services: services, routes: routes, tracker: tracker, buffers: buffers, faults: faults, logger: logger)

        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // Out of descriptors, accepting pauses rather than spins. Each connection is
            // tracked from its accept, so that a stop waits for those still being set up.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([AcceptBackoff(logger: logger), AcceptedConnections(tracker: tracker)])
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in admission.admit(channel) }

        let serverChannel: any Channel
        var ownSocket: ServerService.OwnSocket? = nil
        do {
            if let fd = activated {
                serverChannel = try await bootstrap.withBoundSocket(fd).get()
            } else {
                serverChannel = try await SocketFile.bind(bootstrap, configuration)
                if let identity = SocketFile.identity(configuration.socketPath) {
                    ownSocket = .init(path: configuration.socketPath, identity: identity)
                }
            }
        } catch {
            try? await group.shutdownGracefully()
            try? await store.close()
            throw error
        }

        let notifier = SystemdNotifier(environment: environment)
        let server = ServerService(serverChannel: serverChannel, tracker: tracker, ownSocket: ownSocket, notifier: notifier, logger: logger)
        return Daemon(services: services, group: group, tracker: tracker, buffers: buffers, faults: faults, notifier: notifier, logger: logger,
                      server: server, location: LocationWatchService(services: services), locationNotifier: LocationNotifier(services: services),
                      servingAt: activated == nil ? configuration.socketPath : "the socket systemd passed")
    }

    private init(services: DaemonServices, group: MultiThreadedEventLoopGroup, tracker: ConnectionTracker, buffers: ClientMemoryBudget, faults: FaultLog,
                 notifier: SystemdNotifier?, logger: Logger, server: ServerService, location: LocationWatchService,
                 locationNotifier: LocationNotifier, servingAt: String)
    {
        self.services = services
        self.group = group
        self.tracker = tracker
        self.buffers = buffers
        self.faults = faults
        self.notifier = notifier
        self.logger = logger
        self.server = server
        self.location = location
        self.locationNotifier = locationNotifier
        self.servingAt = servingAt
    }

    /// Runs the services until a stop, then closes the connections left, the event loops and
    /// the database. `signals` is the process's SIGTERM, SIGINT and SIGHUP (a test hands in its
    /// own): SIGHUP calls `reload`; the first SIGTERM or SIGINT stops the services gracefully,
    /// one after another in the reverse of their start (`limits.drainTimeoutSeconds` for all of
    /// it, then they are cancelled); a second one cancels them at once and `run` throws
    /// `StopCutShort`.
    public func run<Signals: AsyncSequence & Sendable>(signals: Signals, reload: @escaping @Sendable () -> Void) async throws
        where Signals.Element == UnixSignal, Signals.Failure == Never
    {
        let limits = services.limits
        // Started in this order, stopped in the reverse: the watchdog first, then the server
        // drains while location still answers, and the fault log writes last.
        var daemonServices: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: flushFaults(), serviceName: "fault-log flush"),
            .init(service: location, serviceName: "location"),
            .init(service: locationNotifier, serviceName: "location watches"),
            .init(service: flowExpiry(every: limits), serviceName: "flow expiry"),
            .init(service: PeriodicService(interval: RetentionSweep.interval, clock: services.clock,
                                           work: RetentionSweep(services: services, logger: logger).sweep), serviceName: "retention"),
            .init(service: FreedMemoryService(budget: buffers, clock: services.clock, logger: logger), serviceName: "freed memory"),
            .init(service: server, serviceName: "server"),
            .init(service: DatabaseDamageService(store: services.store, logger: logger),
                  successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "database check"),
            // Done once; its end must not stop the others.
            .init(service: PublicPhotoBackfill(services: services, logger: logger), successTerminationBehavior: .ignore,
                  serviceName: "public photos"),
        ]
        if services.configuration.releaseStartupPages {
            // Done once; its end must not stop the others.
            daemonServices.append(.init(service: StartupPagesService(after: .seconds(services.configuration.releaseStartupPagesAfterSeconds), clock: services.clock, logger: logger),
                                        successTerminationBehavior: .ignore, serviceName: "startup pages"))
        }
        if let notifier, let interval = notifier.watchdogInterval {
            daemonServices.append(.init(service: PeriodicService(interval: interval, clock: services.clock) { await WatchdogCheck(group: self.group, services: self.services, tracker: self.tracker, faults: self.faults).ping(notifier) }, serviceName: "watchdog"))
        }
        var configuration = ServiceGroupConfiguration(services: daemonServices, logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(limits.drainTimeoutSeconds)
        let serviceGroup = ServiceGroup(configuration: configuration)
        let signalService = SignalService(signals: signals, services: serviceGroup, reload: reload, logger: logger)
        let daemon = ServiceGroup(configuration: ServiceGroupConfiguration(services: [
            .init(service: signalService, successTerminationBehavior: .ignore, failureTerminationBehavior: .cancelGroup, serviceName: "signals"),
            .init(service: serviceGroup, successTerminationBehavior: .gracefullyShutdownGroup, serviceName: "services"),
        ], logger: logger))

        logger.info("serving", metadata: [
            "socket": "\(servingAt)", "database": "\(services.configuration.databasePath)",
            "providers": "\(services.location.providerNames.joined(separator: ","))", "version": "\(petspotdVersion)",
            "eventLoops": "\(services.configuration.eventLoops(cores: System.coreCount))",
        ])
        warnIfNoRelayGroup(services.settings)
        // The socket is served and the database open; the services start right after.
        notifier?.notify("READY=1", "STATUS=Serving \(servingAt)", "MAINPID=\(getpid())")
        var failure: (any Error)?
        do {
            try await daemon.run()
        } catch {
            failure = error
        }
        // Every service has stopped: what is still open goes now.
        try? await group.shutdownGracefully()
        do {
            try await services.store.close()
        } catch where error.kind == .fileLost {
            logger.error("the database file left its path while the daemon ran", metadata: ["error": "\(error)"])
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
        faults.drain()
        logger.info("stopped")
        if let failure { throw failure }
    }

    /// Every second (the shortest interval): a flood's count is written soon after its interval ends.
    private func flushFaults() -> PeriodicService {
        let faults = faults
        return PeriodicService(interval: .seconds(1), clock: services.clock, work: { faults.flush() }, atStop: { faults.drain() })
    }

    private func flowExpiry(every limits: DaemonConfiguration.Limits) -> PeriodicService {
        let (registry, logger) = (services.registry, logger)
        return PeriodicService(interval: .milliseconds(min(60_000, max(250, limits.flowIdleTimeoutSeconds * 1000 / 4))), clock: services.clock) {
            let expired = registry.expireIdle()
            if expired > 0 { logger.info("expired idle flows", metadata: ["count": "\(expired)"]) }
        }
    }

}

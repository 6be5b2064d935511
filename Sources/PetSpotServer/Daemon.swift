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
    private let group: MultiThreadedEventLoopGroup
    private let tracker: ConnectionTracker
    private let buffers: ClientMemoryBudget
    private let faults: FaultLog
    private let notifier: SystemdNotifier?
    private let logger: Logger
    private let server: ServerService
    private let location: LocationWatchService
    private let locationNotifier: LocationNotifier
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
        let settings = try makeRuntimeSettings(configuration, clock: clock, logger: logger, reusing: nil)
        let activated = try SystemdActivation.takeListeningSocket()
        if activated == nil { try SocketFile.prepare(configuration.socketPath) }
        let store: ReportStore
        do {
            store = try await ReportStore(path: configuration.databasePath, checkAtOpenMaxBytes: configuration.databaseCheckAtStartMaxBytes)
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
        let registry = FlowRegistry(limits: registryLimits(limits), clock: clock) { id in
            subscriptions.flowChanged(FlowView(id: id, state: .expired))
        }
        let services = DaemonServices(settings: settings, registry: registry, store: store, photoSpool: photoSpool, clock: clock, subscriptions: subscriptions)
        let faults = FaultLog(logger: logger, interval: .seconds(configuration.logFaultIntervalSeconds), clock: clock)
        let router = RequestRouter(services: services, faults: faults)
        let tracker = ConnectionTracker(maxConnections: limits.maxConnections)
        let buffers = ClientMemoryBudget(limits: limits.bufferBudget)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.eventLoops(cores: System.coreCount))

        FileDescriptorLimit.ensure(maxConnections: limits.maxConnections, logger: logger)

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
            .childChannelInitializer { channel in
                // Read per connection, so a reload applies to every connection opened after it.
                let limits = services.limits
                guard tracker.admit(channel) else {
                    return channel.eventLoop.makeCompletedFuture {
                        try Self.refuse(channel, "limits.maxConnections", limits.maxConnections, faults: faults, log: "refusing a connection: limit reached",
                                        "the daemon serves its maximum of \(limits.maxConnections) connections; try again later")
                    }
                }
                let peer = PeerCredentials.read(from: channel).and(PeerGroups.read(from: channel)).map { $0.with(groups: $1) }
                return peer.and(SocketCookie.read(from: channel)).flatMapThrowing { peer, cookie in
                    let perUser = Self.connectionsPerUser(peer, services.settings)
                    guard tracker.admit(channel, user: peer.uid, limit: perUser.limit) else {
                        try Self.refuse(channel, perUser.setting, perUser.limit, faults: faults, log: "refusing a connection: the user's limit reached",
                                        "uid \(peer.uid) holds its maximum of \(perUser.limit) connections; close one or try again later",
                                        metadata: ["uid": "\(peer.uid)"])
                        return
                    }
                    let watermark = ChannelOptions.Types.WriteBufferWaterMark(low: limits.maxPendingOutputBytes / 2, high: limits.maxPendingOutputBytes)
                    try channel.syncOptions?.setOption(.writeBufferWaterMark, value: watermark)
                    let account = ClientMemoryAccount(budget: buffers, uid: peer.uid)
                    let handlers: [any ChannelHandler] = [
                        ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limits.maxLineBytes, account: account)),
                        ConnectionHandler(router: router, peer: peer, limits: limits, logger: logger, socketCookie: cookie, account: account,
                                          eventLoop: channel.eventLoop),
                    ]
                    try channel.pipeline.syncOperations.addHandlers(handlers)
                    // Accepted while the daemon began to stop: drained like the others.
                    if tracker.isDraining {
                        channel.pipeline.fireUserInboundEventTriggered(DrainAndCloseEvent(descriptors: SocketCookie.descriptors()))
                    }
                }
            }

        let serverChannel: any Channel
        var ownSocket: ServerService.OwnSocket? = nil
        do {
            if let fd = activated {
                serverChannel = try await bootstrap.withBoundSocket(fd).get()
            } else {
                serverChannel = try await bind(bootstrap, configuration)
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

    /// A connection over `setting`: a rate-limited warning, and the client is told why in one
    /// line (`RefuseConnectionHandler`) before it is closed.
    private static func refuse(_ channel: any Channel, _ setting: String, _ limit: Int, faults: FaultLog, log: String, _ message: String,
                               metadata: Logger.Metadata = [:]) throws
    {
        faults.record("refused \(setting)", .warning, log, metadata.merging(["limit": "\(setting)=\(limit)"]) { $1 })
        let error = RPCError.limitExceeded(setting, max: limit, message)
        try channel.pipeline.syncOperations.addHandler(RefuseConnectionHandler(error: error))
    }

    /// The limit on connections of one uid that applies to `peer`, and the setting that names it:
    /// members of the relay group have their own.
    static func connectionsPerUser(_ peer: Peer, _ settings: RuntimeSettings) -> (limit: Int, setting: String) {
        let configuration = settings.configuration
        if let relay = settings.relayGroupID, peer.isMember(of: relay) {
            return (configuration.relay.maxConnectionsPerUser, "relay.maxConnectionsPerUser")
        }
        return (configuration.limits.maxConnectionsPerUser, "limits.maxConnectionsPerUser")
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

    private static func bind(_ bootstrap: ServerBootstrap, _ configuration: DaemonConfiguration) async throws -> any Channel {
        // The socket is born with no access for others; its configured mode is set right after.
        let previousMask = umask(0o177)
        defer { umask(previousMask) }
        let channel: any Channel
        do {
            channel = try await bootstrap.bind(unixDomainSocketPath: configuration.socketPath).get()
        } catch {
            throw ConfigurationError("socket.path: cannot listen on \(configuration.socketPath): \(error)")
        }
        guard chmod(configuration.socketPath, mode_t(configuration.socketMode)) == 0 else {
            let reason = String(cString: strerror(errno))
            try? await channel.close()
            throw ConfigurationError("socket.mode: cannot set mode \(String(configuration.socketMode, radix: 8)) on \(configuration.socketPath): \(reason)")
        }
        return channel
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
            .init(service: FreedMemoryService(budget: buffers, clock: services.clock, logger: logger), serviceName: "freed memory"),
            .init(service: server, serviceName: "server"),
            .init(service: DatabaseDamageService(store: services.store, logger: logger),
                  successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup, serviceName: "database check"),
        ]
        if services.configuration.releaseStartupPages {
            // Done once; its end must not stop the others.
            daemonServices.append(.init(service: StartupPagesService(after: .seconds(services.configuration.releaseStartupPagesAfterSeconds), clock: services.clock, logger: logger),
                                        successTerminationBehavior: .ignore, serviceName: "startup pages"))
        }
        if let notifier, let interval = notifier.watchdogInterval {
            daemonServices.append(.init(service: PeriodicService(interval: interval, clock: services.clock) { await self.pingWatchdog(notifier) }, serviceName: "watchdog"))
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

    /// Pings systemd's watchdog only after proving the daemon still works: every event loop
    /// runs a task and the database answers a read from the file at its path. A hung loop, a
    /// failing disk or a database file deleted or replaced means no ping, and systemd restarts
    /// the service.
    private func pingWatchdog(_ notifier: SystemdNotifier) async {
        do {
            for loop in group.makeIterator() {
                // A hung loop never answers; a stop must not wait for it.
                guard let answer = await loop.submit({}).resultUnlessCancelled() else { return }
                try answer.get()
            }
            _ = try await services.store.count()
        } catch {
            faults.record("watchdog", .error, "not healthy: withholding the watchdog ping", ["error": "\(error)"])
            let reason = (error as? ReportStoreError)?.clientMessage ?? "an event loop does not answer"
            notifier.notify("STATUS=Failing: \(reason)")
            return
        }
        notifier.notify("WATCHDOG=1", "STATUS=Serving: \(tracker.count) connections, \(services.registry.count) flows")
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

    /// Re-reads what can change at run time — location settings, limits, the species list,
    /// the time zone — keeping every flow and connection. Returns what it could not apply.
    public func reload(_ configuration: DaemonConfiguration) -> [String] {
        notifier?.notify("RELOADING=1", "MONOTONIC_USEC=\(services.clock.now.microsecondsSinceOrigin)")
        defer { notifier?.notify("READY=1", "STATUS=Serving: reloaded") }
        let current = services.settings
        let new: RuntimeSettings
        do {
            new = try Self.makeRuntimeSettings(configuration, clock: services.clock, logger: logger, reusing: current.location)
        } catch {
            logger.error("reload refused; the settings in force stay", metadata: ["error": "\(error)"])
            return ["nothing: \(error)"]
        }
        let old = current.configuration
        var notReloaded = DaemonConfiguration.restartOnlyChanges(from: old, to: configuration).map { "\($0) (restart to apply)" }
        if old.limits.flowIdleTimeoutSeconds != configuration.limits.flowIdleTimeoutSeconds {
            notReloaded.append("how often idle flows are swept (the new timeout itself applies now)")
        }
        services.replace(with: new)
        services.registry.update(limits: Self.registryLimits(configuration.limits))
        tracker.maxConnections.store(configuration.limits.maxConnections, ordering: .relaxed)
        buffers.update(limits: configuration.limits.bufferBudget)
        if configuration.limits.maxConnections > old.limits.maxConnections {
            FileDescriptorLimit.ensure(maxConnections: configuration.limits.maxConnections, logger: logger)
        }
        if new.location !== current.location {
            location.replaced(current.location, with: new.location)
            locationNotifier.follow(new.location)
        } else {
            // Permission and the maximum age may have changed: watches look again.
            locationNotifier.poke()
        }
        logger.info("reloaded", metadata: [
            "config": "\(configuration.configFile)", "providers": "\(new.location.providerNames.joined(separator: ","))",
            "species": "\(new.species.species.count)",
        ])
        for item in notReloaded {
            logger.warning("not reloaded", metadata: ["setting": "\(item)"])
        }
        warnIfNoRelayGroup(new)
        return notReloaded
    }

    private func warnIfNoRelayGroup(_ settings: RuntimeSettings) {
        guard settings.relayGroupID == nil else { return }
        logger.warning("relay group not found: nobody may call relay.*", metadata: ["relay.group": "\(settings.configuration.relay.group)"])
    }

    private static func registryLimits(_ limits: DaemonConfiguration.Limits) -> FlowRegistry.Limits {
        .init(maxFlowsPerUser: limits.maxFlowsPerUser, maxFlows: limits.maxFlows, idleTimeoutSeconds: limits.flowIdleTimeoutSeconds,
              maxSpooledPhotoBytes: limits.maxSpooledPhotoBytes, maxSpooledPhotoBytesPerUser: limits.maxSpooledPhotoBytesPerUser,
              maxKeptViewBytes: limits.maxKeptViewBytes,
              maxCompletedFlows: limits.maxCompletedFlows)
    }

    /// Everything a reload may replace, built and checked before anything is put in force.
    static func makeRuntimeSettings(_ c: DaemonConfiguration, clock: DaemonClock, logger: Logger,
                                    reusing previous: LocationService?) throws(ConfigurationError) -> RuntimeSettings
    {
        let calendar: LocalCalendar
        if let name = c.timeZone {
            guard let known = LocalCalendar(zone: name) else { throw ConfigurationError("timeZone: unknown time zone \"\(name)\"") }
            calendar = known
        } else {
            calendar = .system
        }
        // Without any configuration file there is no species file beside it either.
        let species = c.configFile.isEmpty ? SpeciesCatalog.builtIn : try loadSpecies(c.resolvedSpeciesFile)
        let location = try makeLocationService(c, clock: clock, logger: logger, reusing: previous)
        // Said in the log once the settings are in force (`warnIfNoRelayGroup`): a refused start stays one line.
        let relayGroupID = SystemAccounts().groupID(named: c.relay.group)
        return RuntimeSettings(configuration: c, location: location, species: species, calendar: calendar, relayGroupID: relayGroupID)
    }

    private static func loadSpecies(_ file: String) throws(ConfigurationError) -> SpeciesCatalog {
        let data: [UInt8]
        do {
            data = try FileDescriptorIO.readFile(file)
        } catch {
            throw ConfigurationError("species.file: cannot read \(file): \(SystemError.reason(error))")
        }
        do {
            return try SpeciesCatalog(json: try JSONParser.parse(data))
        } catch let error as JSONParseError {
            throw ConfigurationError("species.file: \(file) is not valid JSON: \(error)")
        } catch {
            throw ConfigurationError("species.file: \(file): \(error)")
        }
    }

    /// The location service of `c`, its providers made by `LocationProviderFactory`.
    static func makeLocationService(_ c: DaemonConfiguration, clock: DaemonClock, logger: Logger,
                                    reusing previous: LocationService? = nil) throws(ConfigurationError) -> LocationService
    {
        let context = LocationProviderFactory.Context(clock: clock, logger: logger, previous: previous)
        var providers: [any LocationProvider] = []
        for name in c.locationProviders {
            guard let factory = LocationProviderFactory.named(name) else {
                throw ConfigurationError("location.providers: unknown provider \"\(name)\"")
            }
            providers.append(try factory.make(c, context))
        }
        let permission: LocationPermission = switch c.permissionAllow {
        case .everyone: .everyone
        case .nobody: .nobody
        case .listed: .listed(users: c.permissionUsers, groups: c.permissionGroups)
        }
        return LocationService(providers: providers, settingsFile: c.configFile.isEmpty ? "(built-in defaults)" : c.configFile,
                               enabled: c.locationEnabled, permission: permission, clock: clock,
                               defaultTimeout: .milliseconds(c.locationTimeoutMs), defaultMaxAge: .milliseconds(c.locationMaxAgeMs))
    }
}

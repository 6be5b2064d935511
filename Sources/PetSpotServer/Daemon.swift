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
import PetSpotStore
import PetSpotSystem

/// The running daemon: the services, the listening socket, and an orderly stop.
public final class Daemon: Sendable {
    public let services: DaemonServices
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let tracker: ConnectionTracker
    /// The socket file this process created; nil under socket activation (systemd owns it).
    private let ownSocket: (path: String, dev: UInt64, ino: UInt64)?
    private let expiryTask: RepeatedTask
    private let faults: FaultLog
    private let faultFlushTask: RepeatedTask
    private let watchdogTask: Task<Void, Never>?
    private let notifier: SystemdNotifier?
    private let logger: Logger

    /// Opens everything the daemon needs and starts serving. A setting that cannot work
    /// throws `ConfigurationError` before anything is served.
    public static func start(configuration: DaemonConfiguration, clock: DaemonClock = .system, logger: Logger,
                             environment: [String: String] = ProcessInfo.processInfo.environment) async throws -> Daemon
    {
        try UserNamespace.requireIdentityMapping()
        let settings = try makeRuntimeSettings(configuration, clock: clock, logger: logger, reusing: nil)
        let activated = try SystemdActivation.takeListeningSocket()
        if activated == nil { try SocketFile.prepare(configuration.socketPath) }
        let store: ReportStore
        do {
            store = try ReportStore(path: configuration.databasePath)
        } catch {
            throw ConfigurationError("database.path: \(error.description)")
        }
        let limits = configuration.limits
        let registry = FlowRegistry(limits: registryLimits(limits), monotonicNanos: clock.monotonicNanos)
        let services = DaemonServices(settings: settings, registry: registry, store: store, clock: clock)
        let faults = FaultLog(logger: logger, interval: .seconds(configuration.logFaultIntervalSeconds), monotonicNanos: clock.monotonicNanos)
        let router = RequestRouter(services: services, faults: faults)
        let tracker = ConnectionTracker(maxConnections: limits.maxConnections)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

        FileDescriptorLimit.ensure(maxConnections: limits.maxConnections, logger: logger)

        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            // Out of descriptors, accepting pauses rather than spins.
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff(logger: logger))
                }
            }
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                // Read per connection, so a reload applies to every connection opened after it.
                let limits = services.limits
                guard tracker.admit(channel) else {
                    faults.record("refused limits.maxConnections", .warning, "refusing a connection: limit reached",
                                  ["limit": "limits.maxConnections=\(limits.maxConnections)"])
                    let error = RPCError.limitExceeded("limits.maxConnections", max: limits.maxConnections,
                                                       "the daemon serves its maximum of \(limits.maxConnections) connections; try again later")
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RefuseConnectionHandler(error: error))
                    }
                }
                return PeerCredentials.read(from: channel).and(SocketCookie.read(from: channel)).flatMapThrowing { peer, cookie in
                    let watermark = ChannelOptions.Types.WriteBufferWaterMark(low: limits.maxPendingOutputBytes / 2, high: limits.maxPendingOutputBytes)
                    try channel.syncOptions?.setOption(.writeBufferWaterMark, value: watermark)
                    let handlers: [any ChannelHandler] = [
                        ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limits.maxLineBytes)),
                        ConnectionHandler(router: router, peer: peer, limits: limits, logger: logger, socketCookie: cookie),
                    ]
                    try channel.pipeline.syncOperations.addHandlers(handlers)
                    // Accepted while the daemon began to stop: drained like the others.
                    if tracker.isDraining {
                        channel.pipeline.fireUserInboundEventTriggered(DrainAndCloseEvent(descriptors: SocketCookie.descriptors()))
                    }
                }
            }

        let serverChannel: any Channel
        var ownSocket: (path: String, dev: UInt64, ino: UInt64)? = nil
        do {
            if let fd = activated {
                serverChannel = try await bootstrap.withBoundSocket(fd).get()
            } else {
                serverChannel = try await bind(bootstrap, configuration)
                if let identity = SocketFile.identity(configuration.socketPath) {
                    ownSocket = (configuration.socketPath, identity.dev, identity.ino)
                }
            }
        } catch {
            try? await group.shutdownGracefully()
            try? store.close()
            throw error
        }

        let sweepEvery = TimeAmount.milliseconds(Int64(min(60_000, max(250, limits.flowIdleTimeoutSeconds * 1000 / 4))))
        let expiryTask = group.next().scheduleRepeatedTask(initialDelay: sweepEvery, delay: sweepEvery) { _ in
            let expired = registry.expireIdle()
            if expired > 0 { logger.info("expired idle flows", metadata: ["count": "\(expired)"]) }
        }
        // Every second (the shortest interval): a flood's count is written soon after its interval ends.
        let flushEvery = TimeAmount.seconds(1)
        let faultFlushTask = group.next().scheduleRepeatedTask(initialDelay: flushEvery, delay: flushEvery) { _ in faults.flush() }
        let notifier = SystemdNotifier(environment: environment)
        let watchdogTask = notifier.flatMap { notifier in
            notifier.watchdogInterval.map { interval in
                Task { await watchdog(every: interval, notifier: notifier, group: group, services: services, tracker: tracker, faults: faults) }
            }
        }
        let daemon = Daemon(services: services, group: group, serverChannel: serverChannel, tracker: tracker,
                            ownSocket: ownSocket, expiryTask: expiryTask, faults: faults, faultFlushTask: faultFlushTask,
                            watchdogTask: watchdogTask, notifier: notifier, logger: logger)
        let where_ = activated == nil ? configuration.socketPath : "the socket systemd passed"
        logger.info("serving", metadata: [
            "socket": "\(where_)", "database": "\(configuration.databasePath)",
            "providers": "\(settings.location.providerNames.joined(separator: ","))", "version": "\(petspotdVersion)",
        ])
        // Only now, with the socket served and the database open, is the daemon ready.
        notifier?.notify("READY=1", "STATUS=Serving \(where_)", "MAINPID=\(getpid())")
        return daemon
    }

    private init(services: DaemonServices, group: MultiThreadedEventLoopGroup, serverChannel: any Channel,
                 tracker: ConnectionTracker, ownSocket: (path: String, dev: UInt64, ino: UInt64)?, expiryTask: RepeatedTask,
                 faults: FaultLog, faultFlushTask: RepeatedTask, watchdogTask: Task<Void, Never>?, notifier: SystemdNotifier?, logger: Logger)
    {
        self.services = services
        self.group = group
        self.serverChannel = serverChannel
        self.tracker = tracker
        self.ownSocket = ownSocket
        self.expiryTask = expiryTask
        self.faults = faults
        self.faultFlushTask = faultFlushTask
        self.watchdogTask = watchdogTask
        self.notifier = notifier
        self.logger = logger
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

    /// Pings systemd only after proving the daemon still works: every event loop runs a task
    /// and the database answers a read from the file at its path. A hung loop, a failing disk or
    /// a database file deleted or replaced means no ping, and systemd restarts the service.
    private static func watchdog(every interval: Duration, notifier: SystemdNotifier, group: MultiThreadedEventLoopGroup,
                                 services: DaemonServices, tracker: ConnectionTracker, faults: FaultLog) async
    {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            do {
                for loop in group.makeIterator() { try await loop.submit {}.get() }
                _ = try await services.store.count()
            } catch {
                faults.record("watchdog", .error, "not healthy: withholding the watchdog ping", ["error": "\(error)"])
                let reason = (error as? ReportStoreError)?.clientMessage ?? "an event loop does not answer"
                notifier.notify("STATUS=Failing: \(reason)")
                continue
            }
            notifier.notify("WATCHDOG=1", "STATUS=Serving: \(tracker.count) connections, \(services.registry.count) flows")
        }
    }

    /// Re-reads what can change at run time — location settings, limits, the species list,
    /// the time zone — keeping every flow and connection. Returns what it could not apply.
    public func reload(_ configuration: DaemonConfiguration) -> [String] {
        notifier?.notify("RELOADING=1", "MONOTONIC_USEC=\(services.clock.monotonicNanos() / 1000)")
        defer { notifier?.notify("READY=1", "STATUS=Serving: reloaded") }
        let current = services.settings
        let new: RuntimeSettings
        do {
            new = try Self.makeRuntimeSettings(configuration, clock: services.clock, logger: logger, reusing: current.location)
        } catch {
            logger.error("reload refused; the settings in force stay", metadata: ["error": "\(error)"])
            return ["nothing: \(error)"]
        }
        var notReloaded: [String] = []
        let old = current.configuration
        if old.socketPath != configuration.socketPath { notReloaded.append("socket.path (restart to apply)") }
        if old.socketMode != configuration.socketMode { notReloaded.append("socket.mode (restart to apply)") }
        if old.databasePath != configuration.databasePath { notReloaded.append("database.path (restart to apply)") }
        if old.logLevel != configuration.logLevel { notReloaded.append("log.level (restart to apply)") }
        if old.logFaultIntervalSeconds != configuration.logFaultIntervalSeconds {
            notReloaded.append("log.faultIntervalSeconds (restart to apply)")
        }
        if old.limits.flowIdleTimeoutSeconds != configuration.limits.flowIdleTimeoutSeconds {
            notReloaded.append("how often idle flows are swept (the new timeout itself applies now)")
        }
        services.replace(with: new)
        services.registry.update(limits: Self.registryLimits(configuration.limits))
        tracker.maxConnections.store(configuration.limits.maxConnections, ordering: .relaxed)
        if configuration.limits.maxConnections > old.limits.maxConnections {
            FileDescriptorLimit.ensure(maxConnections: configuration.limits.maxConnections, logger: logger)
        }
        if new.location !== current.location {
            for case let provider as GpsdProvider in current.location.providers where !new.location.providers.contains(where: { ($0 as? GpsdProvider) === provider }) {
                provider.stop()
            }
        }
        logger.info("reloaded", metadata: [
            "config": "\(configuration.configFile)", "providers": "\(new.location.providerNames.joined(separator: ","))",
            "species": "\(new.species.species.count)",
        ])
        for item in notReloaded {
            logger.warning("not reloaded", metadata: ["setting": "\(item)"])
        }
        return notReloaded
    }

    /// Stops accepting, lets every connection answer what it has in hand (up to `grace`),
    /// closes the database cleanly and removes the socket file it created.
    public func stop(grace: Duration = .seconds(10)) async {
        notifier?.notify("STOPPING=1", "STATUS=Stopping")
        logger.info("stopping", metadata: ["connections": "\(tracker.count)"])
        watchdogTask?.cancel()
        try? await serverChannel.close()
        expiryTask.cancel()
        faultFlushTask.cancel()
        let drained = tracker.drainAll(on: group.next())
        logger.info("draining connections", metadata: ["connections": "\(tracker.count)"])
        // Whichever comes first: every connection closed, or the grace period over.
        await Self.wait(for: drained, atMost: grace)
        if let ownSocket { SocketFile.removeIfOurs(ownSocket.path, identity: (ownSocket.dev, ownSocket.ino)) }
        for case let gpsd as GpsdProvider in services.location.providers { gpsd.stop() }
        try? await group.shutdownGracefully()
        do {
            try services.store.close()
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
        // The counts of floods still being held back.
        faults.drain()
        logger.info("stopped")
    }

    /// Waits until `future` completes or `timeout` passes, whichever is first.
    private static func wait(for future: EventLoopFuture<Void>, atMost timeout: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = ResumeOnce(continuation)
            let timer = Task {
                try? await Task.sleep(for: timeout)
                once.resume()
            }
            future.whenComplete { _ in
                timer.cancel()
                once.resume()
            }
        }
    }

    private static func registryLimits(_ limits: DaemonConfiguration.Limits) -> FlowRegistry.Limits {
        .init(maxFlowsPerUser: limits.maxFlowsPerUser, maxFlows: limits.maxFlows, idleTimeoutSeconds: limits.flowIdleTimeoutSeconds,
              maxPhotoBytesInMemory: limits.maxPhotoBytesInMemory)
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
        return RuntimeSettings(configuration: c, location: location, species: species, calendar: calendar)
    }

    private static func loadSpecies(_ file: String) throws(ConfigurationError) -> SpeciesCatalog {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ConfigurationError("species.file: cannot read \(file): \(SystemError.reason(error))")
        }
        do {
            return try SpeciesCatalog(json: try JSONParser.parse(Array(data)))
        } catch let error as JSONParseError {
            throw ConfigurationError("species.file: \(file) is not valid JSON: \(error)")
        } catch {
            throw ConfigurationError("species.file: \(file): \(error)")
        }
    }

    /// The location service of `c`. A gpsd provider whose settings are unchanged is kept, so a
    /// reload does not drop its warm watch.
    static func makeLocationService(_ c: DaemonConfiguration, clock: DaemonClock, logger: Logger,
                                    reusing previous: LocationService? = nil) throws(ConfigurationError) -> LocationService
    {
        var providers: [any LocationProvider] = []
        for name in c.locationProviders {
            switch name {
            case "simulated":
                var track: [SimulatedProvider.Position] = []
                for setting in [c.simulatedPosition] + c.simulatedTrack {
                    guard let lat = DecimalLiteral(parsing: setting.latitude, lenient: true).flatMap(Coordinate.init),
                          let lon = DecimalLiteral(parsing: setting.longitude, lenient: true).flatMap(Coordinate.init)
                    else { throw ConfigurationError("location.simulated.position: \(setting.latitude),\(setting.longitude) is not a position") }
                    track.append(.init(latitude: lat, longitude: lon))
                }
                let mode = SimulatedProvider.Mode(rawValue: c.simulatedMode) ?? .fix
                providers.append(SimulatedProvider(mode: mode, track: track, now: clock.now))
            case "gpsd":
                let settings = GpsdProvider.Settings(host: c.gpsdHost, port: c.gpsdPort,
                                                     reconnectMax: .milliseconds(c.gpsdReconnectMaxMs))
                if let kept = previous?.providers.compactMap({ $0 as? GpsdProvider }).first(where: { $0.settings == settings }) {
                    providers.append(kept)
                } else {
                    providers.append(GpsdProvider(settings: settings, logger: logger, monotonicNanos: clock.monotonicNanos, now: clock.now))
                }
            default:
                throw ConfigurationError("location.providers: unknown provider \"\(name)\"")
            }
        }
        let permission: LocationPermission = switch c.permissionAllow {
        case .everyone: .everyone
        case .nobody: .nobody
        case .listed: .listed(users: c.permissionUsers, groups: c.permissionGroups)
        }
        return LocationService(providers: providers, settingsFile: c.configFile.isEmpty ? "(built-in defaults)" : c.configFile,
                               enabled: c.locationEnabled, permission: permission,
                               defaultTimeout: .milliseconds(c.locationTimeoutMs), defaultMaxAge: .milliseconds(c.locationMaxAgeMs))
    }
}

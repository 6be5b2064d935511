#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging
import NIOCore
import NIOPosix
import PetSpotFlow
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStore

/// The running daemon: the services, the listening socket, and an orderly stop.
public final class Daemon: Sendable {
    public let services: DaemonServices
    private let group: MultiThreadedEventLoopGroup
    private let serverChannel: any Channel
    private let tracker: ConnectionTracker
    private let socketIdentity: (dev: UInt64, ino: UInt64)?
    private let expiryTask: RepeatedTask
    private let logger: Logger

    /// Opens everything the daemon needs and starts serving. A setting that cannot work
    /// throws `ConfigurationError` before anything is served.
    public static func start(configuration: DaemonConfiguration, clock: DaemonClock = .system, logger: Logger) async throws -> Daemon {
        let zone: TimeZone
        if let name = configuration.timeZone {
            guard let z = TimeZone(identifier: name) else { throw ConfigurationError("timeZone: unknown time zone \"\(name)\"") }
            zone = z
        } else {
            zone = TimeZone.current
        }
        let species = try loadSpecies(configuration.resolvedSpeciesFile)
        let location = try makeLocationService(configuration, clock: clock, logger: logger)
        try SocketFile.prepare(configuration.socketPath)
        let store: ReportStore
        do {
            store = try ReportStore(path: configuration.databasePath)
        } catch {
            throw ConfigurationError("database.path: \(error.description)")
        }
        let limits = configuration.limits
        let registry = FlowRegistry(
            limits: .init(maxFlowsPerUser: limits.maxFlowsPerUser, maxFlows: limits.maxFlows, idleTimeoutSeconds: limits.flowIdleTimeoutSeconds),
            monotonicNanos: clock.monotonicNanos)
        let services = DaemonServices(configuration: configuration, registry: registry, store: store, location: location,
                                      species: species, clock: clock, timeZone: zone)
        let router = RequestRouter(services: services)
        let tracker = ConnectionTracker(maxConnections: limits.maxConnections)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)

        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark,
                                value: .init(low: limits.maxPendingOutputBytes / 2, high: limits.maxPendingOutputBytes))
            .childChannelInitializer { channel in
                guard tracker.admit(channel) else {
                    logger.warning("refusing a connection: limit reached", metadata: ["limit": "limits.maxConnections=\(limits.maxConnections)"])
                    let error = RPCError.limitExceeded("limits.maxConnections", max: limits.maxConnections,
                                                       "the daemon serves its maximum of \(limits.maxConnections) connections; try again later")
                    return channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RefuseConnectionHandler(error: error))
                    }
                }
                return PeerCredentials.read(from: channel).flatMapThrowing { peer in
                    let handlers: [any ChannelHandler] = [
                        ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limits.maxLineBytes)),
                        ConnectionHandler(router: router, peer: peer, limits: limits, logger: logger),
                    ]
                    try channel.pipeline.syncOperations.addHandlers(handlers)
                }
            }

        // The socket is born with no access for others; its configured mode is set right after.
        let previousMask = umask(0o177)
        let serverChannel: any Channel
        do {
            serverChannel = try await bootstrap.bind(unixDomainSocketPath: configuration.socketPath).get()
        } catch {
            umask(previousMask)
            try? await group.shutdownGracefully()
            try? store.close()
            throw ConfigurationError("socket.path: cannot listen on \(configuration.socketPath): \(error)")
        }
        umask(previousMask)
        guard chmod(configuration.socketPath, mode_t(configuration.socketMode)) == 0 else {
            let reason = String(cString: strerror(errno))
            try? await serverChannel.close()
            try? await group.shutdownGracefully()
            throw ConfigurationError("socket.mode: cannot set mode \(String(configuration.socketMode, radix: 8)) on \(configuration.socketPath): \(reason)")
        }

        let sweepEvery = TimeAmount.milliseconds(Int64(min(60_000, max(250, limits.flowIdleTimeoutSeconds * 1000 / 4))))
        let expiryTask = group.next().scheduleRepeatedTask(initialDelay: sweepEvery, delay: sweepEvery) { _ in
            let expired = registry.expireIdle()
            if expired > 0 { logger.info("expired idle flows", metadata: ["count": "\(expired)"]) }
        }
        let daemon = Daemon(services: services, group: group, serverChannel: serverChannel, tracker: tracker,
                            socketIdentity: SocketFile.identity(configuration.socketPath), expiryTask: expiryTask, logger: logger)
        logger.info("serving", metadata: [
            "socket": "\(configuration.socketPath)", "database": "\(configuration.databasePath)",
            "providers": "\(location.providerNames.joined(separator: ","))", "version": "\(petspotdVersion)",
        ])
        return daemon
    }

    private init(services: DaemonServices, group: MultiThreadedEventLoopGroup, serverChannel: any Channel,
                 tracker: ConnectionTracker, socketIdentity: (dev: UInt64, ino: UInt64)?, expiryTask: RepeatedTask, logger: Logger)
    {
        self.services = services
        self.group = group
        self.serverChannel = serverChannel
        self.tracker = tracker
        self.socketIdentity = socketIdentity
        self.expiryTask = expiryTask
        self.logger = logger
    }

    /// Stops accepting, lets every connection answer what it has in hand (up to `grace`),
    /// closes the database cleanly and removes the socket file.
    public func stop(grace: Duration = .seconds(10)) async {
        logger.info("stopping", metadata: ["connections": "\(tracker.count)"])
        try? await serverChannel.close()
        expiryTask.cancel()
        let drained = tracker.drainAll(on: group.next())
        // Whichever comes first: every connection closed, or the grace period over.
        await withTaskGroup(of: Void.self) { race in
            race.addTask { try? await drained.get() }
            race.addTask { try? await Task.sleep(for: grace) }
            await race.next()
            race.cancelAll()
        }
        SocketFile.removeIfOurs(services.configuration.socketPath, identity: socketIdentity)
        for case let gpsd as GpsdProvider in services.location.providers { gpsd.stop() }
        try? await group.shutdownGracefully()
        do {
            try services.store.close()
        } catch {
            logger.error("closing the database failed", metadata: ["error": "\(error)"])
        }
        logger.info("stopped")
    }

    private static func loadSpecies(_ file: String) throws(ConfigurationError) -> SpeciesCatalog {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ConfigurationError("species.file: cannot read \(file): \(describe(error))")
        }
        do {
            return try SpeciesCatalog(json: try JSONParser.parse(Array(data)))
        } catch let error as JSONParseError {
            throw ConfigurationError("species.file: \(file) is not valid JSON: \(error)")
        } catch {
            throw ConfigurationError("species.file: \(file): \(error)")
        }
    }

    static func makeLocationService(_ c: DaemonConfiguration, clock: DaemonClock, logger: Logger) throws(ConfigurationError) -> LocationService {
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
                providers.append(GpsdProvider(settings: settings, logger: logger, monotonicNanos: clock.monotonicNanos))
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

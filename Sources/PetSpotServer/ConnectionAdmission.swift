import Logging
import NIOCore
import PetSpotProtocol

/// Lets a new connection in, or turns it away saying why: a place under
/// `limits.maxConnections`, the peer's credentials and groups from the kernel, a place under its
/// uid's own limit; then the pipeline that serves it. Everything is read per connection, so a
/// reload applies to every connection opened after it.
struct ConnectionAdmission: Sendable {
    let services: DaemonServices
    let routes: Routes
    let tracker: ConnectionTracker
    let buffers: ClientMemoryBudget
    let faults: FaultLog
    let logger: Logger

    /// The child channel initializer.
    func admit(_ channel: any Channel) -> EventLoopFuture<Void> {
        let limits = services.limits
        guard tracker.admit(channel) else {
            return channel.eventLoop.makeCompletedFuture {
                try refuse(channel, "limits.maxConnections", limits.maxConnections, log: "refusing a connection: limit reached",
                           "the daemon serves its maximum of \(limits.maxConnections) connections; try again later")
            }
        }
        let peer = PeerCredentials.read(from: channel).and(PeerGroups.read(from: channel)).map { $0.with(groups: $1) }
        return peer.and(SocketCookie.read(from: channel)).flatMapThrowing { peer, cookie in
            let perUser = Self.connectionsPerUser(peer, services.settings)
            guard tracker.admit(channel, user: peer.uid, limit: perUser.limit) else {
                try refuse(channel, perUser.setting, perUser.limit, log: "refusing a connection: the user's limit reached",
                           "uid \(peer.uid) holds its maximum of \(perUser.limit) connections; close one or try again later",
                           metadata: ["uid": "\(peer.uid)"])
                return
            }
            try serve(channel, peer: peer, cookie: cookie, limits: limits)
        }
    }

    private func serve(_ channel: any Channel, peer: Peer, cookie: UInt64?, limits: DaemonConfiguration.Limits) throws {
        let watermark = ChannelOptions.Types.WriteBufferWaterMark(low: limits.maxPendingOutputBytes / 2, high: limits.maxPendingOutputBytes)
        try channel.syncOptions?.setOption(.writeBufferWaterMark, value: watermark)
        let account = ClientMemoryAccount(budget: buffers, uid: peer.uid)
        let handlers: [any ChannelHandler] = [
            ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limits.maxLineBytes, account: account)),
            ConnectionHandler(routes: routes, services: services, peer: peer, limits: limits, logger: logger, socketCookie: cookie,
                              account: account, eventLoop: channel.eventLoop),
        ]
        try channel.pipeline.syncOperations.addHandlers(handlers)
        // Accepted while the daemon began to stop: drained like the others.
        if tracker.isDraining {
            channel.pipeline.fireUserInboundEventTriggered(DrainAndCloseEvent(descriptors: SocketCookie.descriptors()))
        }
    }

    /// A connection over `setting`: a rate-limited warning, and the client is told why in one
    /// line (`RefuseConnectionHandler`) before it is closed.
    private func refuse(_ channel: any Channel, _ setting: String, _ limit: Int, log: String, _ message: String,
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
}

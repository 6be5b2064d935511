import Logging
import NIOCore
import ServiceLifecycle

/// The listening socket and its connections. Serving begins when the daemon has started; this
/// service's part is the stop: stop accepting, let every connection answer what it has in hand
/// and close, and remove the socket file. The wait ends early when the service is cancelled:
/// by `limits.drainTimeoutSeconds` (the group's longest graceful shutdown) or a second signal.
///
/// NIOExtras' `ServerQuiescingHelper` does the first half of this, but `ConnectionTracker` is
/// kept: it also counts connections against `limits.maxConnections`, and its drain event
/// carries one scan of the process's sockets so each connection can shut its input and answer
/// every line its client sent before the stop (DurabilityTests `sigtermAnswersEveryLineSent`).
struct ServerService: Service {
    struct OwnSocket: Sendable {
        let path: String
        let identity: (dev: UInt64, ino: UInt64)
    }

    let serverChannel: any Channel
    let tracker: ConnectionTracker
    /// The socket file this process created; nil under socket activation (systemd owns it).
    let ownSocket: OwnSocket?
    let notifier: SystemdNotifier?
    let logger: Logger

    func run() async {
        try? await gracefulShutdown()
        notifier?.notify("STOPPING=1", "STATUS=Stopping")
        logger.info("stopping", metadata: ["connections": "\(tracker.count)"])
        try? await serverChannel.close()
        let drained = tracker.drainAll()
        logger.info("draining connections", metadata: ["connections": "\(tracker.count)"])
        if await drained.first(where: { true }) == nil {
            logger.warning("closing connections that have not finished", metadata: ["connections": "\(tracker.count)"])
        }
        if let ownSocket { SocketFile.removeIfOurs(ownSocket.path, identity: ownSocket.identity) }
    }
}

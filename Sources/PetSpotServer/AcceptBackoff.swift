import Logging
import NIOCore

/// Accepting fails while the process is out of descriptors (EMFILE, ENFILE) or the kernel out
/// of memory; the client stays in the listen queue. Retrying at once would spin a core for as
/// long as that lasts, so NIO's `AcceptBackoffHandler` pauses accepting, for a pause that
/// grows with each failure in a row; a single line is logged when an episode begins and one
/// when accepting works again.
final class AcceptBackoff: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    static let firstPause = TimeAmount.milliseconds(10)
    static let longestPause = TimeAmount.milliseconds(500)

    private let logger: Logger
    private var failures = 0
    private var episodeStart: NIODeadline?

    init(logger: Logger) {
        self.logger = logger
    }

    /// The two handlers to put in front of the server channel's accept handler.
    static func handlers(logger: Logger) -> [any ChannelHandler] {
        let episode = AcceptBackoff(logger: logger)
        return [
            AcceptBackoffHandler(shouldForwardIOErrorCaught: true) { _ in episode.nextPause() },
            episode,
        ]
    }

    /// 10 ms, doubling to 500 ms: a freed descriptor is used soon, and a long episode costs
    /// two accept calls a second.
    func nextPause() -> TimeAmount {
        failures += 1
        let doublings = min(failures - 1, 16)
        return .nanoseconds(min(Self.firstPause.nanoseconds << doublings, Self.longestPause.nanoseconds))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard error is IOError else {
            context.fireErrorCaught(error)
            return
        }
        if episodeStart == nil {
            episodeStart = .now()
            logger.error("cannot accept connections; pausing accepting until it works again", metadata: [
                "error": "\(error)", "connections": "waiting in the listen queue",
            ])
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let start = episodeStart {
            let milliseconds = (NIODeadline.now() - start).nanoseconds / 1_000_000
            logger.notice("accepting connections again", metadata: ["failedAttempts": "\(failures)", "afterMs": "\(milliseconds)"])
            episodeStart = nil
            failures = 0
        }
        context.fireChannelRead(data)
    }
}

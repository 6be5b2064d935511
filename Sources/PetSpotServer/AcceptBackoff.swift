import Logging
import NIOCore

/// Accepting fails while the process is out of descriptors (EMFILE, ENFILE) or the kernel out
/// of memory; the client stays in the listen queue, so the socket stays readable and NIO tries
/// again at once, for as long as that lasts: a core spun at 100%. This handler stops reading
/// the listening socket for a pause that grows with each failure in a row, then tries again.
/// One line is logged when an episode begins and one when accepting works again.
///
/// NIO's `AcceptBackoffHandler` only delays `read()` calls; a failed accept leaves the
/// channel's read pending and registered, so on Linux it does not stop the loop. Turning
/// `autoRead` off unregisters the socket; an explicit `read()` registers it again.
final class AcceptBackoff: ChannelInboundHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    static let firstPause = TimeAmount.milliseconds(10)
    static let longestPause = TimeAmount.milliseconds(500)

    private let logger: Logger
    private var failures = 0
    private var episodeStart: NIODeadline?
    private var resume: Scheduled<Void>?

    init(logger: Logger) {
        self.logger = logger
    }

    /// 10 ms, doubling to 500 ms: a freed descriptor is used soon, and a long episode costs
    /// two accept calls a second.
    static func pause(afterFailures failures: Int) -> TimeAmount {
        let doublings = min(max(failures - 1, 0), 16)
        return .nanoseconds(min(firstPause.nanoseconds << doublings, longestPause.nanoseconds))
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        guard error is IOError else {
            context.fireErrorCaught(error)
            return
        }
        failures += 1
        if episodeStart == nil {
            episodeStart = context.eventLoop.now
            logger.error("cannot accept connections; pausing accepting until it works again", metadata: [
                "error": "\(error)", "clients": "wait in the listen queue",
            ])
        }
        guard resume == nil else { return }
        try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: Self.pause(afterFailures: failures)) { [self] in
            resume = nil
            guard context.channel.isActive else { return }
            try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
            context.read()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if let start = episodeStart {
            let milliseconds = (context.eventLoop.now - start).nanoseconds / 1_000_000
            logger.notice("accepting connections again", metadata: ["failedAttempts": "\(failures)", "afterMs": "\(milliseconds)"])
            episodeStart = nil
            failures = 0
        }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
        context.fireChannelInactive()
    }
}

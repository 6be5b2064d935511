import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// Asks a connection to finish what it has in hand, then close: sent at shutdown.
struct DrainAndCloseEvent {}

/// Serves one client connection. Requests run one at a time in the order they came, so a
/// pipelined `continue` never overtakes the photo update before it; the connection keeps
/// reading ahead (bounded in count and bytes) while a slow request (location, disk, photo)
/// runs off the event loop. Small requests that only touch memory are answered on the event
/// loop directly, with one flush per read batch.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = LineFrame
    typealias OutboundOut = ByteBuffer

    /// Lines at least this long are parsed and answered off the event loop: parsing and
    /// normalising megabytes would hold up every other connection on the loop.
    static let offloadLineBytes = 64 * 1024

    private let router: RequestRouter
    private let peer: Peer
    private let limits: DaemonConfiguration.Limits
    private let logger: Logger

    /// Lines read but not yet taken in hand, and their size.
    private var waiting = CircularBuffer<LineFrame>()
    private var waitingBytes = 0
    /// A request of this connection is running off the event loop.
    private var busy = false
    private var readingPaused = false
    private var closing = false
    /// The daemon is stopping: what is in hand is answered, anything newer is refused.
    private var draining = false
    private var wroteSinceFlush = false
    /// The newest answer handed to the channel: closing waits for it to reach the socket,
    /// since closing fails whatever is still queued.
    private var lastWrite: EventLoopFuture<Void>?
    private var closeStarted = false

    init(router: RequestRouter, peer: Peer, limits: DaemonConfiguration.Limits, logger: Logger) {
        self.router = router
        self.peer = peer
        self.limits = limits
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        waiting.append(frame)
        waitingBytes += frame.size
        runWaiting(context: context)
        if !readingPaused, waiting.count >= limits.maxQueuedRequests || waitingBytes > limits.maxLineBytes {
            // Back-pressure: the client waits until its earlier requests are answered.
            readingPaused = true
            context.channel.setOption(ChannelOptions.autoRead, value: false).whenFailure { _ in }
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // Half-closed (`nc -N`, socat at EOF): answer everything, then close.
            closing = true
            closeIfDone(context: context)
        } else if event is DrainAndCloseEvent {
            draining = true
            closing = true
            closeIfDone(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if !context.channel.isWritable {
            // A client that does not read its answers must not make the daemon hold them all.
            logger.warning("closing a connection whose client does not read its answers", metadata: [
                "uid": "\(peer.uid)", "pid": "\(peer.pid)", "limit": "limits.maxPendingOutputBytes=\(limits.maxPendingOutputBytes)",
            ])
            closing = true
            context.close(promise: nil)
        }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("connection error", metadata: ["uid": "\(peer.uid)", "error": "\(error)"])
        context.close(promise: nil)
    }

    // MARK: one request at a time

    /// Takes waiting lines in hand until one has to wait for something.
    private func runWaiting(context: ChannelHandlerContext) {
        // A client that is gone gets nothing more done on its behalf.
        guard context.channel.isActive else {
            waiting.removeAll()
            waitingBytes = 0
            return
        }
        while !busy, let frame = waiting.popFirst() {
            waitingBytes -= frame.size
            take(frame, context: context)
        }
        if readingPaused, waiting.count <= limits.maxQueuedRequests / 2, waitingBytes <= limits.maxLineBytes / 2, !closing {
            readingPaused = false
            context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
        closeIfDone(context: context)
    }

    private func take(_ frame: LineFrame, context: ChannelHandlerContext) {
        switch frame {
        case .tooLong(let limit):
            let error = RPCError(.lineTooLong, "the line is longer than \(limit) bytes and was skipped up to its newline",
                                 details: ["limit": "limits.maxLineBytes", "max": .int(limit)])
            router.faults.limitHit("limits.maxLineBytes", kind: "lineTooLong", peer: peer, error.message)
            write(RPCResponse.failure(id: .null, error).json, context: context)
        case .line(let line):
            if line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
            let request = RequestContext(router: router, peer: peer, limits: limits, draining: draining)
            if line.readableBytes >= Self.offloadLineBytes {
                let bytes = Array(line.readableBytesView)
                wait(for: { await request.answer(line: bytes) }, context: context)
                return
            }
            switch request.start(line: line) {
            case .answered(let answer):
                write(answer, context: context)
            case .waiting(let rest):
                wait(for: rest, context: context)
            }
        }
    }

    /// Runs `work` off the event loop; the connection takes nothing else in hand meanwhile.
    private func wait(for work: @escaping @Sendable () async -> JSONValue?, context: ChannelHandlerContext) {
        busy = true
        let promise = context.eventLoop.makePromise(of: JSONValue?.self)
        promise.completeWithTask(work)
        promise.futureResult.assumeIsolated().whenSuccess { [self] answer in
            busy = false
            write(answer, context: context)
            flushIfNeeded(context: context)
            runWaiting(context: context)
            flushIfNeeded(context: context)
        }
    }

    // MARK: answers

    private func write(_ answer: JSONValue?, context: ChannelHandlerContext) {
        guard let answer, context.channel.isActive else { return }
        var bytes = JSONWriter.bytes(answer)
        bytes.append(UInt8(ascii: "\n"))
        lastWrite = context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)))
        wroteSinceFlush = true
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        if wroteSinceFlush {
            wroteSinceFlush = false
            context.flush()
        }
    }

    private func closeIfDone(context: ChannelHandlerContext) {
        guard closing, !busy, waiting.isEmpty, !closeStarted, context.channel.isActive else { return }
        closeStarted = true
        flushIfNeeded(context: context)
        guard let lastWrite else {
            context.close(promise: nil)
            return
        }
        lastWrite.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

extension LineFrame {
    /// What the frame holds in memory while it waits.
    var size: Int {
        switch self {
        case .line(let buffer): buffer.readableBytes
        case .tooLong: 0
        }
    }
}

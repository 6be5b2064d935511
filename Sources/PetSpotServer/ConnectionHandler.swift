#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import PetSpotJSON

/// Serves one client connection: wires the channel's events to the connection's
/// `ConnectionStateMachine`, which decides, and does what it decides (read or not, answer,
/// write, flush, close). Requests run one at a time in the order they came, so a pipelined
/// `continue` never overtakes the photo update before it; the connection keeps reading ahead
/// (bounded in count and bytes) while a slow request (location, disk, photo) runs off the event
/// loop. Small requests that only touch memory are answered on the event loop directly, with
/// one write and one flush per read batch.
///
/// Answers a client has not read yet (`limits.maxPendingOutputBytes`) hold the connection
/// back: it takes no new request until they drain, however large a single answer is. Only a
/// client that takes none of them for `limits.stalledReaderTimeoutSeconds` is closed
/// (`StallWatch`). Unsent answers count against the memory budget (`ClientMemoryAccount`);
/// past its user's share, a connection with answers waiting is held back the same way.
///
/// Notifications of the connection's watches wait in its `Subscriber` (coalesced, bounded,
/// counted in the user's share) and are written only between answers and once the socket has
/// taken what was written before: one caused by a request goes out after that request's answer.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = LineFrame
    typealias OutboundOut = ByteBuffer

    private let responder: any Responding
    typealias RunLater = (@escaping @Sendable () async -> ByteBuffer?, any EventLoop) -> EventLoopFuture<ByteBuffer?>
    private let runLater: RunLater
    private let peer: Peer
    private let limits: DaemonConfiguration.Limits
    private let logger: Logger
    /// The socket's SO_COOKIE, to find its descriptor at shutdown.
    private let socketCookie: UInt64?
    /// The connection's watches and the hub that knows them (closing ends them); nil in tests
    /// of the handler alone.
    private let subscriber: Subscriber?
    private let subscriptions: SubscriptionHub?
    /// Where the subscriber's news reaches this handler, on its event loop, while it is in the pipeline.
    private let wakeTarget: NIOLoopBoundBox<ConnectionHandler?>?
    /// The lines, unsent answers and waiting notifications held for this client, counted against
    /// the memory budget (shared with the line decoder); nil in tests of the handler alone.
    private let account: ClientMemoryAccount?
    private var context: ChannelHandlerContext?

    /// Every decision about the connection.
    private var machine: ConnectionStateMachine
    /// The daemon's descriptors by socket cookie, to shut this one's input when draining.
    private var drainDescriptors: [UInt64: CInt] = [:]
    /// Writes not flushed yet.
    private var wroteSinceFlush = false
    /// Small answers written since the last flush, not yet handed to the channel.
    private var gathered: ByteBuffer?
    /// Answers are gathered up to this many bytes (a channel's write watermark is at least 64 KiB).
    static let gatheredBytes = 16 * 1024
    /// An answer was handed to the channel: closing waits for the answers to reach the socket,
    /// since closing fails whatever is still queued.
    private var wroteAny = false
    /// `runWaiting` is on the stack: writability can change inside a write.
    private var runningWaiting = false
    /// Watching a connection held back by its client for progress, while it is.
    private var stallWatch: StallWatch?
    private var stallCheck: Scheduled<Void>?
    /// Counting again what waits to go out, while some does: NIO says when the channel's
    /// writes pass a watermark, not when each leaves.
    private var outputRecount: Scheduled<Void>?
    static let outputRecountInterval = TimeAmount.milliseconds(100)

    convenience init(routes: Routes, services: DaemonServices, peer: Peer, limits: DaemonConfiguration.Limits, logger: Logger,
                     socketCookie: UInt64? = nil, account: ClientMemoryAccount? = nil, eventLoop: any EventLoop)
    {
        let logger = Self.connectionLogger(logger, peer: peer)
        let target = NIOLoopBoundBox.makeEmptyBox(valueType: ConnectionHandler.self, eventLoop: eventLoop)
        let subscriber = Subscriber(peer: peer, budget: account?.budget) { eventLoop.execute { target.value?.notificationsWaiting() } }
        self.init(responder: Responder(routes: routes, services: services, peer: peer, logger: logger, subscriber: subscriber,
                                       batchRoom: account?.batches),
                  peer: peer, limits: limits, logger: logger, socketCookie: socketCookie, account: account,
                  watches: (subscriber, services.subscriptions, target))
    }

    /// `runLater` runs an answer's work off the event loop and completes on it: a task, or in
    /// tests of the handler alone, a promise the test fulfils when it chooses.
    init(responder: any Responding, peer: Peer, limits: DaemonConfiguration.Limits, logger: Logger, socketCookie: UInt64? = nil,
         account: ClientMemoryAccount? = nil, watches: (Subscriber, SubscriptionHub, NIOLoopBoundBox<ConnectionHandler?>)? = nil,
         runLater: @escaping RunLater = { work, eventLoop in eventLoop.makeFutureWithTask(work) })
    {
        self.responder = responder
        self.runLater = runLater
        self.machine = ConnectionStateMachine(maxQueuedRequests: limits.maxQueuedRequests, maxQueuedBytes: limits.maxLineBytes)
        self.account = account
        self.peer = peer
        self.limits = limits
        self.logger = logger
        self.socketCookie = socketCookie
        (subscriber, subscriptions, wakeTarget) = (watches?.0, watches?.1, watches?.2)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        wakeTarget?.value = self
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        outputRecount?.cancel()
        outputRecount = nil
        endWatches()
        account?.close()
        self.context = nil
    }

    /// The connection's logger says who the client is; each request's adds its id and method.
    static func connectionLogger(_ logger: Logger, peer: Peer) -> Logger {
        var logger = logger
        logger[metadataKey: "uid"] = "\(peer.uid)"
        logger[metadataKey: "pid"] = "\(peer.pid)"
        return logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        machine.read(unwrapInboundIn(data))
        runWaiting(context: context)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // Half-closed (`nc -N`, socat at EOF), or the input shut when stopping: answer
            // everything, then close.
            machine.inputEnded()
            updateReading(context: context)
            closeIfDone(context: context)
        } else if let event = event as? DrainAndCloseEvent {
            machine.drain()
            drainDescriptors = event.descriptors
            // Lines already read but not yet begun are refused from now on; keep reading so
            // that what the client already sent is read and answered too.
            updateReading(context: context)
            closeIfDone(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            machine.writability(true)
            endStallWatchIfFree()
            updateReading(context: context)
            writeNotifications(context: context)
            runWaiting(context: context)
            // Counted after a flush; without one, what left since still has to be.
            if !flushIfNeeded(context: context) { countOutput(context: context) }
        } else if !machine.output.blockedByWatermark {
            machine.writability(false)
            updateReading(context: context)
            watchForStall(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stallCheck?.cancel()
        stallCheck = nil
        outputRecount?.cancel()
        outputRecount = nil
        endWatches()
        account?.close()
        context.fireChannelInactive()
    }

    // MARK: notifications

    /// The connection is gone: its watches end, and the subscriber lets go of this handler.
    private func endWatches() {
        if let subscriber, let subscriptions { subscriptions.connectionClosed(subscriber) }
        wakeTarget?.value = nil
    }

    /// The subscriber has notifications waiting.
    func notificationsWaiting() {
        guard let context else { return }
        writeNotifications(context: context)
        // Those that must wait (an answer in hand, output not yet sent) count in the subscriber
        // and may have taken the user past its share, which this connection then follows.
        if !flushIfNeeded(context: context) { countOutput(context: context) }
    }

    /// Writes what waits, unless an answer is in hand or the channel still holds output the
    /// socket did not take: then they wait on (coalesced, bounded, counted) in the subscriber
    /// until the answer is written or the client has read what was sent before, and go out
    /// together in one buffer.
    private func writeNotifications(context: ChannelHandlerContext) {
        guard let subscriber, machine.mayWriteNotifications, context.channel.isActive else { return }
        let queued = subscriber.takeQueued()
        guard !queued.isEmpty else { return }
        var lines = context.channel.allocator.buffer(capacity: queued.reduce(0) { $0 + $1.line.count + 1 })
        for (index, notification) in queued.enumerated() {
            // `write` ends the last one.
            if index > 0 { lines.writeInteger(UInt8(ascii: "\n")) }
            lines.writeBytes(notification.line)
        }
        // The subscriber gave back their room when they were taken: they count here now.
        write(consume lines, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        logger.debug("connection error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }

    private func updateReading(context: ChannelHandlerContext) {
        guard let wanted = machine.readingChange() else { return }
        context.channel.setOption(ChannelOptions.autoRead, value: wanted).whenFailure { _ in }
    }

    // MARK: a client that does not read

    /// Closes the connection once its pending answers have not gone down for the timeout.
    private func watchForStall(context: ChannelHandlerContext) {
        guard stallWatch == nil else { return }
        stallWatch = StallWatch(timeout: .seconds(Int64(limits.stalledReaderTimeoutSeconds)), now: context.eventLoop.now,
                                buffered: unsentBytes(context))
        scheduleStallCheck(context: context)
    }

    /// The stall watch ends once nothing holds the connection back any more.
    private func endStallWatchIfFree() {
        guard !machine.heldBackByClient else { return }
        stallCheck?.cancel()
        stallCheck = nil
        stallWatch = nil
    }

    private func scheduleStallCheck(context: ChannelHandlerContext) {
        guard let interval = stallWatch?.interval else { return }
        stallCheck = context.eventLoop.assumeIsolated().scheduleTask(in: interval) { [self] in
            stallCheck = nil
            checkForStall(context: context)
        }
    }

    private func checkForStall(context: ChannelHandlerContext) {
        guard machine.heldBackByClient, context.channel.isActive, var watch = stallWatch else { return }
        let buffered = unsentBytes(context)
        let stalled = watch.hasStalled(now: context.eventLoop.now, buffered: buffered)
        stallWatch = watch
        guard stalled else {
            scheduleStallCheck(context: context)
            return
        }
        logger.warning("closing a connection whose client has not read its answers", metadata: [
            "unsentBytes": "\(buffered)",
            "limit": "limits.stalledReaderTimeoutSeconds=\(limits.stalledReaderTimeoutSeconds)",
        ])
        machine.closeNow()
        context.close(promise: nil)
    }

    /// Answers not sent yet: what the channel holds, and what is gathered for it.
    private func unsentBytes(_ context: ChannelHandlerContext) -> Int {
        let buffered = (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
        return buffered + (gathered?.readableBytes ?? 0)
    }

    // MARK: one request at a time

    /// Takes waiting lines in hand until one has to wait for something.
    private func runWaiting(context: ChannelHandlerContext) {
        // A client that is gone gets nothing more done on its behalf.
        guard context.channel.isActive else {
            machine.dropWaiting()
            return
        }
        // Writability can change inside a write; the loop below sees the new state.
        guard !runningWaiting else { return }
        runningWaiting = true
        defer { runningWaiting = false }
        while let frame = machine.nextLine(overShare: account?.overShare == true) {
            take(frame, context: context)
        }
        followShare(context: context)
        machine.settleQueue()
        updateReading(context: context)
        closeIfDone(context: context)
    }

    /// The line's bytes stay counted as held until it is answered.
    private func take(_ frame: LineFrame, context: ChannelHandlerContext) {
        let size = frame.size
        if case .line(let line) = frame, line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            account?.released(size)
            return
        }
        switch responder.answer(frame, draining: machine.lifecycle.isDraining) {
        case .ready(let answer):
            account?.released(size)
            write(answer, context: context)
        case .later(let work):
            wait(for: runLater(work, context.eventLoop), holding: size, context: context)
        }
    }

    /// The connection takes nothing else in hand until `answer` is written.
    private func wait(for answer: EventLoopFuture<ByteBuffer?>, holding size: Int, context: ChannelHandlerContext) {
        machine.waitsForAnswer()
        answer.assumeIsolated().whenComplete { [self] result in
            machine.answered()
            account?.released(size)
            // A failed answer has nothing to send; the connection goes on with the next line.
            write((try? result.get()) ?? nil, context: context)
            writeNotifications(context: context)
            flushIfNeeded(context: context)
            runWaiting(context: context)
            flushIfNeeded(context: context)
        }
    }

    // MARK: answers

    /// A line written already; `answer` is taken, not borrowed, so that one as large as the
    /// gathering takes its newline in the room left for it rather than in a copy.
    private func write(_ answer: consuming ByteBuffer?, context: ChannelHandlerContext) {
        write(answer.take().map(AnswerLine.bytes), context: context)
    }

    /// Small answers are gathered into one buffer and handed to the channel together
    /// (`handOver`), once before each flush: a pipelined client's 32 answers are one write
    /// through the pipeline and one piece of the socket's write, not 32. A result's line is
    /// written straight into the gathering, not into a buffer of its own first; a line as large
    /// as the gathering goes on its own.
    private func write(_ answer: AnswerLine?, context: ChannelHandlerContext) {
        guard let answer, context.channel.isActive else { return }
        let maxBytes = answer.maxBytes + 1
        guard maxBytes < Self.gatheredBytes else {
            handOver(context: context)
            var buffer = answer.buffer
            buffer.writeInteger(UInt8(ascii: "\n"))
            written(buffer.readableBytes)
            context.write(wrapOutboundOut(buffer), promise: nil)
            return
        }
        if gathered == nil || gathered!.readableBytes + maxBytes > Self.gatheredBytes {
            handOver(context: context)
            gathered = context.channel.allocator.buffer(capacity: maxBytes)
        }
        let before = gathered!.writerIndex
        answer.write(into: &gathered!)
        gathered!.writeInteger(UInt8(ascii: "\n"))
        written(gathered!.writerIndex - before)
    }

    /// `size` bytes of answers are on their way out.
    private func written(_ size: Int) {
        stallWatch?.written(size)
        account?.outputAdded(size)
        wroteAny = true
        wroteSinceFlush = true
    }

    /// Hands the gathered answers to the channel. No promise per write: closing learns that all
    /// are out from one empty write after them, and the budget what is left unsent after each
    /// flush (`countOutput`).
    private func handOver(context: ChannelHandlerContext) {
        guard let buffer = gathered.take() else { return }
        context.write(wrapOutboundOut(buffer), promise: nil)
    }

    /// Flushes what was written since the last flush, and counts what is left; answers whether
    /// it did.
    @discardableResult
    private func flushIfNeeded(context: ChannelHandlerContext) -> Bool {
        guard wroteSinceFlush else { return false }
        wroteSinceFlush = false
        handOver(context: context)
        context.flush()
        countOutput(context: context)
        return true
    }

    /// Counts against the budget what waits to go out: the channel's unsent bytes (a flush
    /// writes what the socket takes at once, so most answers have left by now); notifications
    /// still waiting in the subscriber count there. While some wait, counted again every
    /// `outputRecountInterval`, so that room comes back as the client reads.
    private func countOutput(context: ChannelHandlerContext) {
        let waiting = context.channel.isActive ? unsentBytes(context) : 0
        machine.unsent(waiting)
        if let account {
            account.outputWaiting(waiting)
            followShare(context: context)
        }
        guard waiting > 0, outputRecount == nil else { return }
        outputRecount = context.eventLoop.assumeIsolated().scheduleTask(in: Self.outputRecountInterval) { [self] in
            outputRecount = nil
            countOutput(context: context)
            // Notifications that waited behind what the socket had not taken go out once it has.
            writeNotifications(context: context)
            flushIfNeeded(context: context)
        }
    }

    /// Pauses the connection while its user is over its share with answers of it waiting, so
    /// that a user's unread answers stay within its share (plus about one answer a connection),
    /// and goes on once they have gone.
    private func followShare(context: ChannelHandlerContext) {
        let over = account?.overShare ?? false
        guard machine.share(over: over) else { return }
        if over {
            logger.debug("a connection waits: its user holds more than its share of lines and unsent answers",
                         metadata: ["limit": "limits.maxBufferedBytesPerUser=\(limits.maxBufferedBytesPerUser)"])
            // A client that never reads them is closed, as one past limits.maxPendingOutputBytes is.
            watchForStall(context: context)
        } else {
            endStallWatchIfFree()
        }
        updateReading(context: context)
        if !over {
            runWaiting(context: context)
            flushIfNeeded(context: context)
        }
    }

    private func closeIfDone(context: ChannelHandlerContext) {
        guard context.channel.isActive, var step = machine.closeStep() else { return }
        if step == .shutInput {
            // Lines the client sent before this moment are read, and answered `shuttingDown`;
            // its later writes fail at once (EPIPE) instead of going unread. The end of input
            // comes back as `inputClosed`, and the connection closes then.
            if let cookie = socketCookie, let fd = drainDescriptors[cookie], shutdown(fd, CInt(SHUT_RD)) == 0 { return }
            step = machine.inputShutFailed()
        }
        flushIfNeeded(context: context)
        guard wroteAny else {
            context.close(promise: nil)
            return
        }
        // Writes complete in order: once this empty one has, every answer before it is out.
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

extension LineFrame {
    /// What the frame holds in memory while it waits.
    var size: Int {
        switch self {
        case .line(let buffer): buffer.readableBytes
        case .tooLong, .refused: 0
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import PetSpotJSON

/// Serves one client connection. Requests run one at a time in the order they came, so a
/// pipelined `continue` never overtakes the photo update before it; the connection keeps
/// reading ahead (bounded in count and bytes) while a slow request (location, disk, photo)
/// runs off the event loop. Small requests that only touch memory are answered on the event
/// loop directly, with one flush per read batch.
///
/// Answers a client has not read yet (`limits.maxPendingOutputBytes`) hold the connection
/// back: it takes no new request until they drain, however large a single answer is. Only a
/// client that takes none of them for `limits.stalledReaderTimeoutSeconds` is closed. Unsent
/// answers count against the memory budget (`ClientMemoryAccount`); past its user's share, a
/// connection with answers waiting is held back the same way.
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

    /// Lines read but not yet taken in hand, and their size.
    private var waiting = CircularBuffer<LineFrame>()
    private var waitingBytes = 0
    /// A request of this connection is running off the event loop.
    private var busy = false
    /// Too many lines wait: reading stops until half of them are answered.
    private var queueFull = false
    /// The client has not taken its answers: nothing new is taken in hand or read.
    private var outputBlocked = false
    /// Answers of this connection wait while its user holds more than its share of the memory
    /// budget: nothing new is taken in hand or read until they have gone.
    private var overShare = false
    private var reading = true
    private var closing = false
    /// The daemon is stopping: what is in hand is answered, anything newer is refused.
    private var draining = false
    /// The input has ended (the client half-closed, or the daemon shut it when stopping).
    private var inputClosed = false
    private var inputShutdownRequested = false
    private var drainDescriptors: [UInt64: CInt] = [:]
    private var wroteSinceFlush = false
    /// An answer was handed to the channel: closing waits for the answers to reach the socket,
    /// since closing fails whatever is still queued.
    private var wroteAny = false
    private var closeStarted = false
    private var runningWaiting = false

    /// Watching a blocked connection for progress.
    private var stallCheck: Scheduled<Void>?
    /// Set when a stall watch starts; read on the event loop's clock, which its checks are scheduled on.
    private var lastProgress = NIODeadline.uptimeNanoseconds(0)
    private var bufferedAtCheck = 0
    private var writtenSinceCheck = 0
    /// Counting again what waits to go out, while some does: NIO says when the channel's
    /// writes pass a watermark, not when each leaves.
    private var outputRecount: Scheduled<Void>?
    /// At the last count the channel held output the socket had not taken: notifications wait
    /// behind it in the subscriber, where they take less memory and can become one `overflow`.
    private var unsentOutput = false
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
        let frame = unwrapInboundIn(data)
        waiting.append(frame)
        waitingBytes += frame.size
        runWaiting(context: context)
        if !queueFull, waiting.count >= limits.maxQueuedRequests || waitingBytes > limits.maxLineBytes {
            // Back-pressure: the client waits until its earlier requests are answered.
            queueFull = true
            updateReading(context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            // Half-closed (`nc -N`, socat at EOF), or the input shut when stopping: answer
            // everything, then close.
            inputClosed = true
            closing = true
            closeIfDone(context: context)
        } else if let event = event as? DrainAndCloseEvent {
            draining = true
            closing = true
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
            outputBlocked = false
            endStallWatchIfFree()
            updateReading(context: context)
            writeNotifications(context: context)
            runWaiting(context: context)
            // Counted after a flush; without one, what left since still has to be.
            if !flushIfNeeded(context: context) { countOutput(context: context) }
        } else if !outputBlocked {
            outputBlocked = true
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
        guard let subscriber, !busy, !outputBlocked, !unsentOutput, !closeStarted, context.channel.isActive else { return }
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
        let wanted = !outputBlocked && !overShare && !queueFull && !inputClosed
        guard wanted != reading else { return }
        reading = wanted
        context.channel.setOption(ChannelOptions.autoRead, value: wanted).whenFailure { _ in }
    }

    // MARK: a client that does not read

    /// Closes the connection once its pending answers have not gone down for the timeout.
    private func watchForStall(context: ChannelHandlerContext) {
        guard stallCheck == nil else { return }
        lastProgress = context.eventLoop.now
        bufferedAtCheck = bufferedBytes(context)
        writtenSinceCheck = 0
        scheduleStallCheck(context: context)
    }

    /// The stall watch ends once nothing holds the connection back any more.
    private func endStallWatchIfFree() {
        guard !outputBlocked, !overShare else { return }
        stallCheck?.cancel()
        stallCheck = nil
    }

    private func scheduleStallCheck(context: ChannelHandlerContext) {
        let every = TimeAmount.nanoseconds(max(stallTimeout.nanoseconds / 4, 10_000_000))
        stallCheck = context.eventLoop.assumeIsolated().scheduleTask(in: every) { [self] in
            stallCheck = nil
            checkForStall(context: context)
        }
    }

    private var stallTimeout: TimeAmount { .seconds(Int64(limits.stalledReaderTimeoutSeconds)) }

    private func checkForStall(context: ChannelHandlerContext) {
        guard outputBlocked || overShare, context.channel.isActive else { return }
        let buffered = bufferedBytes(context)
        let now = context.eventLoop.now
        // Answers added since the last look count: bytes went out if fewer remain than that.
        if buffered < bufferedAtCheck + writtenSinceCheck { lastProgress = now }
        bufferedAtCheck = buffered
        writtenSinceCheck = 0
        guard now - lastProgress >= stallTimeout else {
            scheduleStallCheck(context: context)
            return
        }
        logger.warning("closing a connection whose client has not read its answers", metadata: [
            "unsentBytes": "\(buffered)",
            "limit": "limits.stalledReaderTimeoutSeconds=\(limits.stalledReaderTimeoutSeconds)",
        ])
        closing = true
        context.close(promise: nil)
    }

    private func bufferedBytes(_ context: ChannelHandlerContext) -> Int {
        (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
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
        // Writability can change inside a write; the loop below sees the new state.
        guard !runningWaiting else { return }
        runningWaiting = true
        defer { runningWaiting = false }
        while !busy, !outputBlocked, account?.overShare != true, let frame = waiting.popFirst() {
            waitingBytes -= frame.size
            take(frame, context: context)
        }
        followShare(context: context)
        if queueFull, waiting.count <= limits.maxQueuedRequests / 2, waitingBytes <= limits.maxLineBytes / 2 {
            queueFull = false
            updateReading(context: context)
        }
        closeIfDone(context: context)
    }

    /// The line's bytes stay counted as held until it is answered.
    private func take(_ frame: LineFrame, context: ChannelHandlerContext) {
        let size = frame.size
        if case .line(let line) = frame, line.readableBytesView.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            account?.released(size)
            return
        }
        switch responder.answer(frame, draining: draining) {
        case .now(let answer):
            account?.released(size)
            write(answer, context: context)
        case .later(let work):
            wait(for: runLater(work, context.eventLoop), holding: size, context: context)
        }
    }

    /// The connection takes nothing else in hand until `answer` is written.
    private func wait(for answer: EventLoopFuture<ByteBuffer?>, holding size: Int, context: ChannelHandlerContext) {
        busy = true
        answer.assumeIsolated().whenComplete { [self] result in
            busy = false
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

    /// `answer` is taken, not borrowed: the newline then goes into the room left for it rather
    /// than into a copy.
    private func write(_ answer: consuming ByteBuffer?, context: ChannelHandlerContext) {
        guard var buffer = answer.take(), context.channel.isActive else { return }
        buffer.writeInteger(UInt8(ascii: "\n"))
        let size = buffer.readableBytes
        writtenSinceCheck += size
        // No promise per answer: closing learns that all are out from one empty write after them,
        // and the budget what is left unsent after each flush (`countOutput`).
        context.write(wrapOutboundOut(buffer), promise: nil)
        account?.outputAdded(size)
        wroteAny = true
        wroteSinceFlush = true
    }

    /// Flushes what was written since the last flush, and counts what is left; answers whether
    /// it did.
    @discardableResult
    private func flushIfNeeded(context: ChannelHandlerContext) -> Bool {
        guard wroteSinceFlush else { return false }
        wroteSinceFlush = false
        context.flush()
        countOutput(context: context)
        return true
    }

    /// Counts against the budget what waits to go out: the channel's unsent bytes (a flush
    /// writes what the socket takes at once, so most answers have left by now); notifications
    /// still waiting in the subscriber count there. While some wait, counted again every
    /// `outputRecountInterval`, so that room comes back as the client reads.
    private func countOutput(context: ChannelHandlerContext) {
        let waiting = context.channel.isActive ? bufferedBytes(context) : 0
        unsentOutput = waiting > 0
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
        guard over != overShare else { return }
        overShare = over
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
        guard closing, !busy, waiting.isEmpty, !closeStarted, context.channel.isActive else { return }
        if draining, !inputClosed {
            // Lines the client sent before this moment are read, and answered `shuttingDown`;
            // its later writes fail at once (EPIPE) instead of going unread. The end of input
            // comes back as `inputClosed`, and the connection closes then.
            if inputShutdownRequested { return }
            inputShutdownRequested = true
            if let cookie = socketCookie, let fd = drainDescriptors[cookie], shutdown(fd, CInt(SHUT_RD)) == 0 { return }
        }
        closeStarted = true
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

import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// Asks a connection to finish what it has in hand, then close: sent at shutdown.
struct DrainAndCloseEvent {}

/// Serves one client connection: parses each line, routes it, and writes the answers in the
/// order the requests came, even when a later request is answered before an earlier, slower
/// one (a location wait, a disk write). Fast requests are answered on the event loop directly;
/// only the slow ones leave it.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = LineFrame
    typealias OutboundOut = ByteBuffer

    private let router: RequestRouter
    private let peer: Peer
    private let limits: DaemonConfiguration.Limits
    private let logger: Logger

    /// Sequence number of the next request unit (a line), and of the next answer to write.
    private var nextSequence = 0
    private var nextToWrite = 0
    /// Answers that are ready but wait for an earlier one; nil means "nothing to write"
    /// (notifications, blank lines).
    private var finishedOutOfOrder: [Int: ByteBuffer?] = [:]
    private var readingPaused = false
    private var closing = false
    /// The daemon is stopping: what is in hand is answered, anything newer is refused.
    private var draining = false
    private var wroteSinceFlush = false

    init(router: RequestRouter, peer: Peer, limits: DaemonConfiguration.Limits, logger: Logger) {
        self.router = router
        self.peer = peer
        self.limits = limits
        self.logger = logger
    }

    private var unanswered: Int { nextSequence - nextToWrite }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let sequence = nextSequence
        nextSequence += 1
        switch unwrapInboundIn(data) {
        case .tooLong(let limit):
            let tooLong = RPCError(.lineTooLong, "the line is longer than \(limit) bytes and was skipped up to its newline",
                                   details: ["limit": "limits.maxLineBytes", "max": .int(limit)])
            finish(sequence, answer: RPCResponse.failure(id: .null, tooLong).json, context: context)
        case .line(let line):
            handle(line: line, sequence: sequence, context: context)
        }
        if unanswered >= limits.maxQueuedRequests, !readingPaused {
            // Back-pressure: stop reading until the answers catch up.
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
            beginClosing(context: context)
        } else if event is DrainAndCloseEvent {
            draining = true
            beginClosing(context: context)
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

    // MARK: requests

    private func handle(line: ByteBuffer, sequence: Int, context: ChannelHandlerContext) {
        if isBlank(line) {
            finish(sequence, answer: nil, context: context)
            return
        }
        let parsed: JSONValue
        do {
            parsed = try line.withUnsafeReadableBytes { raw throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(buffer: raw.bindMemory(to: UInt8.self), maxDepth: limits.maxJSONDepth)
            }
        } catch {
            finish(sequence, answer: RPCResponse.failure(id: .null, RPCError(.parseError, "not valid JSON: \(error)")).json, context: context)
            return
        }
        switch parsed {
        case .array(let elements):
            handleBatch(elements, sequence: sequence, context: context)
        default:
            switch answer(to: parsed) {
            case .now(let response):
                finish(sequence, answer: response, context: context)
            case .later(let work):
                let promise = context.eventLoop.makePromise(of: JSONValue?.self)
                promise.completeWithTask(work)
                promise.futureResult.assumeIsolated().whenSuccess { [self] response in
                    finish(sequence, answer: response, context: context)
                    flushIfNeeded(context: context)
                }
            }
        }
    }

    private func isBlank(_ line: ByteBuffer) -> Bool {
        line.readableBytesView.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    private func handleBatch(_ elements: [JSONValue], sequence: Int, context: ChannelHandlerContext) {
        if elements.isEmpty {
            finish(sequence, answer: RPCResponse.failure(id: .null, RPCError(.invalidRequest, "an empty batch holds no request")).json, context: context)
            return
        }
        if elements.count > limits.maxBatchSize {
            let error = RPCError.limitExceeded("limits.maxBatchSize", max: limits.maxBatchSize,
                                               "a batch may hold at most \(limits.maxBatchSize) requests; this one holds \(elements.count)")
            finish(sequence, answer: RPCResponse.failure(id: .null, error).json, context: context)
            return
        }
        let answers = elements.map { answer(to: $0) }
        let batchAnswer: (([JSONValue?]) -> JSONValue?) = { parts in
            let present = parts.compactMap { $0 }
            return present.isEmpty ? nil : .array(present)
        }
        if answers.allSatisfy({ if case .now = $0 { true } else { false } }) {
            let parts = answers.map { (answer) -> JSONValue? in
                if case .now(let response) = answer { return response }
                return nil
            }
            finish(sequence, answer: batchAnswer(parts), context: context)
            return
        }
        let loop = context.eventLoop
        let futures: [EventLoopFuture<JSONValue?>] = answers.map { item in
            switch item {
            case .now(let response): return loop.makeSucceededFuture(response)
            case .later(let work):
                let promise = loop.makePromise(of: JSONValue?.self)
                promise.completeWithTask(work)
                return promise.futureResult
            }
        }
        EventLoopFuture.whenAllSucceed(futures, on: loop).assumeIsolated().whenSuccess { [self] parts in
            finish(sequence, answer: batchAnswer(parts), context: context)
            flushIfNeeded(context: context)
        }
    }

    private enum Answer {
        case now(JSONValue?)
        case later(@Sendable () async -> JSONValue?)
    }

    /// One request of a line or a batch. Notifications run but answer nothing.
    private func answer(to value: JSONValue) -> Answer {
        let request: RPCRequest
        switch RPCRequest.validate(value) {
        case .failure(let failure):
            return .now(RPCResponse.failure(id: failure.id, failure.error).json)
        case .success(let r):
            request = r
        }
        let id = request.id
        if draining {
            return .now(id.map { RPCResponse.failure(id: $0, RPCError(.shuttingDown, "the daemon is stopping; send this again once it is back")).json })
        }
        switch router.route(request, peer: peer) {
        case .done(let outcome):
            return .now(id.map { RPCResponse(id: $0, outcome: outcome).json })
        case .pending(let work):
            return .later {
                let outcome = await work()
                return id.map { RPCResponse(id: $0, outcome: outcome).json }
            }
        }
    }

    // MARK: answers in order

    private func finish(_ sequence: Int, answer: JSONValue?, context: ChannelHandlerContext) {
        let buffer = answer.map { encode($0, allocator: context.channel.allocator) }
        if sequence == nextToWrite {
            write(buffer, context: context)
            nextToWrite += 1
            while let ready = finishedOutOfOrder.removeValue(forKey: nextToWrite) {
                write(ready, context: context)
                nextToWrite += 1
            }
        } else {
            finishedOutOfOrder[sequence] = buffer
        }
        if readingPaused, unanswered < limits.maxQueuedRequests / 2 + 1, !closing {
            readingPaused = false
            context.channel.setOption(ChannelOptions.autoRead, value: true).whenFailure { _ in }
        }
        if closing, unanswered == 0 {
            closeNow(context: context)
        }
    }

    private func encode(_ value: JSONValue, allocator: ByteBufferAllocator) -> ByteBuffer {
        var bytes = JSONWriter.bytes(value)
        bytes.append(UInt8(ascii: "\n"))
        return allocator.buffer(bytes: bytes)
    }

    private func write(_ buffer: ByteBuffer?, context: ChannelHandlerContext) {
        guard let buffer, context.channel.isActive else { return }
        context.write(wrapOutboundOut(buffer), promise: nil)
        wroteSinceFlush = true
    }

    private func flushIfNeeded(context: ChannelHandlerContext) {
        if wroteSinceFlush {
            wroteSinceFlush = false
            context.flush()
        }
    }

    private func beginClosing(context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        if unanswered == 0 { closeNow(context: context) }
    }

    private func closeNow(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.close(promise: nil)
    }
}

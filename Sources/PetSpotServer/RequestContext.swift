import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// Everything needed to answer one line, free of the channel: the one path from a line to its
/// answer. The same steps run on the event loop for small requests and in a task for large
/// lines (`RouterAnswering`).
struct RequestContext: Sendable {
    /// Strings at least this long stay in their line (`JSONValue.longString`) until the request
    /// is answered: a photo's text, which is then decoded from there, a part at a time.
    static let inPlaceStringBytes = 64 * 1024

    let router: RequestRouter
    let peer: Peer
    /// The connection's logger.
    let logger: Logger
    let limits: DaemonConfiguration.Limits
    let draining: Bool
    /// The connection's watches; nil where nothing can be notified.
    var subscriber: Subscriber? = nil
    /// Where a batch's answers count in the user's share as they are made; nil where nothing
    /// is counted.
    var batchRoom: BatchRoom? = nil

    /// Parses the line and answers what can be answered at once; hands back the rest as work.
    /// Requests of a batch run in order: once one has to wait, the ones after it wait too. Once
    /// its user holds its share, a batch runs none of its remaining requests (`BatchRoom`).
    /// Nil: nothing to send (only notifications).
    func respond(line: ByteBuffer) -> Reply<ByteBuffer?> {
        let parsed: JSONValue
        do {
            if line.readableBytes >= Self.inPlaceStringBytes {
                // A photo's base64 is read where it arrived, not copied into a String first.
                parsed = try JSONParser.parse(LineBytes(line), count: line.readableBytes, maxDepth: limits.maxJSONDepth,
                                              keepingStringsInPlaceFrom: Self.inPlaceStringBytes)
            } else {
                parsed = try line.withUnsafeReadableBytes { raw throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(buffer: raw.bindMemory(to: UInt8.self), maxDepth: limits.maxJSONDepth)
                }
            }
        } catch {
            return .now(AnswerLine.failure(RPCError(.parseError, "not valid JSON: \(error)")))
        }
        guard case .array(let elements) = parsed else {
            return respond(to: parsed)
        }
        if let refusal = refuseBatch(elements) { return .now(refusal) }
        var batch = BatchAnswers(room: batchRoom)
        for (index, element) in elements.enumerated() {
            switch respond(to: element, in: &batch) {
            case .now(let answer):
                batch.append(answer)
            case .later(let work):
                let rest = elements[(index + 1)...]
                return .later { [self, batch] in
                    var batch = batch
                    batch.append(await work())
                    for element in rest {
                        let answer = await respond(to: element, in: &batch).value
                        batch.append(answer)
                    }
                    return batch.finished()
                }
            }
        }
        return .now(batch.finished())
    }

    /// One request of a batch, run, or refused unrun once the user holds its share. A
    /// notification still runs (it adds no answer), and a request that is not valid is told so.
    private func respond(to element: JSONValue, in batch: inout BatchAnswers) -> Reply<ByteBuffer?> {
        if batch.refusal == nil, let refusal = batch.room?.noRoom() {
            batch.refusal = refusal
            router.faults.limitHit(refusal.setting, connection: logger, "a batch stopped running its requests: \(refusal.batchMessage)")
        }
        if let refusal = batch.refusal, case .success(let request) = RPCRequest.validate(element), let id = request.id {
            return .now(AnswerLine.failure(id: id, RPCError.limitExceeded(refusal.setting, max: refusal.limit, refusal.batchMessage)))
        }
        return respond(to: element)
    }

    /// One request of a line or a batch. Notifications run but answer nothing.
    func respond(to value: JSONValue) -> Reply<ByteBuffer?> {
        let request: RPCRequest
        switch RPCRequest.validate(value) {
        case .failure(let failure):
            return .now(failure.id.map { AnswerLine.failure(id: $0, failure.error) })
        case .success(let r):
            request = r
        }
        let id = request.id
        if draining {
            return .now(id.map { AnswerLine.failure(id: $0, RPCError(.shuttingDown, "the daemon is stopping; send this again once it is back")) })
        }
        switch router.route(request, peer: peer, subscriber: subscriber, logger: logger) {
        case .now(let outcome):
            return .now(id.map { AnswerLine.write(id: $0, outcome) })
        case .later(let work):
            return .later {
                let outcome = await work()
                return id.map { AnswerLine.write(id: $0, outcome) }
            }
        }
    }

    private func refuseBatch(_ elements: [JSONValue]) -> ByteBuffer? {
        if elements.isEmpty {
            return AnswerLine.failure(RPCError(.invalidRequest, "an empty batch holds no request"))
        }
        if elements.count > limits.maxBatchSize {
            let error = RPCError.limitExceeded("limits.maxBatchSize", max: limits.maxBatchSize,
                                               "a batch may hold at most \(limits.maxBatchSize) requests; this one holds \(elements.count)")
            router.faults.limitHit("limits.maxBatchSize", connection: logger, error.message)
            return AnswerLine.failure(error)
        }
        return nil
    }
}

/// A request's line as the bytes its long strings stay in.
private struct LineBytes: JSONSourceBytes {
    let line: ByteBuffer

    init(_ line: ByteBuffer) {
        self.line = line
    }

    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        line.withUnsafeReadableBytes { raw in body(UnsafeBufferPointer(rebasing: raw.bindMemory(to: UInt8.self)[range])) }
    }
}

/// A batch's answers as one JSON array, as `JSONWriter` writes one, each answer copied in as it
/// comes (no second whole copy) and counted in the user's share at once.
private struct BatchAnswers: Sendable {
    let room: BatchRoom?
    private var out: ByteBuffer?
    /// Set once the user holds its share: the batch's remaining requests are refused.
    var refusal: ClientMemoryBudget.Refusal?

    init(room: BatchRoom?) {
        self.room = room
    }

    mutating func append(_ answer: ByteBuffer?) {
        guard let answer else { return }
        if out == nil {
            out = ByteBufferAllocator().buffer(capacity: answer.readableBytes + 3)
            out!.writeInteger(UInt8(ascii: "["))
        } else {
            out!.writeInteger(UInt8(ascii: ","))
        }
        out!.writeImmutableBuffer(answer)
        room?.made(answer.readableBytes + 1)
    }

    /// The array, taken (a copy would copy its bytes to add the bracket); nil when there are
    /// no answers.
    mutating func finished() -> ByteBuffer? {
        guard var out = out.take() else { return nil }
        out.writeInteger(UInt8(ascii: "]"))
        return out
    }
}

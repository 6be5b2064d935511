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

    /// Parses the line and answers what can be answered at once; hands back the rest as work.
    /// Requests of a batch run in order: once one has to wait, the ones after it wait too.
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
        var answers: [ByteBuffer] = []
        for (index, element) in elements.enumerated() {
            switch respond(to: element) {
            case .now(let answer):
                if let answer { answers.append(answer) }
            case .later(let work):
                let rest = elements[(index + 1)...]
                return .later { [self, answers] in
                    var all = answers
                    if let answer = await work() { all.append(answer) }
                    for element in rest {
                        if let answer = await respond(to: element).value { all.append(answer) }
                    }
                    return Self.batch(all)
                }
            }
        }
        return .now(Self.batch(answers))
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

    /// A batch's answers as one JSON array, as `JSONWriter` writes one; nil when there are none.
    private static func batch(_ answers: [ByteBuffer]) -> ByteBuffer? {
        guard !answers.isEmpty else { return nil }
        var out = ByteBufferAllocator().buffer(capacity: answers.reduce(3) { $0 + $1.readableBytes + 1 })
        out.writeInteger(UInt8(ascii: "["))
        for (i, answer) in answers.enumerated() {
            if i > 0 { out.writeInteger(UInt8(ascii: ",")) }
            out.writeImmutableBuffer(answer)
        }
        out.writeInteger(UInt8(ascii: "]"))
        return out
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

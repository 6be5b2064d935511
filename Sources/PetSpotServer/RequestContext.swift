import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// Everything needed to answer one line, free of the channel, so the same steps run on the
/// event loop for small requests and off it for large or slow ones.
struct RequestContext: Sendable {
    let router: RequestRouter
    let peer: Peer
    /// The connection's logger.
    let logger: Logger
    let limits: DaemonConfiguration.Limits
    let draining: Bool

    enum Start {
        /// The whole answer, written (nil: nothing to send, e.g. only notifications).
        case answered(ByteBuffer?)
        /// The rest must wait for something; it runs off the event loop.
        case waiting(@Sendable () async -> ByteBuffer?)
    }

    /// Parses and answers what can be answered at once; hands back the rest as async work.
    /// Requests of a batch run in order: once one has to wait, the ones after it wait too.
    func start(line: ByteBuffer) -> Start {
        let parsed: JSONValue
        do {
            parsed = try line.withUnsafeReadableBytes { raw throws(JSONParseError) -> JSONValue in
                try JSONParser.parse(buffer: raw.bindMemory(to: UInt8.self), maxDepth: limits.maxJSONDepth)
            }
        } catch {
            return .answered(Self.parseFailure(error))
        }
        guard case .array(let elements) = parsed else {
            switch respond(to: parsed) {
            case .now(let answer): return .answered(answer)
            case .later(let work): return .waiting(work)
            }
        }
        if let refusal = refuseBatch(elements) { return .answered(refusal) }
        var answers: [ByteBuffer] = []
        for (index, element) in elements.enumerated() {
            switch respond(to: element) {
            case .now(let answer):
                if let answer { answers.append(answer) }
            case .later(let work):
                let rest = elements[(index + 1)...]
                return .waiting { [self, answers] in
                    var all = answers
                    if let answer = await work() { all.append(answer) }
                    all += await respondInOrder(rest)
                    return Self.batch(all)
                }
            }
        }
        return .answered(Self.batch(answers))
    }

    /// The whole answer to a line, entirely off the event loop.
    func answer(line: [UInt8]) async -> ByteBuffer? {
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(line, maxDepth: limits.maxJSONDepth)
        } catch {
            return Self.parseFailure(error)
        }
        guard case .array(let elements) = parsed else {
            return await respondInOrder([parsed][...]).first
        }
        if let refusal = refuseBatch(elements) { return refusal }
        return Self.batch(await respondInOrder(elements[...]))
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

    /// An answer line written, with room for its newline.
    static func line(_ value: JSONValue) -> ByteBuffer {
        let bytes = JSONWriter.bytes(value)
        var out = ByteBufferAllocator().buffer(capacity: bytes.count + 1)
        out.writeBytes(bytes)
        return out
    }

    private func respondInOrder(_ values: ArraySlice<JSONValue>) async -> [ByteBuffer] {
        var answers: [ByteBuffer] = []
        for value in values {
            switch respond(to: value) {
            case .now(let answer): if let answer { answers.append(answer) }
            case .later(let work): if let answer = await work() { answers.append(answer) }
            }
        }
        return answers
    }

    private func refuseBatch(_ elements: [JSONValue]) -> ByteBuffer? {
        if elements.isEmpty {
            return Self.line(RPCResponse.failure(id: .null, RPCError(.invalidRequest, "an empty batch holds no request")).json)
        }
        if elements.count > limits.maxBatchSize {
            let error = RPCError.limitExceeded("limits.maxBatchSize", max: limits.maxBatchSize,
                                               "a batch may hold at most \(limits.maxBatchSize) requests; this one holds \(elements.count)")
            router.faults.limitHit("limits.maxBatchSize", connection: logger, error.message)
            return Self.line(RPCResponse.failure(id: .null, error).json)
        }
        return nil
    }

    private static func parseFailure(_ error: JSONParseError) -> ByteBuffer {
        Self.line(RPCResponse.failure(id: .null, RPCError(.parseError, "not valid JSON: \(error)")).json)
    }

    /// One answer, written (nil: a notification's, nothing to send).
    enum Answer {
        case now(ByteBuffer?)
        case later(@Sendable () async -> ByteBuffer?)
    }

    /// One request of a line or a batch. Notifications run but answer nothing.
    func respond(to value: JSONValue) -> Answer {
        let request: RPCRequest
        switch RPCRequest.validate(value) {
        case .failure(let failure):
            return .now(failure.id.map { Self.line(RPCResponse.failure(id: $0, failure.error).json) })
        case .success(let r):
            request = r
        }
        let id = request.id
        if draining {
            return .now(id.map { Self.line(RPCResponse.failure(id: $0, RPCError(.shuttingDown, "the daemon is stopping; send this again once it is back")).json) })
        }
        switch router.route(request, peer: peer, logger: logger) {
        case .done(let outcome):
            return .now(id.map { Self.line(RPCResponse(id: $0, outcome: outcome).json) })
        case .pending(let work):
            return .later {
                let outcome = await work()
                return id.map { Self.line(RPCResponse(id: $0, outcome: outcome).json) }
            }
        case .flowView(let view):
            return .now(id.map { Self.flowAnswer(id: $0, view: view) })
        case .written(let result):
            return .now(id.map { Self.resultAnswer(id: $0, result: result) })
        }
    }

    /// `{"jsonrpc":"2.0","id":id,"result":{"flow":view}}`, as `JSONWriter` writes it.
    static func flowAnswer(id: JSONValue, view: [UInt8]) -> ByteBuffer {
        writtenAnswer(id: id, result: view, before: #","result":{"flow":"#, after: "}}")
    }

    /// `{"jsonrpc":"2.0","id":id,"result":result}`, as `JSONWriter` writes it.
    static func resultAnswer(id: JSONValue, result: [UInt8]) -> ByteBuffer {
        writtenAnswer(id: id, result: result, before: #","result":"#, after: "}")
    }

    /// An answer around a result already written, with room for the newline: one allocation.
    private static func writtenAnswer(id: JSONValue, result: [UInt8], before: StaticString, after: StaticString) -> ByteBuffer {
        let prefix: StaticString = #"{"jsonrpc":"2.0","id":"#
        var out = ByteBufferAllocator().buffer(
            capacity: prefix.utf8CodeUnitCount + before.utf8CodeUnitCount + result.count + after.utf8CodeUnitCount + 48)
        out.writeStaticString(prefix)
        if case .number(let number) = id {
            out.writeString(number.literal)
        } else {
            out.writeBytes(JSONWriter.bytes(id))
        }
        out.writeStaticString(before)
        out.writeBytes(result)
        out.writeStaticString(after)
        return out
    }
}

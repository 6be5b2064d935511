import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// How a connection gets the answer to each line it reads. `ConnectionHandler` owns the order,
/// back-pressure and closing; a responder owns what the answer is. The daemon's is `Responder`;
/// tests of the handler give it answers they release when they choose.
protocol Responding {
    /// Called on the connection's event loop, one line at a time: the next line is asked for
    /// only once the answer before it is written. `draining`: the daemon is stopping.
    func answer(_ frame: LineFrame, draining: Bool) -> Answer
}

/// The one path from a line to its answer, for one connection: parses the line, checks a
/// batch, validates each envelope, refuses what comes while the daemon stops, finds each
/// request's route (`Routes`) and joins a batch's answers. What only touches memory is answered
/// at once on the event loop; a line of 64 KiB or more is parsed and answered in a task, and so
/// is a request whose handler waits. Requests of a batch run in order: once one has to wait,
/// the ones after it wait too.
struct Responder: Responding {
    /// Lines at least this long are parsed and answered off the event loop: parsing and
    /// normalising megabytes would hold up every other connection on the loop.
    static let offloadLineBytes = 64 * 1024
    /// Strings at least this long stay in their line (`JSONValue.longString`) until the request
    /// is answered: a photo's text, which is then decoded from there, a part at a time.
    static let inPlaceStringBytes = 64 * 1024

    let routes: Routes
    let services: DaemonServices
    let peer: Peer
    /// The connection's logger (who the client is).
    let logger: Logger
    /// The connection's watches; nil where nothing can be notified.
    let subscriber: Subscriber?
    /// Where a batch's answers count in the user's share as they are made; nil where nothing
    /// is counted.
    var batchRoom: BatchRoom? = nil
    /// The settings this connection's requests are read with, until a reload.
    var keptSettings = KeptRequestSettings()

    func answer(_ frame: LineFrame, draining: Bool) -> Answer {
        switch frame {
        case .tooLong(let limit):
            let error = RPCError(.lineTooLong, "the line is longer than \(limit) bytes and was skipped up to its newline",
                                 details: ["limit": "limits.maxLineBytes", "max": .int(limit)])
            routes.faults.log.limitHit("limits.maxLineBytes", kind: "lineTooLong", connection: logger, error.message)
            return .now(AnswerWriter.failure(error))
        case .refused(let refusal):
            let error = RPCError.limitExceeded(refusal.setting, max: refusal.limit, refusal.message)
            routes.faults.log.limitHit(refusal.setting, kind: "limitExceeded", connection: logger, error.message)
            return .now(AnswerWriter.failure(error))
        case .line(let line):
            if line.readableBytes >= Self.offloadLineBytes {
                // The line is a slice of the decoder's buffer, handed over as it is, not copied
                // (12 MiB for a photo): a line that ends its read leaves the buffer to the slice
                // alone, and bytes after it move to a buffer of their own (NIO's copy on write
                // takes the unread part, with the buffer's spare room, not the line).
                // Handed over, not captured: the request alone holds the line, whose long strings
                // are read where they are (a photo is decoded from it into the spool), and the
                // bytes go once the request is answered.
                let handOff = LineHandOff(line)
                return .later { [self] in await respond(line: handOff.take(), draining: draining).bytes }
            }
            return respond(line: line, draining: draining)
        }
    }

    /// Parses the line and answers what can be answered at once; hands back the rest as work.
    /// Once its user holds its share, a batch runs none of its remaining requests (`BatchRoom`).
    func respond(line: ByteBuffer, draining: Bool) -> Answer {
        let settings = keptSettings.current(services, for: peer)
        let parsed: JSONValue
        do {
            if line.readableBytes >= Self.inPlaceStringBytes {
                // A photo's base64 is read where it arrived, not copied into a String first.
                parsed = try JSONParser.parse(LineBytes(line), count: line.readableBytes, maxDepth: settings.limits.maxJSONDepth,
                                              keepingStringsInPlaceFrom: Self.inPlaceStringBytes)
            } else {
                parsed = try line.withUnsafeReadableBytes { raw throws(JSONParseError) -> JSONValue in
                    try JSONParser.parse(buffer: raw.bindMemory(to: UInt8.self), maxDepth: settings.limits.maxJSONDepth)
                }
            }
        } catch {
            return .now(AnswerWriter.failure(RPCError(.parseError, "not valid JSON: \(error)")))
        }
        guard case .array(let elements) = parsed else {
            return respond(to: parsed, settings, draining: draining)
        }
        if let refusal = refuseBatch(elements, settings.limits) { return .now(refusal) }
        var batch = BatchAnswers(room: batchRoom)
        for (index, element) in elements.enumerated() {
            switch respond(to: element, settings, draining: draining, in: &batch) {
            case .ready(let answer):
                batch.append(answer)
            case .later(let work):
                let rest = elements[(index + 1)...]
                return .later { [self, batch] in
                    var batch = batch
                    batch.append(await work())
                    for element in rest {
                        let answer = await respond(to: element, settings, draining: draining, in: &batch).bytes
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
    private func respond(to element: JSONValue, _ settings: RequestSettings, draining: Bool, in batch: inout BatchAnswers) -> Answer {
        if batch.refusal == nil, let refusal = batch.room?.noRoom() {
            batch.refusal = refusal
            routes.faults.log.limitHit(refusal.setting, connection: logger, "a batch stopped running its requests: \(refusal.batchMessage)")
        }
        if let refusal = batch.refusal, case .success(let request) = RPCRequest.validate(element), let id = request.id {
            return .now(AnswerWriter.failure(id: id, RPCError.limitExceeded(refusal.setting, max: refusal.limit, refusal.batchMessage)))
        }
        return respond(to: element, settings, draining: draining)
    }

    /// One request of a line or a batch. Notifications run but answer nothing.
    private func respond(to value: JSONValue, _ settings: RequestSettings, draining: Bool) -> Answer {
        let request: RPCRequest
        switch RPCRequest.validate(value) {
        case .failure(let failure):
            return .now(failure.id.map { AnswerWriter.failure(id: $0, failure.error) })
        case .success(let r):
            request = r
        }
        if draining {
            return .now(request.id.map { AnswerWriter.failure(id: $0, RPCError(.shuttingDown, "the daemon is stopping; send this again once it is back")) })
        }
        guard let route = routes.route(request.method, relay: settings.isRelay) else {
            // To a peer outside relay.group the relay methods do not exist: the same answer as any
            // unknown name, and the list it gives leaves them out.
            let known = ProtocolMethods.offered(toRelay: settings.isRelay).map { $0.name }
            return .now(request.id.map {
                AnswerWriter.failure(id: $0, RPCError(.methodNotFound, "no method \"\(request.method)\"; the methods are \(known.joined(separator: ", "))",
                                                      parameter: "method"))
            })
        }
        let context = RequestContext(peer: peer, settings: settings, draining: draining, subscriber: subscriber,
                                     connectionLogger: logger, method: request.method, id: request.id)
        return route.answer(request.params, request.id, context)
    }

    private func refuseBatch(_ elements: [JSONValue], _ limits: DaemonConfiguration.Limits) -> ByteBuffer? {
        if elements.isEmpty {
            return AnswerWriter.failure(RPCError(.invalidRequest, "an empty batch holds no request"))
        }
        if elements.count > limits.maxBatchSize {
            let error = RPCError.limitExceeded("limits.maxBatchSize", max: limits.maxBatchSize,
                                               "a batch may hold at most \(limits.maxBatchSize) requests; this one holds \(elements.count)")
            routes.faults.log.limitHit("limits.maxBatchSize", connection: logger, error.message)
            return AnswerWriter.failure(error)
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

/// A line passed to the task that answers it, held by nobody once taken.
private final class LineHandOff: @unchecked Sendable {
    // @unchecked: written once here and taken once by the one task that answers the line.
    private var line: ByteBuffer?

    init(_ line: ByteBuffer) {
        self.line = line
    }

    func take() -> ByteBuffer {
        defer { line = nil }
        return line ?? ByteBuffer()
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
        append(answer.map(AnswerLine.bytes))
    }

    mutating func append(_ answer: AnswerLine?) {
        guard let answer else { return }
        if out == nil {
            out = ByteBufferAllocator().buffer(capacity: answer.maxBytes + 3)
            out!.writeInteger(UInt8(ascii: "["))
        } else {
            out!.writeInteger(UInt8(ascii: ","))
        }
        let before = out!.writerIndex
        answer.write(into: &out!)
        room?.made(out!.writerIndex - before + 1)
    }

    /// The array, taken (a copy would copy its bytes to add the bracket); nil when there are
    /// no answers.
    mutating func finished() -> ByteBuffer? {
        guard var out = out.take() else { return nil }
        out.writeInteger(UInt8(ascii: "]"))
        return out
    }
}

import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// The daemon's answers: each line through `RequestContext.respond(line:)`, on the event loop
/// when it only touches memory, in a task when it waits (location, disk, photo) or is long.
struct RouterAnswering: LineAnswering {
    /// Lines at least this long are parsed and answered off the event loop: parsing and
    /// normalising megabytes would hold up every other connection on the loop.
    static let offloadLineBytes = 64 * 1024

    let router: RequestRouter
    let peer: Peer
    /// The connection's logger (who the client is).
    let logger: Logger
    let limits: DaemonConfiguration.Limits
    let subscriber: Subscriber?
    /// Where a batch's answers count as they are made (the connection's `ClientMemoryAccount`).
    var batchRoom: BatchRoom? = nil

    func answer(_ frame: LineFrame, draining: Bool, on eventLoop: any EventLoop) -> LineAnswer {
        switch frame {
        case .tooLong(let limit):
            let error = RPCError(.lineTooLong, "the line is longer than \(limit) bytes and was skipped up to its newline",
                                 details: ["limit": "limits.maxLineBytes", "max": .int(limit)])
            router.faults.limitHit("limits.maxLineBytes", kind: "lineTooLong", connection: logger, error.message)
            return .now(AnswerLine.failure(error))
        case .refused(let refusal):
            let error = RPCError.limitExceeded(refusal.setting, max: refusal.limit, refusal.message)
            router.faults.limitHit(refusal.setting, kind: "limitExceeded", connection: logger, error.message)
            return .now(AnswerLine.failure(error))
        case .line(let line):
            let request = RequestContext(router: router, peer: peer, logger: logger, limits: limits, draining: draining, subscriber: subscriber,
                                         batchRoom: batchRoom)
            if line.readableBytes >= Self.offloadLineBytes {
                // The line is a slice of the decoder's buffer, handed over as it is, not copied
                // (12 MiB for a photo): a line that ends its read leaves the buffer to the slice
                // alone, and bytes after it move to a buffer of their own (NIO's copy on write
                // takes the unread part, with the buffer's spare room, not the line).
                // Handed over, not captured: the request alone holds the line, whose long strings
                // are read where they are (a photo is decoded from it into the spool), and the
                // bytes go once the request is answered.
                let handOff = LineHandOff(line)
                return .later(eventLoop.makeFutureWithTask {
                    let reply = request.respond(line: handOff.take())
                    return await reply.value
                })
            }
            switch request.respond(line: line) {
            case .now(let answer): return .now(answer)
            case .later(let work): return .later(eventLoop.makeFutureWithTask(work))
            }
        }
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

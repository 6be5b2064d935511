import Logging
import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// The daemon's answers: each line parsed and routed by `RequestContext`, on the event loop
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

    func answer(_ frame: LineFrame, draining: Bool, on eventLoop: any EventLoop) -> LineAnswer {
        switch frame {
        case .tooLong(let limit):
            let error = RPCError(.lineTooLong, "the line is longer than \(limit) bytes and was skipped up to its newline",
                                 details: ["limit": "limits.maxLineBytes", "max": .int(limit)])
            router.faults.limitHit("limits.maxLineBytes", kind: "lineTooLong", connection: logger, error.message)
            return .now(RequestContext.line(RPCResponse.failure(id: .null, error).json))
        case .line(let line):
            let request = RequestContext(router: router, peer: peer, logger: logger, limits: limits, draining: draining)
            if line.readableBytes >= Self.offloadLineBytes {
                let bytes = Array(line.readableBytesView)
                return .later(eventLoop.makeFutureWithTask { await request.answer(line: bytes) })
            }
            switch request.start(line: line) {
            case .answered(let answer): return .now(answer)
            case .waiting(let rest): return .later(eventLoop.makeFutureWithTask(rest))
            }
        }
    }
}

import NIOCore
import PetSpotJSON

/// A line's answer as it goes back, ready now or from work run in a task. Nil: nothing to
/// send (a notification, or a batch of them). The connection writes answers in the order of
/// their lines.
enum Answer: Sendable {
    case ready(AnswerLine?)
    case later(@Sendable () async -> ByteBuffer?)

    /// An answer whose line is written already (without the newline, with room for it).
    static func now(_ bytes: ByteBuffer?) -> Answer {
        .ready(bytes.map(AnswerLine.bytes))
    }

    /// The bytes, waiting for them if they come later.
    var bytes: ByteBuffer? {
        get async {
            switch self {
            case .ready(let line): line?.buffer
            case .later(let work): await work()
            }
        }
    }
}

/// One answer line: written already, or a result whose line is written where it goes (the
/// connection's gathered output, a batch's array) rather than into a buffer of its own first.
enum AnswerLine: Sendable {
    case bytes(ByteBuffer)
    /// A success: the request's id and the result's JSON as written.
    case result(id: JSONValue, [UInt8])

    /// The line in a buffer of its own.
    var buffer: ByteBuffer {
        switch self {
        case .bytes(let buffer): buffer
        case .result(let id, let body): AnswerWriter.success(id: id, body)
        }
    }

    /// At most this many bytes, the newline not counted.
    var maxBytes: Int {
        switch self {
        case .bytes(let buffer): buffer.readableBytes
        case .result(let id, let body): AnswerWriter.successMaxBytes(id: id, body)
        }
    }

    /// Appends the line (without its newline) to `out`.
    func write(into out: inout ByteBuffer) {
        switch self {
        case .bytes(var buffer): out.writeBuffer(&buffer)
        case .result(let id, let body): AnswerWriter.writeSuccess(id: id, body, into: &out)
        }
    }
}

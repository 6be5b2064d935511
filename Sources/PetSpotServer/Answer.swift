import NIOCore

/// A line's answer as it goes back: its bytes, written as JSON without the newline (with room
/// for it), ready now or from work run in a task. Nil bytes: nothing to send (a notification,
/// or a batch of them). The connection writes answers in the order of their lines.
enum Answer: Sendable {
    case now(ByteBuffer?)
    case later(@Sendable () async -> ByteBuffer?)

    /// The bytes, waiting for them if they come later.
    var bytes: ByteBuffer? {
        get async {
            switch self {
            case .now(let bytes): bytes
            case .later(let work): await work()
            }
        }
    }
}

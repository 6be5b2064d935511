import NIOCore
import PetSpotJSON

/// How a connection gets the answer to each line it reads. `ConnectionHandler` owns the order,
/// back-pressure and closing; this owns what the answer is. The daemon's is `RouterAnswering`;
/// tests of the handler give it answers they release when they choose.
protocol LineAnswering {
    /// Called on the connection's event loop, one line at a time: the next line is asked for
    /// only once the answer before it is written. `draining`: the daemon is stopping.
    func answer(_ frame: LineFrame, draining: Bool, on eventLoop: any EventLoop) -> LineAnswer
}

/// An answer line already written as JSON, without its newline (best with room for it).
enum LineAnswer {
    /// Sent at once (nil: nothing to send, e.g. only notifications).
    case now(ByteBuffer?)
    /// Sent when the future completes, on the same event loop; the connection takes no other
    /// line in hand meanwhile.
    case later(EventLoopFuture<ByteBuffer?>)
}

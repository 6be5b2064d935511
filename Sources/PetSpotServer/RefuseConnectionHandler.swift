import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// Installed instead of the request handler when the connection limit is reached: the client
/// learns why in one line, then the connection closes.
final class RefuseConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let error: RPCError

    init(error: RPCError) {
        self.error = error
    }

    func channelActive(context: ChannelHandlerContext) {
        var bytes = JSONWriter.bytes(RPCResponse.failure(id: .null, error).json)
        bytes.append(UInt8(ascii: "\n"))
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

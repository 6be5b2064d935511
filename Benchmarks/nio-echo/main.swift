// The request path's second anchor (docs/PERFORMANCE.md, "Against a bare C echo server"): what a
// SwiftNIO server reaches doing nothing. Every complete line a connection sends is written back
// as it came, a line at a time, on as many event loops as petspotd serves with by default (one
// per core).
//   petspot-nio-echo SOCKET
import NIOCore
import NIOPosix

/// Frames lines as a NIO server that reads NDJSON must, and writes each one back on its own.
final class LineEchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    /// Bytes after the last newline, waiting for the rest of their line.
    private var partial: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if var held = partial {
            held.writeBuffer(&buffer)
            buffer = held
            partial = nil
        }
        while let end = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
            let line = buffer.readSlice(length: end - buffer.readerIndex + 1)!
            context.write(wrapOutboundOut(line), promise: nil)
        }
        if buffer.readableBytes > 0 { partial = buffer }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

guard CommandLine.arguments.count == 2 else {
    print("usage: petspot-nio-echo SOCKET")
    exit(2)
}
let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(LineEchoHandler()) }
    }
    .bind(unixDomainSocketPath: CommandLine.arguments[1], cleanupExistingSocketFile: true)
    .wait()
try channel.closeFuture.wait()

import NIOCore

/// One unit of input: a complete line, or the news that a line was too long and is being
/// skipped up to its newline.
enum LineFrame {
    case line(ByteBuffer)
    case tooLong(limit: Int)
}

/// Splits the byte stream at `\n` (dropping a `\r` before it). A line longer than the limit is
/// reported once and then discarded as it arrives, so it never occupies more than the limit
/// in memory and the connection stays usable after it.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFrame

    let maxLineBytes: Int
    /// Bytes already searched for a newline, so a long line is not searched again per read.
    private var scanned = 0
    private var skipping = false

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        if let newline = view[(view.startIndex + scanned)...].firstIndex(of: UInt8(ascii: "\n")) {
            let length = newline - view.startIndex
            scanned = 0
            if skipping {
                skipping = false
                buffer.moveReaderIndex(forwardBy: length + 1)
                return .continue
            }
            let line = Self.droppingCarriageReturn(buffer.readSlice(length: length)!)
            buffer.moveReaderIndex(forwardBy: 1)
            if line.readableBytes > maxLineBytes {
                context.fireChannelRead(wrapInboundOut(.tooLong(limit: maxLineBytes)))
                return .continue
            }
            context.fireChannelRead(wrapInboundOut(.line(line)))
            return .continue
        }
        if skipping {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            scanned = 0
        } else if buffer.readableBytes > maxLineBytes + 1 {
            // (+1: a line of exactly the limit may still be waiting for the "\n" after its "\r".)
            // Tell the client now, then drop the rest of the line as it streams in.
            context.fireChannelRead(wrapInboundOut(.tooLong(limit: maxLineBytes)))
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            skipping = true
            scanned = 0
        } else {
            scanned = buffer.readableBytes
        }
        return .needMoreData
    }

    private static func droppingCarriageReturn(_ line: ByteBuffer) -> ByteBuffer {
        var line = line
        if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        return line
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        // A last line without a newline (`printf '...' | nc -N`) is still a request.
        if !skipping, buffer.readableBytes > 0 {
            let line = Self.droppingCarriageReturn(buffer.readSlice(length: buffer.readableBytes)!)
            context.fireChannelRead(wrapInboundOut(line.readableBytes > maxLineBytes ? .tooLong(limit: maxLineBytes) : .line(line)))
        }
        skipping = false
        scanned = 0
        return .needMoreData
    }
}

#if canImport(Glibc)
import Glibc
#endif
import NIOCore

/// One unit of input: a complete line, or the news that a line is being skipped up to its
/// newline: too long, or past what the daemon holds for clients.
enum LineFrame {
    case line(ByteBuffer)
    case tooLong(limit: Int)
    /// Indirect: a refusal (a String and an Int) would make every frame one byte too large for
    /// `NIOAny`'s inline room, and each line would cost a heap box on its way to the handler.
    indirect case refused(ClientMemoryBudget.Refusal)
}

/// Splits the byte stream at `\n` (dropping a `\r` before it). A line longer than the limit, or
/// one the connection's memory account has no room for, is reported once and then discarded as
/// it arrives, so it never occupies more than the limit in memory and the connection stays
/// usable after it.
struct LineFrameDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFrame

    let maxLineBytes: Int
    /// Where the bytes of lines count; nil in tests of the decoder alone.
    let account: ClientMemoryAccount?
    /// Bytes already searched for a newline, so a long line is not searched again per read.
    private var scanned = 0
    private var skipping = false

    init(maxLineBytes: Int, account: ClientMemoryAccount? = nil) {
        self.maxLineBytes = maxLineBytes
        self.account = account
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        // memchr: a photo's line is megabytes, searched as it arrives, and the view's
        // firstIndex(of:) goes byte by byte.
        let newline = buffer.withUnsafeReadableBytes { bytes -> Int? in
            guard bytes.count > scanned, let found = memchr(bytes.baseAddress! + scanned, 0x0A, bytes.count - scanned) else { return nil }
            return UnsafeRawPointer(found) - bytes.baseAddress!
        }
        if let length = newline {
            scanned = 0
            if skipping {
                skipping = false
                buffer.moveReaderIndex(forwardBy: length + 1)
                return .continue
            }
            let line = Self.droppingCarriageReturn(buffer.readSlice(length: length)!)
            buffer.moveReaderIndex(forwardBy: 1)
            context.fireChannelRead(wrapInboundOut(frame(line)))
            return .continue
        }
        if skipping {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            scanned = 0
        } else if buffer.readableBytes > maxLineBytes + 1 {
            // (+1: a line of exactly the limit may still be waiting for the "\n" after its "\r".)
            // Tell the client now, then drop the rest of the line as it streams in.
            skip(.tooLong(limit: maxLineBytes), context: context, buffer: &buffer)
        } else if let refusal = account?.unfinishedLine(buffer.readableBytes) {
            skip(.refused(refusal), context: context, buffer: &buffer)
        } else {
            scanned = buffer.readableBytes
        }
        return .needMoreData
    }

    /// What a whole line becomes: itself, counted from now on as held, or the news of why not.
    private func frame(_ line: ByteBuffer) -> LineFrame {
        if line.readableBytes > maxLineBytes {
            account?.unfinishedDropped()
            return .tooLong(limit: maxLineBytes)
        }
        if let refusal = account?.lineCompleted(line.readableBytes) { return .refused(refusal) }
        return .line(line)
    }

    private mutating func skip(_ frame: LineFrame, context: ChannelHandlerContext, buffer: inout ByteBuffer) {
        context.fireChannelRead(wrapInboundOut(frame))
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        account?.unfinishedDropped()
        skipping = true
        scanned = 0
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
            context.fireChannelRead(wrapInboundOut(frame(line)))
        }
        skipping = false
        scanned = 0
        return .needMoreData
    }
}

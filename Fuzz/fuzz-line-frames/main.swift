import FuzzSupport
import NIOCore
import NIOEmbedded
@testable import PetSpotServer

// Input: byte 0 sets the line limit (1...64 bytes); byte 1 seeds how the stream is cut into
// reads and, with its top bit, says whether the stream ends (end of input) after them; the rest
// is the byte stream. The decoder runs in NIO's ByteToMessageHandler, as in the daemon.
// Must hold: whatever the cuts, the frames are those of splitting the whole stream at "\n"
// (one "\r" before it dropped): a line over the limit is one `tooLong`, every other line comes
// out whole; an unfinished line is read at end of input, or reported as soon as it is too long.

enum Frame: Equatable, CustomStringConvertible {
    case line([UInt8])
    case tooLong

    var description: String {
        switch self {
        case .line(let bytes): "line(\(bytes.count) bytes)"
        case .tooLong: "tooLong"
        }
    }
}

func expectedFrames(_ stream: ArraySlice<UInt8>, limit: Int, ends: Bool) -> [Frame] {
    func frame(_ raw: ArraySlice<UInt8>) -> Frame {
        let line = raw.last == UInt8(ascii: "\r") ? raw.dropLast() : raw
        return line.count > limit ? .tooLong : .line(Array(line))
    }
    var segments = stream.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    let unfinished = segments.removeLast()
    var frames = segments.map(frame)
    if ends {
        if !unfinished.isEmpty { frames.append(frame(unfinished)) }
    } else if unfinished.count > limit + 1 {
        // (+1: a line of exactly the limit may still await the "\n" after its "\r".)
        frames.append(.tooLong)
    }
    return frames
}

/// Read sizes from 0 to twice the limit and more, from a small xorshift generator.
func cut(_ stream: ArraySlice<UInt8>, seed: UInt8, limit: Int) -> [ArraySlice<UInt8>] {
    var state = UInt32(seed) &* 2_654_435_761 | 1
    var chunks: [ArraySlice<UInt8>] = []
    var start = stream.startIndex
    while start < stream.endIndex {
        state ^= state << 13
        state ^= state >> 17
        state ^= state << 5
        let length = min(Int(state % UInt32(2 * limit + 5)), stream.endIndex - start)
        chunks.append(stream[start..<start + length])
        start += length
    }
    return chunks
}

func decodedFrames(_ chunks: [ArraySlice<UInt8>], limit: Int, ends: Bool) -> [Frame] {
    let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: limit)))
    var frames: [Frame] = []
    func drain() {
        do {
            while let frame = try channel.readInbound(as: LineFrame.self) {
                switch frame {
                case .line(let buffer): frames.append(.line(Array(buffer.readableBytesView)))
                case .tooLong(let reported):
                    invariant(reported == limit, "tooLong reports the limit \(reported), not \(limit)")
                    frames.append(.tooLong)
                case .refused(let refusal):
                    invariant(false, "a line refused by a memory budget the decoder does not have: \(refusal)")
                }
            }
        } catch {
            invariant(false, "reading a frame failed: \(error)")
        }
    }
    do {
        // Read after every write: EmbeddedChannel copies the frames still unread on each one.
        for chunk in chunks {
            try channel.writeInbound(channel.allocator.buffer(bytes: chunk))
            drain()
        }
        _ = try channel.finish()
        if ends { drain() }
    } catch {
        invariant(false, "the decoder failed: \(error)")
    }
    return frames
}

fuzz { input in
    guard input.count >= 2 else { return }
    let limit = 1 + Int(input[0] % 64)
    let ends = input[1] & 0x80 != 0
    let stream = ArraySlice(input.dropFirst(2))
    let frames = decodedFrames(cut(stream, seed: input[1] & 0x7F, limit: limit), limit: limit, ends: ends)
    let expected = expectedFrames(stream, limit: limit, ends: ends)
    invariant(frames == expected, "limit \(limit), ends \(ends): decoded \(frames), expected \(expected)")
}

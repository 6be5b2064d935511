import NIOCore
import NIOEmbedded
@testable import PetSpotServer
import Testing

@Suite("Line framing")
struct LineFrameDecoderTests {
    /// Feeds chunks and returns what came out: a line's text, or "<too long>".
    func frames(_ chunks: [String], max: Int = 16, close: Bool = false) throws -> [String] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: max)))
        for chunk in chunks {
            try channel.writeInbound(channel.allocator.buffer(string: chunk))
        }
        if close { _ = try? channel.finish() }
        var out: [String] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .line(let buffer): out.append(String(buffer: buffer))
            case .tooLong: out.append("<too long>")
            }
        }
        return out
    }

    @Test("splits at newlines and drops a carriage return before one")
    func split() throws {
        #expect(try frames(["a\nb\r\nc", "d\n"]) == ["a", "b", "cd"])
    }

    @Test("a line of exactly the limit passes; one byte more is reported once and skipped")
    func limit() throws {
        #expect(try frames([String(repeating: "x", count: 16) + "\n"]) == [String(repeating: "x", count: 16)])
        #expect(try frames([String(repeating: "x", count: 17) + "\nok\n"]) == ["<too long>", "ok"])
    }

    @Test("the carriage return of \\r\\n does not count against the limit")
    func carriageReturnAtLimit() throws {
        let atLimit = String(repeating: "x", count: 16)
        #expect(try frames([atLimit + "\r\n"]) == [atLimit])
        #expect(try frames([atLimit + "\r", "\n"]) == [atLimit])
        #expect(try frames([atLimit + "y\r\nok\n"]) == ["<too long>", "ok"])
        #expect(try frames(["last\r"], close: true) == ["last"])
    }

    @Test("a long line arriving in pieces is reported once, and the next line is intact")
    func longInPieces() throws {
        let pieces = Array(repeating: String(repeating: "y", count: 10), count: 50) + ["tail\nnext\n"]
        #expect(try frames(pieces) == ["<too long>", "next"])
    }

    @Test("the last line without a newline is still read at end of input")
    func lastLine() throws {
        #expect(try frames(["a\nlast"], close: true) == ["a", "last"])
    }
}

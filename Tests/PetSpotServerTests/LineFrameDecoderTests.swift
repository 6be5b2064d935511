import NIOCore
import NIOEmbedded
@testable import PetSpotServer
import Testing

@Suite("Line framing")
struct LineFrameDecoderTests {
    /// Feeds chunks and returns what came out: a line's text, "<too long>" or "<refused SETTING>".
    func frames(_ chunks: [String], max: Int = 16, close: Bool = false, account: ClientMemoryAccount? = nil) throws -> [String] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(LineFrameDecoder(maxLineBytes: max, account: account)))
        for chunk in chunks {
            try channel.writeInbound(channel.allocator.buffer(string: chunk))
        }
        if close { _ = try? channel.finish() }
        var out: [String] = []
        while let frame = try channel.readInbound(as: LineFrame.self) {
            switch frame {
            case .line(let buffer): out.append(String(buffer: buffer))
            case .tooLong: out.append("<too long>")
            case .refused(let refusal): out.append("<refused \(refusal.setting)>")
            }
        }
        return out
    }

    @Test("a line the memory account has no room for is reported once, skipped to its newline, and not counted")
    func refusedByTheBudget() throws {
        let step = ClientMemoryBudget.step
        let budget = ClientMemoryBudget(limits: .init(total: 1 << 30, perUser: step))
        let account = ClientMemoryAccount(budget: budget, uid: 1)
        // Past the allowance and one step: refused while it arrives, the rest of it dropped.
        let long = String(repeating: "a", count: step)
        let out = try frames(["{", long, long, long, "\n", "ok\n"], max: 1 << 20, account: account)
        #expect(out == ["<refused limits.maxBufferedBytesPerUser>", "ok"])
        #expect(account.unfinished == 0)
        // A whole line that arrives at once is refused the same way.
        #expect(try frames([String(repeating: "b", count: 3 * step) + "\nok\n"], max: 1 << 20, account: account) == ["<refused limits.maxBufferedBytesPerUser>", "ok"])
        // The lines handed on stay counted until the handler releases them.
        #expect(account.held == 4)
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

    @Test("a frame fits NIOAny's inline room: a line reaches the handler without a heap box")
    func frameFitsInline() {
        // An existential's inline buffer is three words; past it, each wrapped frame is allocated.
        #expect(MemoryLayout<LineFrame>.size <= 3 * MemoryLayout<Int>.size)
    }
}

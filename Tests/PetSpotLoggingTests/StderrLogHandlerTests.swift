import Logging
@testable import PetSpotLogging
import Testing

@Suite("Log lines: one event, one line, whatever it carries")
struct StderrLogHandlerTests {
    static let hostile = "a\nb\r\nc\td\u{1B}[31me\u{0}f\u{7F}g\u{85}h\u{2028}i\u{2029}j\u{202E}k\u{2067}l\u{200F}m"

    @Test("control characters, line separators and bidirectional controls in the message or a value are escaped, not written", arguments: [false, true])
    func controlsEscaped(journald: Bool) {
        let line = StderrLogHandler.line(label: "petspotd", level: .warning, message: "request \(Self.hostile)",
                                         metadata: ["requestId": .string(Self.hostile), "list": .array([.string("x\ny")])],
                                         journald: journald)
        #expect(line.hasSuffix("\n"))
        let body = line.dropLast()
        #expect(!body.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || (0x2028...0x202E).contains($0.value)
                || (0x2066...0x2069).contains($0.value) || $0 == "\u{200F}" })
        #expect(body.contains(#"request a\nb\r\nc\td\u{1B}[31me\u{0}f\u{7F}g\u{85}h\u{2028}i\u{2029}j\u{202E}k\u{2067}l\u{200F}m"#), "\(body)")
        #expect(body.contains(#"requestId="a\nb\r\nc\td\u{1B}[31me\u{0}f\u{7F}g\u{85}h\u{2028}i\u{2029}j\u{202E}k\u{2067}l\u{200F}m""#), "\(body)")
        // A nested value is flattened to its description first (which writes the newline as \n).
        #expect(body.contains(#"list="[\"x\\ny\"]""#), "\(body)")
        #expect(body.hasPrefix(journald ? "<4>request " : "petspotd: warning: request "))
    }

    @Test("plain values stay bare; spaces, quotes and backslashes are quoted")
    func quoting() {
        let line = StderrLogHandler.line(label: "petspotd", level: .info, message: "serving",
                                         metadata: ["socket": "run/petspotd.sock", "from": "a file", "q": #"say "hi""#, "b": #"C:\x"#],
                                         journald: false)
        #expect(line == #"petspotd: info: serving b="C:\\x" from="a file" q="say \"hi\"" socket=run/petspotd.sock"# + "\n")
    }
}

import PetSpotText
import Testing

@Suite("VisibleText: what a terminal would act on is shown, not done")
struct VisibleTextTests {
    /// Text, then as one line, then as text of several lines.
    static let table: [(text: String, line: String, lines: String)] = [
        ("Beagle", "Beagle", "Beagle"),
        ("Łódź, 🐕 and \\u{1B}", "Łódź, 🐕 and \\u{1B}", "Łódź, 🐕 and \\u{1B}"),
        // A window title, a bell, a screen clear, a one-character CSI, a carriage return and a backspace.
        ("allowed\u{1B}]0;PWNED\u{7}\u{1B}[2J\u{9B}31m\r\u{8}", #"allowed\u{1B}]0;PWNED\u{7}\u{1B}[2J\u{9B}31m\r\u{8}"#,
         #"allowed\u{1B}]0;PWNED\u{7}\u{1B}[2J\u{9B}31m\r\u{8}"#),
        ("a\nb", #"a\nb"#, "a\nb"),
        ("a\r\nb", #"a\r\nb"#, "a\\r\nb"),
        ("a\tb", #"a\tb"#, #"a\tb"#),
        ("\u{0}\u{1F} \u{7F}", #"\u{0}\u{1F} \u{7F}"#, #"\u{0}\u{1F} \u{7F}"#),
        ("\u{80}\u{85}\u{9F}\u{A0}", #"\u{80}\u{85}\u{9F}"# + "\u{A0}", #"\u{80}\u{85}\u{9F}"# + "\u{A0}"),
        ("a\u{2028}b\u{2029}c", #"a\u{2028}b\u{2029}c"#, #"a\u{2028}b\u{2029}c"#),
        // Bidirectional embeddings, overrides, isolates and marks: "Trojan Source" reordering.
        ("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}", #"\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}"#, #"\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}"#),
        ("\u{2066}\u{2067}\u{2068}\u{2069}", #"\u{2066}\u{2067}\u{2068}\u{2069}"#, #"\u{2066}\u{2067}\u{2068}\u{2069}"#),
        ("\u{200E}\u{200F}\u{61C}", #"\u{200E}\u{200F}\u{61C}"#, #"\u{200E}\u{200F}\u{61C}"#),
        // Their neighbours are text: a joiner in an emoji, a narrow no-break space, Arabic punctuation.
        ("👨‍👩‍👧 \u{202F}\u{2027}\u{2065}\u{206A}\u{61B}\u{61D}", "👨‍👩‍👧 \u{202F}\u{2027}\u{2065}\u{206A}\u{61B}\u{61D}",
         "👨‍👩‍👧 \u{202F}\u{2027}\u{2065}\u{206A}\u{61B}\u{61D}"),
        ("", "", ""),
    ]

    @Test("each text as one line and as lines", arguments: table)
    func escaped(_ row: (text: String, line: String, lines: String)) {
        #expect(VisibleText.line(row.text) == row.line, "\(row.text.debugDescription)")
        #expect(VisibleText.lines(row.text) == row.lines, "\(row.text.debugDescription)")
    }

    static func expectedShownEscaped(_ value: UInt32) -> Bool {
        value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x61C || value == 0x200E || value == 0x200F
            || (0x2028...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    @Test("every Unicode scalar: escaped exactly when a terminal acts on it; the escape is printable ASCII; escaping twice changes nothing")
    func everyScalar() {
        var wrong: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = Self.expectedShownEscaped(value)
            if VisibleText.isShownEscaped(scalar) != expected { wrong.append(value) }
            guard expected else { continue }
            let escape = VisibleText.escape(scalar)
            let text = String(scalar)
            if !escape.unicodeScalars.allSatisfy({ (0x21...0x7E).contains($0.value) }) || VisibleText.line(text) != escape
                || VisibleText.line(escape) != escape { wrong.append(value) }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(20).map { String($0, radix: 16) })")
    }

    @Test("what lines keeps is only the line feed")
    func linesKeepOnlyLineFeeds() {
        let text = String(String.UnicodeScalarView((UInt32(0)...0x2070).compactMap(Unicode.Scalar.init)))
        let shown = VisibleText.lines(text)
        #expect(Array(shown.unicodeScalars).filter(VisibleText.isShownEscaped) == ["\n"])
        func lines(_ text: String) -> [String] {
            text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        }
        #expect(lines(shown) == lines(text).map(VisibleText.line))
    }
}

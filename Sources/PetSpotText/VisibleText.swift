/// Text made fit for a terminal or a log line: every character a terminal would act on instead
/// of showing, or that would reorder or split what is shown, is written visibly, the way a Swift
/// literal writes it (`\n`, `\r`, `\t`, otherwise `\u{1B}`). Text from a daemon's answer is data:
/// a report, an error message or a log value must not be able to move the cursor, retitle the
/// window, ring the bell, forge a line or turn text around. Every program writes such text
/// through this one rule: the clients' output, the log lines, and JSON meant for a terminal.
public enum VisibleText {
    /// The characters shown escaped: C0 controls (line feed and tab too), DEL, C1 controls
    /// (U+009B is a CSI on its own), the Arabic letter mark, the left-to-right and right-to-left
    /// marks, the line and paragraph separators, and the bidirectional embeddings, overrides and
    /// isolates (U+202A–U+202E, U+2066–U+2069) that reorder what is shown.
    public static let shownEscaped: [ClosedRange<UInt32>] = [
        0x00...0x1F, 0x7F...0x9F, 0x061C...0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069,
    ]

    /// One line: every character of `shownEscaped` escaped, line feeds included.
    public static func line(_ text: String) -> String {
        escaped(text, keepingLineFeeds: false)
    }

    /// Text of several lines (a description, a screen's text): each line as `line` writes it,
    /// the line feeds between them kept.
    public static func lines(_ text: String) -> String {
        escaped(text, keepingLineFeeds: true)
    }

    public static func isShownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        // Most text is printable ASCII: decided without the table.
        if value < 0x20 { return true }
        if value < 0x7F { return false }
        return shownEscaped.contains { $0.contains(value) }
    }

    /// How `scalar` is written when it is shown escaped.
    public static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
    }

    private static func escaped(_ text: String, keepingLineFeeds: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isShownEscaped($0) && !(keepingLineFeeds && $0 == "\n") }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isShownEscaped(scalar), !(keepingLineFeeds && scalar == "\n") {
                out.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}

/// Text from a daemon's answer made fit for a terminal: every character a terminal would act
/// on instead of showing is written visibly as `\u{…}`. An answer is data, and a report or an
/// error message must not be able to move the cursor, retitle the window or ring the bell.
public enum VisibleText {
    /// One line: C0 controls (newline and tab too), DEL, C1 controls (U+009B is a CSI on its
    /// own), the line and paragraph separators, and the bidirectional overrides that reorder
    /// what is shown.
    public static func line(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isShownEscaped) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isShownEscaped(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    public static func isShownEscaped(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

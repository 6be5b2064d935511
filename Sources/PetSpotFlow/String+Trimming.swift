/// Which blank scalars `trimming(_:)` removes from the ends of a text.
public enum BlankScalars: Sendable {
    /// Space separators (Unicode Zs), tab and U+200B ZERO WIDTH SPACE; line breaks stay.
    case whitespaces
    /// Unicode White_Space (spaces, tabs, every line break) and U+200B ZERO WIDTH SPACE.
    case whitespacesAndNewlines

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        if scalar == "\u{200B}" { return true }
        switch self {
        case .whitespaces: return scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
        case .whitespacesAndNewlines: return scalar.properties.isWhitespace
        }
    }
}

extension StringProtocol {
    /// The text without `blanks` at either end, judged scalar by scalar: the same sets and the
    /// same result as Foundation's `trimmingCharacters(in: .whitespaces/.whitespacesAndNewlines)`,
    /// which FoundationEssentials lacks.
    public func trimming(_ blanks: BlankScalars) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !blanks.contains($0) }),
            let last = scalars.lastIndex(where: { !blanks.contains($0) })
        else { return "" }
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: scalars[first...last])
        return String(kept)
    }
}

import PetSpotText

/// What `show` prints: a title, then each label padded to the widest, its values one under
/// another; every value shown visibly.
enum LabeledLines {
    static func lines(_ title: String, _ rows: [(label: String, values: [String])]) -> [String] {
        let width = rows.map(\.label.count).max() ?? 0
        var out = [VisibleText.line(title)]
        for (label, values) in rows {
            for (index, value) in values.enumerated() {
                out.append("  " + TextLayout.pad(index == 0 ? label : "", to: width) + "  " + VisibleText.line(value))
            }
        }
        return out
    }
}

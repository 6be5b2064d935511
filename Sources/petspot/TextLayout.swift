/// Line breaking and padding for text a person reads, counting one column per character
/// (the daemon's texts are Latin script).
enum TextLayout {
    /// Breaks `text` into lines of at most `width` columns, at spaces where it can.
    static func wrap(_ text: String, width: Int) -> [String] {
        let width = max(width, 10)
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                var word = Substring(word)
                while word.count > width {
                    if !line.isEmpty {
                        lines.append(line)
                        line = ""
                    }
                    lines.append(String(word.prefix(width)))
                    word = word.dropFirst(width)
                }
                if line.isEmpty {
                    line = String(word)
                } else if line.count + 1 + word.count <= width {
                    line += " " + word
                } else {
                    lines.append(line)
                    line = String(word)
                }
            }
            lines.append(line)
        }
        return lines
    }

    /// Columns of text that may carry ANSI style codes, which take none.
    static func visibleLength(_ text: String) -> Int {
        var count = 0, inEscape = false
        for character in text {
            if inEscape {
                if character == "m" { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                count += 1
            }
        }
        return count
    }

    static func pad(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// At most `limit` characters, with "…" when cut.
    static func truncate(_ text: String, to limit: Int) -> String {
        let oneLine = text.replacingNewlines
        return oneLine.count <= limit ? oneLine : String(oneLine.prefix(max(limit - 1, 1))) + "…"
    }
}

extension String {
    /// Newlines as spaces, so a value stays on its line.
    var replacingNewlines: String {
        String(map { $0.isNewline ? " " : $0 })
    }
}

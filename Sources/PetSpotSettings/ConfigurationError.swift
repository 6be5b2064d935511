/// A setting that stops the start: one line naming where, which key, and what is wrong.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    /// For a bad value: the key and what is wrong with it, so a flag can say it in its own words.
    public let key: String?
    public let problem: String?

    public init(_ message: String) {
        self.message = Self.oneLine(message)
        self.key = nil
        self.problem = nil
    }

    public init(file: String, key: String, problem: String) {
        self.message = Self.oneLine("\(file): \(key): \(problem)")
        self.key = key
        self.problem = Self.oneLine(problem)
    }

    /// A name or value the file holds is echoed in the message; its control characters are
    /// shown as JSON escapes, so that a refused start stays one line and a refused reload one
    /// log entry.
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": shown.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": shown.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": shown.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                shown.append(contentsOf: (#"\u"# + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            default: shown.append(scalar)
            }
        }
        return String(shown)
    }

    public var description: String { message }
}

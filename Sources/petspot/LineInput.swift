/// Where the lines a person types come from: stdin, or a script in a test.
protocol LineInput: AnyObject {
    /// The next line without its line ending; nil at the end of the input.
    func readLine() -> String?
}

/// stdin, a keyboard or a pipe: the terminal's own line editing does the rest.
final class StandardInput: LineInput {
    func readLine() -> String? {
        guard var line = Swift.readLine(strippingNewline: true) else { return nil }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }
}

/// Lines given up front, for tests of the session.
final class ScriptedInput: LineInput {
    private var lines: [String]

    init(_ lines: [String]) {
        self.lines = lines
    }

    func readLine() -> String? {
        lines.isEmpty ? nil : lines.removeFirst()
    }
}

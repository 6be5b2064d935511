/// Where `petspot report` writes: stdout, or a buffer in a test.
protocol TextOutput: AnyObject {
    func write(_ text: String)
}

/// stdout without buffering, so a prompt shows before the program waits for its answer.
final class StandardOutput: TextOutput {
    func write(_ text: String) {
        writeToStandardOutput(text)
    }
}

/// Everything written, for tests of the session.
final class CapturedOutput: TextOutput {
    private(set) var text = ""

    func write(_ text: String) {
        self.text += text
    }
}

/// ANSI styling for a terminal, or none at all (NO_COLOR, TERM=dumb, a pipe).
struct TextStyle: Sendable {
    let enabled: Bool

    static let plain = TextStyle(enabled: false)

    func bold(_ text: String) -> String { sgr("1", text) }
    func dim(_ text: String) -> String { sgr("2", text) }
    func inverse(_ text: String) -> String { sgr("7", text) }
    func red(_ text: String) -> String { sgr("31", text) }
    func green(_ text: String) -> String { sgr("32", text) }
    func yellow(_ text: String) -> String { sgr("33", text) }
    func cyan(_ text: String) -> String { sgr("36", text) }

    private func sgr(_ code: String, _ text: String) -> String {
        guard enabled, !text.isEmpty else { return text }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }
}

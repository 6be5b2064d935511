import PetSpotText

/// A message of the client's own, shown once under the screen: an outcome, a hint, a problem.
struct Notice: Equatable {
    enum Kind: Equatable {
        case info
        case success
        case warning
        case problem
    }

    var kind: Kind
    var text: String
    /// Further lines, indented under the text (the command list of :help).
    var details: [String] = []

    static func info(_ text: String, details: [String] = []) -> Notice { Notice(kind: .info, text: text, details: details) }
    static func success(_ text: String) -> Notice { Notice(kind: .success, text: text) }
    static func warning(_ text: String) -> Notice { Notice(kind: .warning, text: text) }
    static func problem(_ text: String) -> Notice { Notice(kind: .problem, text: text) }
}

extension Notice {
    /// As it is drawn: a notice may quote the daemon (its error message, a setting's file and key).
    var visible: Notice {
        Notice(kind: kind, text: VisibleText.line(text), details: details.map(VisibleText.line))
    }
}

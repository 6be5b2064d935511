/// One line the person typed at a prompt of `petspot report`.
enum ReportEntry: Equatable {
    /// An empty line: keep the field's value, or continue after the last field.
    case keep
    /// A single "-": clear the field.
    case clear
    /// Anything else: the new value, sent to the daemon as typed.
    case value(String)
    case command(Command)
    /// ":something" that is not a command; `name` is what was typed.
    case unknownCommand(name: String)

    enum Command: Equatable {
        case back
        case cancel
        case gps
        /// Attach the photo at this path (nil when the path was left out).
        case photo(path: String?)
        case continueStep
        case submit
        case edit
        case help
    }

    init(line: String) {
        let trimmed = line.trimmingWhitespace
        if trimmed.isEmpty {
            self = .keep
        } else if trimmed == "-" {
            self = .clear
        } else if trimmed.hasPrefix("::") {
            // "::)" types the value ":)": a doubled colon escapes a leading one.
            self = .value(String(line.drop { $0 != ":" }.dropFirst()))
        } else if trimmed.hasPrefix(":") {
            let body = trimmed.dropFirst()
            let name = String(body.prefix { !$0.isWhitespace }).lowercased()
            let argument = String(body.dropFirst(name.count)).trimmingWhitespace
            switch name {
            case "back", "b": self = .command(.back)
            case "cancel", "quit", "q": self = .command(.cancel)
            case "gps": self = .command(.gps)
            case "photo": self = .command(.photo(path: argument.isEmpty ? nil : argument))
            case "continue", "c": self = .command(.continueStep)
            case "submit": self = .command(.submit)
            case "edit": self = .command(.edit)
            case "help", "h", "?": self = .command(.help)
            default: self = .unknownCommand(name: ":" + name)
            }
        } else {
            self = .value(line)
        }
    }
}

extension StringProtocol {
    var trimmingWhitespace: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Logging
import PetSpotText

/// One line per event on standard error. Under systemd (JOURNAL_STREAM set) each line starts
/// with the syslog priority in angle brackets, which journald reads as the entry's level.
public struct StderrLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let journald: Bool

    public init(label: String, level: Logger.Level, journald: Bool) {
        self.label = label
        self.logLevel = level
        self.journald = journald
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = self.metadata
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        // One write(2) per line keeps lines whole when several threads log at once.
        var bytes = Array(Self.line(label: label, level: event.level, message: "\(event.message)", metadata: merged, journald: journald).utf8)
        bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
    }

    /// One event as the one line written for it, newline included. Whatever the message and
    /// the values hold (a client's request id, a daemon's error message), the line has no other
    /// line break, no control character and no bidirectional control: `VisibleText` writes
    /// those as escapes, so no text can end a line early, forge another, drive a terminal or
    /// turn the line around.
    static func line(label: String, level: Logger.Level, message: String, metadata: Logger.Metadata, journald: Bool) -> String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\(VisibleText.line($0.key))=\(quoted("\($0.value)"))" }.joined(separator: " ")
        let text = VisibleText.line(message) + (fields.isEmpty ? "" : " " + fields)
        return journald ? "<\(priority(level))>\(text)\n" : "\(label): \(level): \(text)\n"
    }

    /// Whether standard error is the journal stream JOURNAL_STREAM ("DEVICE:INODE") names, as
    /// systemd.exec(5) asks: a child that inherited the variable but not the stream gets plain lines.
    public static func stderrIsJournal(_ value: String?) -> Bool {
        guard let parts = value?.split(separator: ":"), parts.count == 2,
              let device = UInt64(parts[0]), let inode = UInt64(parts[1])
        else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// A value as it is when it holds no space, quote, backslash or character `VisibleText`
    /// escapes; otherwise in quotes, with quotes and backslashes escaped as well.
    private static func quoted(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { $0 == " " || $0 == "\"" || $0 == "\\" || VisibleText.isShownEscaped($0) }) else { return value }
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where VisibleText.isShownEscaped(scalar): out += VisibleText.escape(scalar)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

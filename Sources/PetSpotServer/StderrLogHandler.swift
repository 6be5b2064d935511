#if canImport(Glibc)
import Glibc
#endif
import Logging

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
        let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quote("\($0.value)"))" }.joined(separator: " ")
        let message = "\(event.message)".replacingNewlines()
        let line: String
        if journald {
            line = "<\(Self.priority(event.level))>\(message)\(fields.isEmpty ? "" : " " + fields)\n"
        } else {
            line = "\(label): \(event.level): \(message)\(fields.isEmpty ? "" : " " + fields)\n"
        }
        // One write(2) per line keeps lines whole when several threads log at once.
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { _ = Glibc.write(2, $0.baseAddress, $0.count) }
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

    private static func quote(_ value: String) -> String {
        value.contains(where: { $0 == " " || $0 == "\"" }) ? "\"" + value.replacingOccurrences(of: "\"", with: "\\\"") + "\"" : value
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        contains("\n") ? split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") : self
    }

    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: Character(target), omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

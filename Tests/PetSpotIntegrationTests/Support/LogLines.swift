import Foundation

/// The daemon's log lines that contain all of `parts`.
func logLines(_ log: String, containing parts: String...) -> [Substring] {
    log.split(separator: "\n").filter { line in parts.allSatisfy { line.contains($0) } }
}

/// How many events fault lines stand for: 1 for a line, N for one with `repeated=N`.
func eventCount(_ lines: [Substring]) -> Int {
    lines.reduce(0) { total, line in
        guard let range = line.range(of: " repeated=") else { return total + 1 }
        return total + (Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0)
    }
}

/// The log file at `path`, created if missing and opened at its end: a program started again
/// appends to one log (its identity, and so JOURNAL_STREAM, stays the same across restarts).
func appendingLog(at path: String) throws -> FileHandle {
    if !FileManager.default.fileExists(atPath: path) {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
    }
    let log = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try log.seekToEnd()
    return log
}

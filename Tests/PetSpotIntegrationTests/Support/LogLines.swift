import Foundation
import PetSpotSystem

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

/// A log file's text, "" when it cannot be read. Read with `open`/`read`: Foundation's
/// `String(contentsOfFile:)` keeps a 4 KiB buffer for good on every read of an empty file,
/// which LeakSanitizer reports in `make test-asan`.
func logText(at path: String) -> String {
    (try? FileDescriptorIO.readFile(path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
}

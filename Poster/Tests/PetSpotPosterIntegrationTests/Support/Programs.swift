import Foundation

/// Where the built petspot-poster is: PETSPOT_BIN_DIR, else beside the test bundle, else
/// Poster/.build/debug.
enum Programs {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let poster: String = {
        if let dir = ProcessInfo.processInfo.environment["PETSPOT_BIN_DIR"] { return dir + "/petspot-poster" }
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [beside, beside.deletingLastPathComponent(), packageRoot.appendingPathComponent(".build/debug")]
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("petspot-poster").path) {
            return candidate.appendingPathComponent("petspot-poster").path
        }
        return packageRoot.appendingPathComponent(".build/debug/petspot-poster").path
    }()

    /// A clean environment: no locale but the one a test gives, so the machine's LANG decides nothing.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        for key in ["ASAN_OPTIONS", "LSAN_OPTIONS", "TSAN_OPTIONS", "SWIFT_BACKTRACE"] {
            environment[key] = ProcessInfo.processInfo.environment[key]
        }
        return environment.merging(extra) { $1 }
    }
}

struct ProgramResult: CustomStringConvertible {
    let status: Int32
    let stdout: Data
    let stderr: String

    var text: String { String(decoding: stdout, as: UTF8.self) }
    var description: String { "exit \(status), stderr: \(stderr)" }
}

/// Runs a program to its end with `input` on its standard input.
@discardableResult
func run(_ path: String, _ arguments: [String], input: Data = Data(), environment: [String: String] = Programs.environment(),
         in directory: URL? = nil) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment
    if let directory { process.currentDirectoryURL = directory }
    let out = Pipe(), err = Pipe(), inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    // Written while the output is read, so that neither pipe fills and stops the other side.
    let writer = Thread {
        inPipe.fileHandleForWriting.write(input)
        try? inPipe.fileHandleForWriting.close()
    }
    writer.start()
    let errors = ErrorCollector(err.fileHandleForReading)
    let stdout = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProgramResult(status: process.terminationStatus, stdout: stdout, stderr: errors.wait())
}

/// Reads a pipe to its end on a thread of its own.
private final class ErrorCollector: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> String {
        done.wait()
        return String(decoding: data, as: UTF8.self)
    }
}

/// A folder of its own for one test, removed when the test is done with it.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("petspot-poster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }
}

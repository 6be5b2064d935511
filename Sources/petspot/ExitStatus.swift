#if canImport(Glibc)
import Glibc
#endif

/// The exit codes of `petspot`, from sysexits.h where one fits, so scripts can tell a refused
/// request from a daemon that is not there.
enum ExitStatus {
    /// The daemon answered with an error, or the report was not submitted.
    static let failure: Int32 = 1
    /// EX_USAGE: the command line or its input cannot be used.
    static let usage: Int32 = 64
    /// EX_UNAVAILABLE: the daemon could not be reached, or went away.
    static let unavailable: Int32 = 69
    // A signal ends `petspot report` with 128 + its number, as a shell reports it: 130 for Ctrl-C.
}

/// Prints one line to stderr and ends the program.
func fail(_ line: String, code: Int32) -> Never {
    writeToStandardError(line + "\n")
    exit(code)
}

/// write(2) on stderr, ignoring failure: safe from any thread, and when the terminal is gone
/// (SIGHUP) there is nobody left to tell.
func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

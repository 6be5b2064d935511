#if canImport(Glibc)
import Glibc
#endif
import PetSpotSystem
import PetSpotText

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

/// Prints one line to stderr and ends the program. The line often quotes the daemon (its error
/// message, an answer that did not fit): it is written as `VisibleText` shows it.
func fail(_ line: String, code: Int32) -> Never {
    writeToStandardError(VisibleText.line(line) + "\n")
    exit(code)
}

/// write(2) on stderr, ignoring failure: safe from any thread, and when the terminal is gone
/// (SIGHUP) there is nobody left to tell.
func writeToStandardError(_ text: String) {
    try? FileDescriptorIO.write(STDERR_FILENO, text)
}

/// write(2) on stdout, unbuffered: a prompt shows before the program waits, and a pipe sees each
/// line at once. Output that cannot be written (a full disk) ends the program with a failure.
func writeToStandardOutput(_ text: String) {
    do {
        try FileDescriptorIO.write(STDOUT_FILENO, text)
    } catch {
        fail("petspot: cannot write to standard output: \(error)", code: ExitStatus.failure)
    }
}

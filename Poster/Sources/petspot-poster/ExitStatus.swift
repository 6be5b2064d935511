#if canImport(Glibc)
import Glibc
#endif
import PetSpotSystem

/// The exit codes of `petspot-poster`, from sysexits.h, so that petspot can tell the person
/// what went wrong.
enum ExitStatus {
    /// EX_USAGE: the command line cannot be used (ArgumentParser's own code for it too).
    static let usage: Int32 = 64
    /// EX_DATAERR: the input document is not one a poster can be made of, or its photo is refused.
    static let dataError: Int32 = 65
    /// EX_NOINPUT: --input names a file that cannot be read.
    static let noInput: Int32 = 66
    /// EX_UNAVAILABLE: lp cannot be started, or did not take the job.
    static let unavailable: Int32 = 69
    /// EX_SOFTWARE: cairo or libqrencode failed (out of memory).
    static let software: Int32 = 70
    /// EX_CANTCREAT: the output file cannot be written.
    static let cannotCreate: Int32 = 73
}

/// One line on standard error, and the program ends.
func fail(_ line: String, code: Int32) -> Never {
    printError("petspot-poster: " + line)
    exit(code)
}

#if canImport(Glibc)
import Glibc
#endif

/// EX_CONFIG from sysexits.h: the configuration is wrong; a restart alone will not help (the
/// units do not restart on it). The daemon's and the relay's exit status for a refused setting.
public let exitConfigurationError: Int32 = 78

/// EX_DATAERR from sysexits.h: the reports database is damaged and was left as it was found;
/// an operator must restore or recover it (the daemon's unit does not restart on it).
public let exitDatabaseDamaged: Int32 = 65

/// One line on standard error, written whole: what a program says before logging is set up.
public func printError(_ line: String) {
    try? FileDescriptorIO.write(STDERR_FILENO, line + "\n")
}

#if canImport(Glibc)
import Glibc
#endif

/// A program started with its standard input fed from memory, then waited for: how
/// petspot-poster hands a poster to lp, and petspot a document to petspot-poster. Written on
/// posix_spawn because Foundation's `Process` is not in FoundationEssentials, and the programs
/// link no more than that.
public enum ChildProcess {
    /// How the program ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    public struct Outcome: Sendable {
        public let termination: Termination
        /// Set when the program ended before it read all of its input (EPIPE and the like).
        public let inputError: SystemError?
    }

    /// Starts `command` (looked up in PATH when it names no folder) with `arguments`, writes
    /// `input` to its standard input, closes it and waits for the program to end. Its standard
    /// output is ours, or our standard error with `outputToStandardError` (so that what it says
    /// never mixes into a file we write to standard output). The caller ignores SIGPIPE: a
    /// program that stops reading early is an outcome, not a signal.
    public static func run(_ command: String, arguments: [String], input: [UInt8],
                           outputToStandardError: Bool = false) throws(SystemError) -> Outcome {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SystemError(errno: errno) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // The program gets the read end as its standard input only, and never the write end:
        // it would wait for an end of file that never comes.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, STDIN_FILENO)
        if outputToStandardError { posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO) }

        // The caller ignores SIGPIPE; the program starts with it as its default, as from a shell.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))

        let argv = ([command] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, command, &actions, &attributes, argv, environ)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            throw SystemError(errno: spawned)
        }

        var inputError: SystemError? = nil
        do throws(SystemError) {
            try FileDescriptorIO.write(writeEnd, bytes: input)
        } catch {
            inputError = error
        }
        close(writeEnd)

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw SystemError(errno: errno) }
        }
        let signal = status & 0x7F
        let termination: Termination = signal == 0 ? .exited((status >> 8) & 0xFF) : .signalled(signal)
        return Outcome(termination: termination, inputError: inputError)
    }
}

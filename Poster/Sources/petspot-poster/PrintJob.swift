#if canImport(Glibc)
import Glibc
#endif
import PetSpotPoster
import PetSpotSystem

/// Hands the PDF to CUPS: `lp [-d PRINTER] -t TITLE -o media=A4`, the PDF on its standard
/// input. What lp says ("request id is …") goes to standard error, never into a poster written
/// to standard output.
struct PrintJob {
    let command: String
    let printer: String?
    let title: String
    let paper: PaperSize

    var arguments: [String] {
        (printer.map { ["-d", $0] } ?? []) + ["-t", title, "-o", "media=\(paper.cupsMedia)"]
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    func send(_ pdf: [UInt8]) throws(Failure) {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "cannot make a pipe for \(command): \(SystemError(errno: errno))") }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // lp gets the read end as its standard input only, and never the write end: it would
        // wait for an end of file that never comes.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)

        let argv = ([command] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, command, &actions, nil, argv, environ)
        close(readEnd)
        guard spawned == 0 else {
            close(writeEnd)
            throw Failure(description: "cannot start \(command): \(SystemError(errno: spawned))")
        }

        var writeError: SystemError? = nil
        do throws(SystemError) {
            try FileDescriptorIO.write(writeEnd, bytes: pdf)
        } catch {
            writeError = error
        }
        close(writeEnd)

        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "lost \(command): \(SystemError(errno: errno))") }
        }
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited else { throw Failure(description: "\(command) was killed by signal \(status & 0x7F)") }
        guard code == 0 else { throw Failure(description: "\(command) exited with status \(code): the poster was not printed") }
        if let writeError { throw Failure(description: "\(command) did not take the whole poster: \(writeError)") }
    }
}

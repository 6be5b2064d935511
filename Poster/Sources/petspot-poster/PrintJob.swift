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
        let outcome: ChildProcess.Outcome
        do throws(SystemError) {
            // What lp says goes to standard error, never into a poster written to standard output.
            outcome = try ChildProcess.run(command, arguments: arguments, input: pdf, outputToStandardError: true)
        } catch {
            throw Failure(description: "cannot start \(command): \(error)")
        }
        switch outcome.termination {
        case .signalled(let signal): throw Failure(description: "\(command) was killed by signal \(signal)")
        case .exited(let code) where code != 0: throw Failure(description: "\(command) exited with status \(code): the poster was not printed")
        case .exited: break
        }
        if let inputError = outcome.inputError { throw Failure(description: "\(command) did not take the whole poster: \(inputError)") }
    }
}

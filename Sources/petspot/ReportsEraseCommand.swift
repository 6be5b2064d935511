import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotProtocol
import PetSpotText

/// `petspot reports erase`: a report's personal data gone for good, once its owner has said so.
struct ReportsEraseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "erase",
        abstract: "Erase a report's personal data for good.",
        discussion: """
            Erases the report (reports.erase): its chip number, photo, race, gender, age, \
            position, description and contacts are gone from petspotd's disk, and the relay \
            carries the erasure to the central database. It keeps its id, times, status, \
            version, species and the day the pet went missing; a missing report becomes \
            withdrawn. This cannot be undone. Erasing an erased report changes nothing.

            On a terminal petspot first shows the report and asks you to type the first \
            8 characters of its id (or the whole id) to confirm; anything else, an empty \
            line or Ctrl-D erases nothing (exit 1). A script says --yes instead: without it, \
            when standard input is not a terminal, petspot erases nothing and exits 64. The \
            question and the report it shows go to standard error, so that --json output \
            stays JSON.

            Examples:
              petspot reports erase 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              …the report…
              Erasing removes this report's personal data for good: …
              Type 3f2a0c1e (the start of its id) to erase it, anything else keeps it: 3f2a0c1e
              Report 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
                Status         withdrawn, erased
                …
              petspot reports erase --yes 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
            """)

    @OptionGroup var change: ReportChangeOptions

    @Flag(help: "Erase without asking (for scripts); needed when standard input is not a terminal.")
    var yes = false

    func run() throws {
        guard yes || Terminal().inputIsTerminal else {
            fail("petspot: reports erase: standard input is not a terminal, so there is nobody to ask; nothing was erased. "
                 + "To erase without asking, add --yes.", code: ExitStatus.usage)
        }
        let conn = change.connection.connect()
        if !yes {
            let report = conn.callOrExit(ReportsGet.self, ReportsGet.Params(reportId: change.id)).report
            // Erasing an erased report again loses nothing: no question to ask.
            if !report.erased, !confirmed(report, names: conn) {
                fail("petspot: nothing was erased.", code: ExitStatus.failure)
            }
        }
        change.show(conn.callOrExit(ReportsErase.self, ReportsErase.Params(reportId: change.id)).report, names: conn)
    }

    /// Shows the report and asks for the start of its id, on standard error.
    private func confirmed(_ report: ReportView, names daemon: DaemonCalling) -> Bool {
        writeToStandardError(Self.question(report, species: SpeciesNames(daemon), now: Date()))
        guard case .line(let typed)? = try? StandardInput().next(or: nil) else {
            writeToStandardError("\n")
            return false
        }
        return Self.confirms(typed, id: report.id)
    }

    /// The report as `show` prints it, what erasing removes, and the question, which waits on its line.
    static func question(_ report: ReportView, species: SpeciesNames, now: Date) -> String {
        let lines = ReportsShowCommand.lines(ReportRecord(report), species: species, now: now) + [
            "",
            "Erasing removes this report's personal data for good: its chip number, photo, race,",
            "gender, age, position, description and contacts. It keeps its id, times, status,",
            "species and the day the pet went missing. This cannot be undone.",
        ]
        return lines.map { $0 + "\n" }.joined()
            + VisibleText.line("Type \(confirmationCode(report.id)) (the start of its id) to erase it, anything else keeps it: ")
    }

    /// What a person types to confirm: the id's first 8 characters (a whole UUID is a lot to type,
    /// and "yes" is typed out of habit), or the id when it is shorter.
    static func confirmationCode(_ id: String) -> String {
        String(id.prefix(8))
    }

    /// Whether `typed` is the confirmation code, or the whole id; spaces around it do not count.
    static func confirms(_ typed: String, id: String) -> Bool {
        let answer = typed.trimmingWhitespace
        return !answer.isEmpty && (answer == confirmationCode(id) || answer == id)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import PetSpotClient
import PetSpotProtocol
import PetSpotViews

/// `petspot report`: files a missing-pet report the way the phone app does, one screen at a time.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "File a missing-pet report, guided step by step.",
        discussion: """
            Shows each screen of the report as petspotd describes it: microchip number, photo, \
            description, contact details, then a summary to check before submitting. For each \
            field you see its current value in [brackets]: press Enter to keep it, type a new \
            value, or type - to clear it. A value petspotd refuses is asked again with its \
            error. After the last field, Enter continues; if something must be corrected, \
            petspotd says what and you start at the first field with an error.

            While it waits for your answer it follows the report on petspotd (flow.watch): \
            a change made elsewhere by your user (another petspot report, petspot call) \
            shows at once, with "This report was changed elsewhere."; a report submitted, \
            cancelled or expired meanwhile ends the command, saying so.

            Commands, typed at any prompt:
              :back          go back one step, keeping every value (on step 1: cancel)
              :continue      check this step and go on
              :edit          go through this step's fields again
              :gps           fill in latitude and longitude from the GPS (step 3)
              :photo PATH    attach the image in this file (step 2); on the photo field
                             you can also just type the path
              :submit        send the report (on the summary)
              :cancel        cancel; nothing is stored
              :help          list the commands
              ::text         a value that starts with a colon
            Species and gender are chosen by number or by name. When petspotd cannot give \
            you a location it shows an alert: 1 (or Enter) is Cancel, 2 is Go to Settings, \
            which tells you which setting grants location access. Ctrl-C cancels the report \
            and exits 130.

            On a terminal the screen is redrawn for every field, in colour unless NO_COLOR is \
            set or TERM=dumb. When stdin is not a terminal (or with --plain) it works line by \
            line, so that a script can pipe the answers in. The plain mode's line protocol:

              * Each prompt is one output line that starts with "? " and ends with ":".
              * Each input line answers exactly one prompt: empty keeps the value,
                "-" clears it, ":command" runs a command, anything else is the value.
              * Prompts follow the screen's fields in order, skipping unavailable ones
                (the race before a species); after the last field, one more prompt:
                an empty line continues.
              * A refused value is asked again; a refused Continue starts again at the
                first field with an error. So a script should send valid values.
              * An alert (":gps" without permission) takes one line: 1 or empty is
                Cancel, 2 is Go to Settings.
              * On the summary, ":submit" sends the report; the output then shows
                "Report submitted: ID". The flow id is printed first as "flow: ID".
              * If the input ends before that, the report is cancelled (exit 1).
              * A change made elsewhere prints the screen again, then
                "* This report was changed elsewhere." and the prompt again, which the
                next line answers. Ended elsewhere, the last line says how:
                "This report was submitted elsewhere: ID" (exit 0), "This report was
                cancelled elsewhere; …" or "This report expired: …" (exit 1).

            The prompts of a whole report, in order:
              chip          chipNumber, continue
              photo         photo (a file path), continue
              description   disappearanceDate (empty keeps today), species, race,
                            gender, age, latitude, longitude, additionalDescription,
                            continue
              contact       contactPhone, contactEmail, continue
              summary       :submit

            Example:
              printf '%s\\n' '616 0912 3456 7890' '' \\
                rex.jpg '' \\
                '' dog Beagle male 4 :gps '' '' 'Brown collar' '' \\
                '' owner@example.org '' \\
                :submit | petspot report

            Exit codes: 0 submitted (here or elsewhere), 1 cancelled (here or elsewhere), \
            expired or not submitted, 69 petspotd cannot be reached or went away, 130 Ctrl-C.
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: "The language of the report's screens.")
    var locale: FlowLocale = .en

    @Flag(help: "Line by line without colour, even on a terminal (what a pipe gets).")
    var plain = false

    func run() throws {
        let terminal = Terminal()
        let copy = ReportCopy.forLocale(locale)
        let connection = self.connection.connect()
        let maxLineBytes = connection.callOrExit(DaemonInfo.self).limit("maxLineBytes")
        // Wider than 100 columns, lines get too long to read.
        let layout: ScreenRenderer.Layout = !plain && terminal.redrawsScreens ? .fullScreen(width: 100) : .plain
        let renderer = ScreenRenderer(layout: layout, style: TextStyle(enabled: terminal.usesColour), copy: copy,
                                      columns: { terminal.width })

        let activeFlow = ActiveFlow()
        let socketPath = connection.socketPath
        let echoedControlC = terminal.inputIsTerminal
        SignalWatcher.watch([SIGINT, SIGTERM, SIGHUP]) { signal in
            let cancelled = activeFlow.take().map { ActiveFlow.cancel($0, socketPath: socketPath) } ?? false
            let line = (echoedControlC ? "\n" : "") + "petspot: " + (cancelled ? copy.interrupted : "interrupted") + "\n"
            writeToStandardError(line)
            // _exit: the main thread may be anywhere in a call or a write; exit(3)'s clean-up would race it.
            _exit(128 + signal)
        }

        let session = ReportSession(
            daemon: connection, notifications: connection, input: StandardInput(), output: StandardOutput(), renderer: renderer, copy: copy,
            maxLineBytes: maxLineBytes, onFlowChange: { activeFlow.set($0) })
        let outcome: ReportSession.Outcome
        do {
            outcome = try session.run(locale: locale)
        } catch {
            switch error {
            case .lost(let reason): fail("petspot: " + copy.lost(reason.description), code: ExitStatus.unavailable)
            case .flowGone(let reason): fail("petspot: " + copy.flowGone(reason.message), code: ExitStatus.failure)
            case .notStarted(let reason): fail("petspot: flow.start: \(reason.message) [\(reason.kind.rawValue)]", code: ExitStatus.failure)
            }
        }
        // The session has said how it ended, except when the input ran out.
        switch outcome {
        case .submitted, .submittedElsewhere: return
        case .cancelled, .cancelledElsewhere, .expired: throw ExitCode(ExitStatus.failure)
        case .inputEnded: fail("petspot: " + copy.inputEnded, code: ExitStatus.failure)
        }
    }
}

extension FlowLocale: ExpressibleByArgument {}

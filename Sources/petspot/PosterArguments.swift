#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
import PetSpotText
import PetSpotViews

/// The options of `petspot poster` and `petspot animals poster`, handed on to petspot-poster,
/// which makes the page (a program and package of its own: it links cairo, Pango, gdk-pixbuf
/// and libqrencode, which petspot never needs).
struct PosterArguments: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Where to write the poster; - for standard output (default: missing-<id>.pdf, or .png).", valueName: "file"),
            completion: .file())
    var output: String?

    @Flag(help: "Write a PNG picture of the page instead of a PDF.")
    var png = false

    @Option(help: ArgumentHelp("Pixels per inch of the PNG (36 to 600; default 150).", valueName: "n"))
    var dpi: Int?

    @Flag(name: .customLong("print"), help: "Send the PDF to a printer with lp (CUPS) instead of writing it.")
    var sendToPrinter = false

    @Option(help: ArgumentHelp("The CUPS printer (lp -d); default: the system's default printer.", valueName: "name"))
    var printer: String?

    @Option(help: ArgumentHelp("a4 or letter (default: by the country of the locale).", valueName: "paper"))
    var paper: String?

    @Option(help: ArgumentHelp("en or pl (default: the language of LC_ALL, LC_MESSAGES or LANG, else English).", valueName: "locale"))
    var locale: FlowLocale?

    @Flag(help: "Print the microchip number (left out by default: on a public wall it helps a thief more than a finder).")
    var chip = false

    @Option(help: ArgumentHelp("What the QR code holds: geo (the last-seen position), contact (tel: or mailto:), none.", valueName: "what"))
    var qr: String?

    /// petspot-poster's options; it checks them and names any that is wrong.
    var programArguments: [String] {
        var arguments: [String] = []
        if let output { arguments += ["--output", output] }
        if png { arguments.append("--png") }
        if let dpi { arguments += ["--dpi", String(dpi)] }
        if sendToPrinter { arguments.append("--print") }
        if let printer { arguments += ["--printer", printer] }
        if let paper { arguments += ["--paper", paper] }
        if chip { arguments.append("--chip") }
        if let qr { arguments += ["--qr", qr] }
        return arguments
    }

    /// The poster's language: --locale, else the environment's, else English.
    var language: FlowLocale {
        locale ?? FlowLocale(environment: ProcessEnvironment.current()) ?? .en
    }

    /// The program: $PETSPOT_POSTER, else petspot-poster beside petspot, else on the PATH.
    static func program(_ environment: [String: String]) -> String {
        if let named = environment["PETSPOT_POSTER"], !named.isEmpty { return named }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            let exe = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if let slash = exe.lastIndex(of: "/") {
                let beside = String(exe[..<slash]) + "/petspot-poster"
                if access(beside, X_OK) == 0 { return beside }
            }
        }
        return "petspot-poster"
    }

    /// Hands `document` to petspot-poster and ends petspot as it ended: its exit code, and its
    /// messages on standard error as it wrote them.
    /// The poster in the language asked for (`language`), its species named by the daemon's
    /// catalog in it: `document` makes the document from the language and that name.
    func makePoster(_ conn: PetSpotConnection, species: String?, _ document: (FlowLocale, String?) -> JSONValue) -> Never {
        let locale = language
        makePoster(document(locale, SpeciesNames(conn, locale: locale).name(species)))
    }

    func makePoster(_ document: JSONValue) -> Never {
        // A poster program that ends before it has read the document is its failure, not a signal.
        signal(SIGPIPE, SIG_IGN)
        let program = Self.program(ProcessEnvironment.current())
        let outcome: ChildProcess.Outcome
        do throws(SystemError) {
            outcome = try ChildProcess.run(program, arguments: programArguments, input: Array(JSONWriter.string(document).utf8))
        } catch {
            fail("petspot: cannot start \(program): \(error) (install the petspot-poster package, or build it with make poster)", code: ExitStatus.unavailable)
        }
        switch outcome.termination {
        case .exited(let code): Glibc.exit(code)
        case .signalled(let signal): fail("petspot: \(program) was killed by signal \(signal)", code: ExitStatus.failure)
        }
    }
}

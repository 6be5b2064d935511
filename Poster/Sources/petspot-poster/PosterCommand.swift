import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import PetSpotPoster
import PetSpotPosterPage
import PetSpotProtocol
import PetSpotSystem
import PetSpotViews

@main
struct PosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot-poster",
        abstract: "Make a printable poster of a missing pet: a one-page PDF, a PNG, or straight to a printer.",
        discussion: """
            petspot-poster reads one report or animal as a JSON document on standard input (or \
            --input FILE), as petspot fetched it from petspotd (`petspot poster REPORT_ID`, \
            `petspot animals poster ID`), and writes missing-ID.pdf: the headline and the species \
            in large type, the photo as large as the page allows, race, gender, age, when and \
            where the animal was last seen, the description, the contact as given, and a QR code \
            of the last-seen position (geo:) or, with --qr contact, of the contact (tel:, mailto:).

            The input document (members left out count as null; other members are ignored, so \
            an animal of animals.get passes as it is once its photo is animals.photo's answer):
              {"id": "3f2a0c1e-…",                       required: the file name, the reference
               "locale": "en" | "pl",                   the language, unless --locale
               "species": "dog",                        required: a species id
               "speciesName": "Dog",                    its name in the poster's language
               "race": "Labrador", "gender": "female" | "male", "age": 3,
               "disappearanceDate": "2026-09-12",
               "lastSeen": {"latitude": 52.22968, "longitude": 21.01223} | null,
               "description": "…",                      up to 500 characters
               "contact": {"phone": "+48123456789", "email": "jan@example.org"},
                                                        required; one of them at least; printed as given
               "chipNumber": "123456789012345",         printed only with --chip
               "photo": {"mediaType": "image/jpeg", "data": BASE64} | null}
            A report's values map to it as: additionalDescription → description, latitude and \
            longitude → lastSeen, contactPhone and contactEmail → contact.

            The language is --locale, else the document's locale, else LC_ALL, LC_MESSAGES or \
            LANG (Polish for pl, English for anything else). The paper is --paper, else the \
            country of LC_ALL, LC_PAPER or LANG: US Letter for the United States, Canada, Mexico, \
            the Philippines and the Latin American countries that use it, A4 everywhere else.

            A photo (JPEG, PNG, WebP, HEIC) is decoded at the page's resolution, never whole: one \
            of more than --max-pixels is refused from its header. Without a decoder for its type \
            the poster says so in its place.

            Exit codes: 0 done, 64 bad usage, 65 the input or its photo cannot be used (the \
            message names the member), 66 --input cannot be read, 69 lp cannot be started or \
            refused the job, 70 drawing failed, 73 the output cannot be written.

            Examples:
              petspot-poster --input report.json                    missing-<id>.pdf
              petspot-poster --locale pl --paper a4 < animal.json
              petspot-poster --png --dpi 100 --output poster.png < report.json
              petspot-poster --print --printer Kiosk --qr contact < report.json
            """,
        version: petspotdVersion)

    @Option(name: .customLong("input"), help: ArgumentHelp("The JSON document to print; - for standard input (the default).", valueName: "file"))
    var input: String?

    @Option(name: [.customShort("o"), .customLong("output")],
            help: ArgumentHelp("Where to write the poster; - for standard output (default: missing-<id>.pdf, or .png; none with --print).", valueName: "file"))
    var output: String?

    @Flag(help: "Write a PNG picture of the page instead of a PDF.")
    var png = false

    @Option(help: ArgumentHelp("Pixels per inch of the PNG (36 to 600).", valueName: "n"))
    var dpi: Int = 150

    @Flag(name: .customLong("print"), help: "Send the PDF to a printer with lp (CUPS).")
    var sendToPrinter = false

    @Option(help: ArgumentHelp("The CUPS printer (lp -d); default: the system's default printer.", valueName: "name"))
    var printer: String?

    @Option(name: .customLong("lp-command"),
            help: ArgumentHelp("The program that takes the job, with lp's options (default: $PETSPOT_POSTER_LP, else lp).", valueName: "path"))
    var lpCommand: String?

    @Option(help: ArgumentHelp("a4 or letter (default: by the country of the locale).", valueName: "paper"))
    var paper: PaperSize?

    @Option(help: ArgumentHelp("en or pl (default: the document's locale, else the language of the environment).", valueName: "locale"))
    var locale: FlowLocale?

    @Flag(help: "Print the microchip number (left out by default: on a public wall it helps a thief more than a finder).")
    var chip = false

    @Option(help: ArgumentHelp("What the QR code holds: geo (the last-seen position; the default when there is one), contact (tel: or mailto:), none.", valueName: "what"))
    var qr: PosterOptions.QRChoice?

    @Option(name: .customLong("max-pixels"), help: ArgumentHelp("The largest photo decoded, in pixels (width × height).", valueName: "n"))
    var maxPixels: Int = PhotoScaling.defaultMaxPixels

    func validate() throws {
        guard (36...600).contains(dpi) else { throw ValidationError("--dpi must be from 36 to 600, not \(dpi)") }
        if dpi != 150 && !png { throw ValidationError("--dpi is for --png") }
        if sendToPrinter && png { throw ValidationError("--print sends the PDF; leave out --png") }
        if printer != nil && !sendToPrinter { throw ValidationError("--printer needs --print") }
        if lpCommand != nil && !sendToPrinter { throw ValidationError("--lp-command needs --print") }
        guard maxPixels >= 1 else { throw ValidationError("--max-pixels must be at least 1, not \(maxPixels)") }
    }

    func run() throws {
        // A printer program that ends before it has read the poster is an error, not a signal.
        signal(SIGPIPE, SIG_IGN)
        let environment = ProcessEnvironment.current()

        if input == nil || input == "-", isatty(STDIN_FILENO) == 1 {
            fail("give the report or animal as JSON on standard input or with --input FILE (petspot-poster --help)", code: ExitStatus.usage)
        }
        let bytes: [UInt8]
        do throws(SystemError) {
            if let input, input != "-" {
                bytes = try FileDescriptorIO.readFile(input)
            } else {
                bytes = try FileDescriptorIO.readToEnd(STDIN_FILENO)
            }
        } catch {
            fail("cannot read \(input ?? "standard input"): \(error)", code: ExitStatus.noInput)
        }

        let document: PosterDocument
        let content: PosterContent
        let language = locale ?? LocaleEnvironment.language(environment) ?? .en
        do throws(PosterInputError) {
            document = try PosterDocument(json: bytes)
            let options = PosterOptions(locale: locale ?? document.locale ?? language, showChip: chip, qr: qr)
            content = try PosterContent(document, options: options)
        } catch {
            fail("\(input ?? "input"): \(error)", code: ExitStatus.dataError)
        }

        let sheet = paper ?? LocaleEnvironment.paper(environment)
        let poster: [UInt8]
        do throws(PosterRenderError) {
            poster = try PosterRenderer.render(content, photo: document.photo, paper: sheet, format: png ? .png(dpi: Double(dpi)) : .pdf, maxPixels: maxPixels)
        } catch {
            switch error {
            case .photo: fail("\(input ?? "input"): \(error)", code: ExitStatus.dataError)
            case .drawing: fail(error.description, code: ExitStatus.software)
            }
        }

        let path = output ?? (sendToPrinter ? nil : OutputFile.defaultName(id: document.id, extension: png ? "png" : "pdf"))
        if let path {
            do throws(SystemError) {
                try OutputFile.write(poster, to: path)
            } catch {
                fail("cannot write \(path): \(error)", code: ExitStatus.cannotCreate)
            }
            if path != "-" { printError("petspot-poster: wrote \(path) (\(sheet.cupsMedia))") }
        }
        if sendToPrinter {
            let job = PrintJob(command: lpCommand ?? environment["PETSPOT_POSTER_LP"] ?? "lp", printer: printer, title: content.title, paper: sheet)
            do throws(PrintJob.Failure) {
                try job.send(poster)
            } catch {
                fail(error.description, code: ExitStatus.unavailable)
            }
        }
    }
}

extension PaperSize: ExpressibleByArgument {}
// From petspotd's package: petspot declares the same for its own --locale.
extension FlowLocale: @retroactive ExpressibleByArgument {}
extension PosterOptions.QRChoice: ExpressibleByArgument {}

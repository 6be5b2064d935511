import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText
import PetSpotViews

/// `petspot reports amend`: fields of a filed report changed, by the flow's own rules.
struct ReportsAmendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "amend",
        abstract: "Change fields of a missing or expired report.",
        discussion: """
            Sends the fields you name to petspotd (reports.amend), which reads each as the \
            report's screens do: the same normalisation (a chip number's or phone's digits, a \
            description cut to 500 characters) and the same refusals. Then it prints the report \
            as it is now, its version one higher. Values as they already are change nothing.

            A refused value changes nothing at all: petspot names the flag and the field and \
            gives petspotd's message, e.g.
              petspot: reports.amend: --email (values.contactEmail): Enter an email address like name@example.com. [invalidParams]
            and exits 1. What the report needs stays needed: a new species needs its race too, \
            a latitude its longitude, and one contact must remain.

            --clear FIELD empties an optional field (chip, photo, age, latitude, longitude, \
            description, or one of phone and email while the other stays); it may be given \
            more than once. An empty value (--phone '') is refused: clearing is always said \
            with --clear. A found, withdrawn or erased report is refused (exit 1).

            Examples:
              petspot reports amend ID --phone '+48 601 234 999'
              petspot reports amend ID --species cat --race 'Maine Coon' --age 3
              petspot reports amend ID --latitude 52.2297 --longitude 21.0122
              petspot reports amend ID --photo ~/rex-2.jpg --description 'Red collar, limps'
              petspot reports amend ID --clear age --clear chip
              petspot reports amend ID --email owner@example.org --clear phone
            """)

    @OptionGroup var change: ReportChangeOptions

    // `.unconditional`: a value may start with "-" (a longitude west of Greenwich, a description).
    @Option(parsing: .unconditional, help: ArgumentHelp("The microchip number; spaces and dashes are left out.", valueName: "number"))
    var chip: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("A new photo: the image in this file (JPEG, PNG, WebP or HEIC).", valueName: "file"),
            completion: .file())
    var photo: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The day it went missing, YYYY-MM-DD (not in the future).", valueName: "date"))
    var date: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The species id, e.g. dog (petspot call species.list); give --race with it.", valueName: "id"),
            completion: .custom(ReportsCommand.completeSpecies))
    var species: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The race or breed.", valueName: "text"))
    var race: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("female or male.", valueName: "gender"), completion: .list(["female", "male"]))
    var gender: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The age in whole years, 0–40.", valueName: "years"))
    var age: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Where it was last seen: degrees north, e.g. 52.2297 (with --longitude).", valueName: "degrees"))
    var latitude: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Degrees east, e.g. 21.0122 or -0.1276 (with --latitude).", valueName: "degrees"))
    var longitude: String?

    @Option(name: .customLong("description"), parsing: .unconditional,
            help: ArgumentHelp("Colour, collar, distinctive marks: up to 500 characters.", valueName: "text"))
    var additionalDescription: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("A phone number to reach you on.", valueName: "number"))
    var phone: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("An email address to reach you at.", valueName: "address"))
    var email: String?

    @Option(name: .customLong("clear"), help: ArgumentHelp("Empty this optional field (repeatable).", valueName: "field"))
    var cleared: [AmendableField] = []

    /// Each field given a value, in the report's order.
    var given: [(field: AmendableField, value: String)] {
        let values: [(AmendableField, String?)] = [
            (.chip, chip), (.photo, photo), (.date, date), (.species, species), (.race, race), (.gender, gender), (.age, age),
            (.latitude, latitude), (.longitude, longitude), (.additionalDescription, additionalDescription), (.phone, phone), (.email, email),
        ]
        return values.compactMap { field, value in value.map { (field, $0) } }
    }

    func validate() throws {
        let given = self.given
        guard !given.isEmpty || !cleared.isEmpty else {
            throw ValidationError("Name at least one field to change, e.g. --phone '+48 601 234 999', or one to empty, e.g. --clear age.")
        }
        for (field, value) in given {
            if value.allSatisfy(\.isWhitespace) {
                throw ValidationError("\(field.flag) is empty; to empty the field, say --clear \(field.rawValue).")
            }
            if cleared.contains(field) {
                throw ValidationError("\(field.flag) and --clear \(field.rawValue) both name the \(field.rawValue); give one of them.")
            }
        }
    }

    func run() throws {
        var values = JSONObject()
        var photoFile: PhotoFile?
        for (field, value) in given {
            if field == .photo {
                do {
                    photoFile = try PhotoFile.read(typed: value)
                } catch {
                    fail("petspot: " + ReportCopy.english.photoUnreadable(value, error.reason), code: ExitStatus.usage)
                }
                continue
            }
            values[field.wireName] = .string(value)
        }
        for field in AmendableField.allCases where cleared.contains(field) { values[field.wireName] = .null }

        let conn = change.connection.connect()
        if let photoFile, let photo {
            if let maxLineBytes = conn.callOrExit(DaemonInfo.self).limit("maxLineBytes"), !photoFile.fits(maxLineBytes: maxLineBytes) {
                let largest = ByteSize.text(PhotoFile.largest(maxLineBytes: maxLineBytes))
                fail("petspot: " + ReportCopy.english.photoTooLarge(photo, ByteSize.text(photoFile.bytes.count), largest), code: ExitStatus.failure)
            }
            values[AmendableField.photo.wireName] = photoFile.upload.json
        }
        do {
            switch try conn.call(ReportsAmend.self, ReportsAmend.Params(reportId: change.id, values: values)) {
            case .success(let answer): change.show(answer.report, names: conn)
            case .failure(let error): fail(Self.refusal(error), code: ExitStatus.failure)
            }
        } catch {
            fail("petspot: \(error.description)", code: ExitStatus.unavailable)
        }
    }

    /// The error line of a refused amendment: a refused value names its flag, its field and the
    /// flow's message ("--email (values.contactEmail): Enter an email address…"); any other error
    /// is told as every command tells one.
    static func refusal(_ error: RPCError) -> String {
        let prefix = "values."
        guard error.kind == .invalidParams, let parameter = error.parameter, parameter.hasPrefix(prefix),
              let field = AmendableField(wireName: String(parameter.dropFirst(prefix.count)))
        else {
            return "petspot: \(ReportsAmend.name): \(error.message) [\(error.kind.rawValue)]"
        }
        // The daemon's message starts with the field's name, which the line has said already.
        var message = Substring(error.message)
        if message.hasPrefix(parameter + ": ") { message = message.dropFirst(parameter.count + 2) }
        return "petspot: \(ReportsAmend.name): \(field.flag) (\(parameter)): \(message) [\(error.kind.rawValue)]"
    }
}

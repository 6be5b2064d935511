import ArgumentParser
import FoundationEssentials
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotSystem
import PetSpotText
import PetSpotViews

/// `petspot animals show`: one missing animal, everything the caller may see of it.
struct AnimalsShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one missing animal.",
        discussion: """
            Everything you may see of the animal: where it stands, the box it was reported at, \
            the animal, when it went missing, where it was last seen (coordinates, a geo: link \
            for phones and an OpenStreetMap link), how to reach its owner, the photo's type, \
            size and SHA-256, and the microchip number for staff. --photo FILE saves the photo \
            as the daemon serves it to you (for the public, without its metadata).

            Examples:
              petspot animals show 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
              petspot animals show 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10 --photo rex.jpg
              petspot animals show --json 3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10
            """)

    @OptionGroup var connection: SocketOption

    @Argument(help: "The animal's id (see petspot animals).", completion: .custom(AnimalsCommand.completeAnimalIDs))
    var id: String

    @Flag(help: "Print the animal as JSON, as petspotd gives it.")
    var json = false

    @Option(help: ArgumentHelp("Also save the animal's photo to this file.", valueName: "file"), completion: .file())
    var photo: String?

    func run() throws {
        let conn = connection.connect()
        let animal = conn.callOrExit(AnimalsGet.self, AnimalsGet.Params(animalId: id)).animal
        if json {
            print(JSONPrettyPrinter.string(animal.json))
        } else {
            for line in Self.lines(AnimalRecord(animal), species: SpeciesNames(conn)) { print(line) }
        }
        if let photo {
            let served = conn.callOrExit(AnimalsPhoto.self, AnimalsPhoto.Params(animalId: id))
            guard let bytes = Data(base64Encoded: served.data) else {
                fail("petspot: animals.photo: the daemon's photo is not base64", code: ExitStatus.unavailable)
            }
            do throws(SystemError) {
                try FileDescriptorIO.replaceFile(photo, bytes: Array(bytes))
            } catch {
                fail("petspot: cannot write the photo to \(photo): \(error)", code: ExitStatus.failure)
            }
            writeToStandardError(VisibleText.line("saved the photo (\(served.mediaType), \(ByteSize.text(bytes.count))) to \(photo)") + "\n")
        }
    }

    /// The animal's lines, as `show` prints them.
    static func lines(_ record: AnimalRecord, species: SpeciesNames) -> [String] {
        let animal = record.animal
        let description = animal.description.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) } ?? ["-"]
        let chip = animal.chipNumber.map(ChipNumberText.formatted) ?? "- (shown to staff only)"
        var rows: [(String, [String])] = []
        rows.append(("Status", [animal.status.rawValue]))
        rows.append(("Box", [animal.box]))
        rows.append(("Species", [species.name(animal.species) ?? "-"]))
        rows.append(("Race", [animal.race ?? "-"]))
        rows.append(("Gender", [record.gender ?? "-"]))
        rows.append(("Age", [record.age ?? "-"]))
        rows.append(("Missing since", [animal.disappearanceDate ?? "-"]))
        rows.append(("Last seen", record.position.map { [$0.pair, $0.geoURI, $0.openStreetMap] } ?? ["-"]))
        if animal.distanceKm != nil { rows.append(("Distance", [record.distance])) }
        rows.append(("Description", description))
        rows.append(("Phone", [animal.contact.phone ?? "-"]))
        rows.append(("Email", [animal.contact.email ?? "-"]))
        rows.append(("Microchip", [chip]))
        if let photo = animal.photo {
            rows.append(("Photo", ["\(photo.mediaType), \(ByteSize.text(photo.bytes)) (\(photo.bytes) bytes)", "sha256 \(photo.sha256)"]))
        } else {
            rows.append(("Photo", ["-"]))
        }
        rows += [("Reported", [animal.submittedAt]), ("Version", ["\(animal.version), last changed \(animal.updatedAt)"])]
        return LabeledLines.lines("Animal \(animal.id)", rows)
    }
}

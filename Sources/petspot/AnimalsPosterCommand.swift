import ArgumentParser
import PetSpotClient
import PetSpotProtocol

/// `petspot animals poster`: a poster of any missing animal, with what the caller may see of it.
struct AnimalsPosterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poster",
        abstract: "Make a poster of a missing animal of the list.",
        discussion: """
            As `petspot poster` does for your own reports, with what you may see of the \
            animal: for the public the contact is masked, the position rounded and the photo \
            without its metadata; staff get the whole contact (and the chip with --chip).

            Examples:
              petspot animals poster 3f2a0c1e-…
              petspot animals poster 3f2a0c1e-… --print
            """)

    @OptionGroup var connection: SocketOption

    @Argument(help: "The animal's id (see petspot animals).", completion: .custom(AnimalsCommand.completeAnimalIDs))
    var id: String

    @OptionGroup var poster: PosterArguments

    func run() throws {
        let conn = connection.connect()
        let animal = conn.callOrExit(AnimalsGet.self, AnimalsGet.Params(animalId: id)).animal
        let photo = animal.photo == nil ? nil : conn.callOrExit(AnimalsPhoto.self, AnimalsPhoto.Params(animalId: id))
        poster.makePoster(conn, species: animal.species) { locale, speciesName in
            PosterInput.document(animal: animal, photo: photo, locale: locale, speciesName: speciesName)
        }
    }
}

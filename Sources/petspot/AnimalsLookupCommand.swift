import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText

/// `petspot animals lookup`: the missing animals with a chip number, as a vet's reader gives it.
struct AnimalsLookupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lookup",
        abstract: "Find the missing animals with a microchip number.",
        discussion: """
            The number may be written any way a chip reader or a person writes it: with spaces, \
            hyphens or full-width digits. Prints the missing animals with that number as \
            `petspot animals` does (none: a line saying so, exit code 0), or with --json one \
            animal per line.

            Examples:
              petspot animals lookup 616091234567890
              petspot animals lookup '616 0912 3456 7890'
            """)

    @OptionGroup var connection: SocketOption

    @Argument(help: "The microchip number.")
    var chipNumber: String

    @Flag(help: "Print JSON, one animal per line.")
    var json = false

    func run() throws {
        let conn = connection.connect()
        let animals = conn.callOrExit(AnimalsLookup.self, AnimalsLookup.Params(chipNumber: chipNumber)).animals
        if json {
            writeToStandardOutput(animals.map { JSONWriter.terminalString($0.json) + "\n" }.joined())
            return
        }
        let lines = animals.isEmpty
            ? ["No missing animal has the chip number \(chipNumber)."]
            : AnimalsListCommand.table(animals.map(AnimalRecord.init), species: SpeciesNames(conn))
        writeToStandardOutput(lines.map { VisibleText.line($0) + "\n" }.joined())
    }
}

import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol

/// `petspot animals`: the missing pets this box knows, for the people searching.
struct AnimalsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animals",
        abstract: "The missing animals this box knows: list them, show one, look up a chip, make a poster.",
        discussion: """
            Anyone who may use the daemon's socket sees the animal list: every missing pet \
            reported on this box and not yet found, withdrawn, expired or erased. The public \
            sees no microchip number, the last-seen position to 3 decimals (about 100 m) and \
            the owner's contact masked; members of the daemon's board.staffGroup (vets, shelter \
            staff) see it all. The list is nearest first from --near, else from the box's own \
            position when the daemon has one and lets you have it, else newest first.

            Examples:
              petspot animals                                   nearest first, 20 at most
              petspot animals --near 52.2297,21.0122 --radius 5 --species dog
              petspot animals --watch                           then a line per animal added, changed or gone
              petspot animals show 3f2a0c1e-…                   everything you may see, map links
              petspot animals show 3f2a0c1e-… --photo rex.jpg   and save its photo
              petspot animals lookup '616 0912 3456 7890'        the missing animals with this chip
              petspot animals poster 3f2a0c1e-…                 a poster to print (petspot-poster)
            """,
        subcommands: [AnimalsListCommand.self, AnimalsShowCommand.self, AnimalsLookupCommand.self, AnimalsPosterCommand.self],
        defaultSubcommand: AnimalsListCommand.self)

    /// Completes an animal id from the daemon's list, as `ReportsCommand.completeReportIDs` does.
    @Sendable
    static func completeAnimalIDs(_ words: [String], _ index: Int, _ prefix: String) -> [String] {
        guard let connection = ReportsCommand.completionConnection(words),
            case .success(let page)? = try? connection.call(AnimalsList.self, AnimalsList.Params(limit: 100))
        else { return [] }
        return ReportsCommand.offered(page.animals.map(\.id), prefix)
    }

    /// "LAT,LON" as two JSON numbers; the daemon checks their ranges and names what is wrong.
    static func position(_ text: String) throws -> AnimalPosition {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0.filter { $0 != " " }) }
        guard parts.count == 2, let latitude = number(parts[0]), let longitude = number(parts[1]) else {
            throw ValidationError("--near takes LATITUDE,LONGITUDE in decimal degrees, e.g. 52.2297,21.0122, not \"\(text)\"")
        }
        return AnimalPosition(latitude: latitude, longitude: longitude)
    }

    /// A decimal number as JSON writes it, or nil.
    static func number(_ text: String) -> JSONNumber? {
        guard !text.isEmpty, case .number(let number)? = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        return number
    }
}

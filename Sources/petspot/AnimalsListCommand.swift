#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotText
import PetSpotViews

/// `petspot animals list`: the animal list as a table, or JSON lines for a script.
struct AnimalsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the missing animals, nearest first.",
        discussion: """
            Prints a line saying where the list is measured from, then a table with each \
            animal's id, species, race, when it went missing, how far from there it was last \
            seen, the box it was reported at and how to reach its owner (masked unless you are \
            staff). With --json, one animal per line exactly as petspotd gives it.

            --watch then follows the list (animals.watch, within --radius of --near or the box): \
            a line each time an animal is added, changes or leaves it (found, withdrawn or \
            expired, or "no longer listed": erased, or out of the radius), until Ctrl-C. \
            --species filters those lines too. A watch the daemon ends (staff no more, after a \
            reload) is said on standard error and made again, as the public sees the list.

            Examples:
              $ petspot animals --near 52.2297,21.0122 --radius 5
              nearest first from 52.2297, 21.0122
              ID                                    SPECIES  RACE    MISSING SINCE  DISTANCE  BOX      CONTACT
              3f2a0c1e-5d7b-4c59-9a41-0d8e2f6b7a10  Dog      Beagle  2026-11-21     0.4 km    kiosk-7  +••••••••789, j•••@example.pl
              $ petspot animals --json --all | jq -r 'select(.species == "cat") | .id'
            """)

    @OptionGroup var connection: SocketOption

    @Option(help: ArgumentHelp("Measure from this place: LATITUDE,LONGITUDE in decimal degrees (default: the box's own position).", valueName: "lat,lon"))
    var near: String?

    @Option(help: ArgumentHelp("Only animals last seen within this many kilometres.", valueName: "km"))
    var radius: String?

    @Option(help: ArgumentHelp("Only this species (an id: dog, cat, …).", valueName: "id"), completion: .custom(ReportsCommand.completeSpecies))
    var species: String?

    @Option(help: "Show at most this many.")
    var limit: Int = 20

    @Flag(help: "Show every animal (pages through all of them).")
    var all = false

    @Flag(help: "Print JSON, one animal per line.")
    var json = false

    @Flag(help: "Then follow: a line per animal added, changed or gone (animals.watch), until Ctrl-C.")
    var watch = false

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
        if let near { _ = try AnimalsCommand.position(near) }
        if let radius, AnimalsCommand.number(radius) == nil {
            throw ValidationError("--radius takes kilometres as a decimal number, e.g. 5 or 0.5, not \"\(radius)\"")
        }
    }

    func run() throws {
        let conn = connection.connect()
        let origin = try near.map(AnimalsCommand.position)
        let km = radius.flatMap(AnimalsCommand.number)
        // Watching before listing: an animal added in between is told, not lost.
        if watch { _ = conn.callOrExit(AnimalsWatch.self, AnimalsWatch.Params(near: origin, radiusKm: km)) }
        list(conn, near: origin, radiusKm: km)
        if watch { follow(conn, near: origin, radiusKm: km) }
    }

    /// The list, written with write(2) as the watch's lines are, so that it comes out before them.
    private func list(_ conn: PetSpotConnection, near origin: AnimalPosition?, radiusKm: JSONNumber?) {
        var animals: [AnimalRecord] = []
        var measuredFrom: AnimalPosition?
        let more = Pager(conn).forEach(limit: all ? nil : limit, fetch: { limit, cursor in
            let page = conn.callOrExit(AnimalsList.self, AnimalsList.Params(near: origin, radiusKm: radiusKm, species: species, limit: limit, cursor: cursor))
            measuredFrom = page.near
            return (page.animals, page.cursor)
        }) { page in
            if json {
                writeToStandardOutput(page.map { JSONWriter.terminalString($0.json) + "\n" }.joined())
            } else {
                animals += page.map(AnimalRecord.init)
            }
        }
        if json { return }
        var lines = [measuredFrom.map { "nearest first from \($0.latitude), \($0.longitude)" }
            ?? "newest first (no position to measure from: give --near LAT,LON)"]
        if animals.isEmpty {
            lines.append(radiusKm == nil && species == nil ? "No missing animals." : "No missing animals here.")
        } else {
            lines += Self.table(animals, species: SpeciesNames(conn))
            if more { lines.append("… more animals: petspot animals --all") }
        }
        writeToStandardOutput(lines.map { VisibleText.line($0) + "\n" }.joined())
    }

    /// The table `list` and `lookup` print.
    static func table(_ animals: [AnimalRecord], species: SpeciesNames) -> [String] {
        var table = TextTable(headers: ["ID", "SPECIES", "RACE", "MISSING SINCE", "DISTANCE", "BOX", "CONTACT"])
        for record in animals {
            table.append([
                record.animal.id, species.name(record.animal.species) ?? "-", TextLayout.truncate(record.animal.race ?? "-", to: 24),
                record.since, record.distance, record.animal.box, record.contact ?? "-",
            ].map(VisibleText.line))
        }
        return table.lines
    }

    /// A line per change until a signal ends the program; one that fell behind lists again.
    private func follow(_ conn: PetSpotConnection, near origin: AnimalPosition?, radiusKm km: JSONNumber?) -> Never {
        SignalWatcher.watch([SIGINT, SIGTERM]) { _ in _exit(0) }
        let names = SpeciesNames(conn)
        while true {
            let changed: AnimalsChanged.Params
            switch conn.nextOrExit(AnimalsChanged.self, orEnded: true) {
            case .notified(let params):
                changed = params
            case .ended(let ended):
                // Staff no more (a reload changed board.staffGroup): the list as the public sees
                // it, watched again, so a kiosk left following it goes on.
                writeToStandardError(VisibleText.line("petspot: \(ended.message)") + "\n")
                _ = conn.callOrExit(AnimalsWatch.self, AnimalsWatch.Params(near: origin, radiusKm: km))
                list(conn, near: origin, radiusKm: km)
                continue
            }
            guard let animal = changed.animal else {
                let note = "some changes were missed; the list as it is now:\n"
                if json { writeToStandardError(note) } else { writeToStandardOutput(note) }
                list(conn, near: origin, radiusKm: km)
                continue
            }
            if let species, animal.species != species { continue }
            if json {
                writeToStandardOutput(JSONWriter.terminalString(["change": .string(changed.change.rawValue), "animal": animal.json]) + "\n")
                continue
            }
            writeToStandardOutput(VisibleText.line(Self.changeLine(changed.change, AnimalRecord(animal), species: names)) + "\n")
        }
    }

    /// "added    ID  Dog  Beagle  2026-11-21  0.4 km  kiosk-7  contact"; a removed animal says why it left.
    static func changeLine(_ change: AnimalsChanged.Change, _ record: AnimalRecord, species: SpeciesNames) -> String {
        var words = [TextLayout.pad(change.rawValue, to: 7), record.animal.id, species.name(record.animal.species) ?? "-", record.animal.race ?? "-",
                     record.since, record.distance, record.animal.box]
        if change == .removed {
            // Still missing: erased, or its position moved out of the watched radius.
            words.append(record.animal.status == .missing ? "no longer listed" : record.animal.status.rawValue)
        } else {
            words.append(record.contact ?? "-")
        }
        return words.joined(separator: "  ")
    }
}

import Foundation
import NIOConcurrencyHelpers
import PetSpotClient
import PetSpotJSON
import PetSpotProtocol
import PetSpotTestSupport
import PetSpotViews
import Testing

/// `petspot animals` and the posters against a real daemon: what the public and staff are shown,
/// the order and filters, the watch, the chip lookup, the photo saved, and the document each
/// poster command hands to petspot-poster.
@Suite("petspot animals and posters", .serialized)
struct AnimalsCommandTests {
    static let kiosk = (latitude: "52.2296756", longitude: "21.0122287")
    static let krakow = (latitude: "50.06143", longitude: "19.93658")
    static let otherChip = "900 1234 5678 9012"

    /// `petspot ARGUMENTS` as `identity` (setpriv's options), on the daemon's socket.
    static func petspot(_ daemon: DaemonProcess, as identity: [String], _ arguments: [String],
                        environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProgram("/usr/bin/setpriv", identity + [Paths.petspot] + arguments + ["--socket", daemon.socketPath], environment: environment)
    }

    static let publicUser = ["--reuid", "65534", "--regid", "65534", "--clear-groups"]

    static func staff() throws -> [String] {
        let gid = try #require(getgrnam(AnimalsTests.staffGroup).map { $0.pointee.gr_gid })
        return ["--reuid", "65534", "--regid", "65534", "--groups", "\(gid)"]
    }

    /// Two missing animals: a beagle by the kiosk with a photo that holds metadata, a cat in Kraków.
    static func twoAnimals(_ daemon: DaemonProcess) throws -> (dog: String, cat: String) {
        let conn = try daemon.connect()
        let dog = try AnimalsTests.file(conn, latitude: kiosk.latitude, longitude: kiosk.longitude, photo: AnimalsTests.photoWithMetadata,
                                        email: "jan.kowalski@example.pl")
        let cat = try AnimalsTests.file(conn, latitude: krakow.latitude, longitude: krakow.longitude, species: "cat", race: "Maine Coon",
                                        chip: otherChip)
        return (dog, cat)
    }

    @Test("animals: nearest first from --near, masked for the public, --radius, --species, --json; show, --photo and lookup; whole for staff",
          .enabled(if: getuid() == 0 && getgrnam(AnimalsTests.staffGroup) != nil, "needs root and the group daemon to run as other users"))
    func listShowLookup() throws {
        let daemon = try AnimalsTests.daemon()
        let (dog, cat) = try Self.twoAnimals(daemon)

        let listed = try Self.petspot(daemon, as: Self.publicUser, ["animals", "--near", "52.2297,21.0122"])
        #expect(listed.status == 0, "\(listed)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "nearest first from 52.22970, 21.01220", "the origin as the daemon measured from it")
        #expect(lines.dropFirst().first?.hasPrefix("ID  ") == true && lines.dropFirst().first?.contains("CONTACT") == true)
        let dogRow = try #require(lines.firstIndex { $0.hasPrefix(dog) })
        let catRow = try #require(lines.firstIndex { $0.hasPrefix(cat) })
        #expect(dogRow < catRow, "nearest first")
        #expect(lines[dogRow].contains("Beagle") && lines[dogRow].contains("< 0.1 km") && lines[dogRow].contains("kiosk-7"))
        #expect(lines[dogRow].contains("j•••@example.pl") && !listed.stdout.contains("jan.kowalski"), "the public sees the contact masked")
        #expect(lines[catRow].contains("Cat") && lines[catRow].contains(" km"))

        let near = try Self.petspot(daemon, as: Self.publicUser, ["animals", "--near", "52.2297,21.0122", "--radius", "5"])
        #expect(near.stdout.contains(dog) && !near.stdout.contains(cat), "\(near.stdout)")
        let cats = try Self.petspot(daemon, as: Self.publicUser, ["animals", "list", "--species", "cat"])
        #expect(cats.stdout.contains(cat) && !cats.stdout.contains(dog), "\(cats.stdout)")
        #expect(cats.stdout.hasPrefix("nearest first from 52.22968, 21.01223"), "no --near: from the box's own position, the simulated fix")

        let json = try Self.petspot(daemon, as: Self.publicUser, ["animals", "--json", "--near", "52.2297,21.0122"])
        let animals = try json.stdout.split(separator: "\n").map { try Animal(json: JSONParser.parse(Array($0.utf8))) }
        #expect(animals.map(\.id) == [dog, cat])
        #expect(animals.allSatisfy { $0.chipNumber == nil })

        let directory = try Self.folder(in: daemon)
        let photoPath = directory.appendingPathComponent("dog.png").path
        let shown = try Self.petspot(daemon, as: Self.publicUser, ["animals", "show", dog, "--photo", photoPath])
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.stdout.contains("Microchip      - (shown to staff only)"), "\(shown.stdout)")
        #expect(shown.stdout.contains("j•••@example.pl") && shown.stdout.contains("geo:52.230,21.012"), "\(shown.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: photoPath)) == Data(base64Encoded: AnimalsTests.photoWithoutMetadata),
                "the saved photo is the one served to the public, without its metadata")

        let staffView = try Self.petspot(daemon, as: try Self.staff(), ["animals", "show", dog])
        #expect(staffView.stdout.contains("jan.kowalski@example.pl") && staffView.stdout.contains("geo:52.22968,21.01223"), "\(staffView.stdout)")
        #expect(staffView.stdout.contains(ChipNumberText.formatted("61609123456789")), "\(staffView.stdout)")

        let found = try Self.petspot(daemon, as: Self.publicUser, ["animals", "lookup", "９００-1234-5678-9012"])
        #expect(found.status == 0 && found.stdout.contains(cat) && !found.stdout.contains(dog), "\(found)")
        let none = try Self.petspot(daemon, as: Self.publicUser, ["animals", "lookup", "111111111111111"])
        #expect(none.status == 0 && none.stdout == "No missing animal has the chip number 111111111111111.\n", "\(none)")
        let noDigits = try Self.petspot(daemon, as: Self.publicUser, ["animals", "lookup", "abc"])
        #expect(noDigits.status == 1 && noDigits.stderr.contains("[invalidParams]"), "\(noDigits)")

        let unknown = try Self.petspot(daemon, as: Self.publicUser, ["animals", "show", "no-such-animal"])
        #expect(unknown.status == 1 && unknown.stderr.contains("[animalNotFound]"), "\(unknown)")
        let badNear = try Self.petspot(daemon, as: Self.publicUser, ["animals", "--near", "200,21"])
        #expect(badNear.status == 1 && badNear.stderr.contains("near.\"latitude\" must be a number from -90 to 90 [invalidParams]"), "\(badNear)")
        let notANumber = try Self.petspot(daemon, as: Self.publicUser, ["animals", "--near", "north"])
        #expect(notANumber.status == 64 && notANumber.stderr.contains("--near takes LATITUDE,LONGITUDE"), "\(notANumber)")
    }

    @Test("animals --watch prints the list, then a line when an animal is added and when it leaves, until Ctrl-C")
    func watch() throws {
        let daemon = try AnimalsTests.daemon()
        let conn = try daemon.connect()
        let first = try AnimalsTests.file(conn, latitude: Self.kiosk.latitude, longitude: Self.kiosk.longitude)
        let watch = try FollowingProgram(["animals", "--watch", "--near", "52.2297,21.0122", "--socket", daemon.socketPath])
        try waitUntil("the list") { watch.text.contains(first) }

        let second = try AnimalsTests.file(conn, latitude: Self.krakow.latitude, longitude: Self.krakow.longitude, species: "cat", race: "Maine Coon")
        try waitUntil("the added line") { watch.text.contains("added    \(second)") }
        _ = try conn.result("reports.close", ["reportId": .string(first), "outcome": "found"])
        try waitUntil("the removed line") { watch.text.contains("removed  \(first)") }
        #expect(try watch.interrupt() == 0)
        let removed = try #require(watch.lines.first { $0.hasPrefix("removed  \(first)") })
        #expect(removed.hasSuffix("found"), "a removed animal says why it left: \(removed)")
        let added = try #require(watch.lines.first { $0.hasPrefix("added    \(second)") })
        #expect(added.contains("Cat") && added.contains("Maine Coon") && added.contains("kiosk-7"), "\(added)")
    }

    @Test("animals --watch of a staff member whose group a reload takes away: the watch is made again, and the list is the public's")
    func watchOutlivesStaff() throws {
        let group = try #require(getgrgid(getgid()).map { String(cString: $0.pointee.gr_name) })
        let daemon = try DaemonProcess(settings: ["board": ["staffGroup": .string(group)]], arguments: ["--box-name", "kiosk-7"]).start()
        let conn = try daemon.connect()
        try AnimalsTests.file(conn, latitude: Self.kiosk.latitude, longitude: Self.kiosk.longitude, email: "jan.kowalski@example.pl")
        let watch = try FollowingProgram(["animals", "--watch", "--socket", daemon.socketPath])
        try waitUntil("the staff's list") { watch.text.contains("jan.kowalski@example.pl") }

        try daemon.rewriteConfiguration(["board": ["staffGroup": "petspot-no-such-group"]])
        daemon.signal(SIGHUP)
        try waitUntil("the public's list after the reload\n\(watch.text)") { watch.text.contains("j•••@example.pl") }
        let second = try AnimalsTests.file(conn, latitude: Self.krakow.latitude, longitude: Self.krakow.longitude, species: "cat",
                                           email: "anna@example.org")
        try waitUntil("the added line, as the public sees it\n\(watch.text)") { watch.text.contains("added    \(second)") }
        #expect(watch.lines.first { $0.hasPrefix("added    \(second)") }?.contains("a•••@example.org") == true, "\(watch.text)")
        #expect(try watch.interrupt() == 0)
    }

    /// A folder in the daemon's that any user may write to (`nobody` saves files there).
    static func folder(in daemon: DaemonProcess) throws -> URL {
        let folder = daemon.directory.appendingPathComponent("files")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        chmod(daemon.directory.path, 0o755)
        chmod(folder.path, 0o777)
        return folder
    }

    /// A petspot-poster that keeps what it was given: its arguments and its standard input.
    static func recordingPoster(in directory: URL, exitCode: Int = 0) throws -> (program: String, arguments: URL, input: URL) {
        let program = directory.appendingPathComponent("petspot-poster-\(exitCode)")
        let arguments = directory.appendingPathComponent("arguments")
        let input = directory.appendingPathComponent("input.json")
        try """
            #!/bin/sh
            printf '%s\\n' "$@" > \(arguments.path)
            cat > \(input.path)
            exit \(exitCode)
            """.write(to: program, atomically: true, encoding: .utf8)
        chmod(program.path, 0o755)
        return (program.path, arguments, input)
    }

    @Test("poster hands petspot-poster the owner's whole report and photo, animals poster what the public may see; options passed on, exit code kept",
          .enabled(if: getuid() == 0 && getgrnam(AnimalsTests.staffGroup) != nil, "needs root to run as nobody"))
    func posterDocuments() throws {
        let daemon = try AnimalsTests.daemon()
        let (dog, _) = try Self.twoAnimals(daemon)
        let directory = try Self.folder(in: daemon)
        let poster = try Self.recordingPoster(in: directory)
        let environment = ["PETSPOT_POSTER": poster.program, "PATH": "/usr/bin:/bin", "LANG": "pl_PL.UTF-8"]

        let own = try runProgram(Paths.petspot, ["poster", dog, "--socket", daemon.socketPath, "-o", "rex.pdf", "--chip", "--qr", "contact"],
                                 environment: environment)
        #expect(own.status == 0, "\(own)")
        #expect(try String(contentsOf: poster.arguments, encoding: .utf8) == "--output\nrex.pdf\n--chip\n--qr\ncontact\n")
        let document = try JSONParser.parse(Array(Data(contentsOf: poster.input)))
        #expect(document["id"] == .string(dog) && document["locale"] == "pl", "the language of LANG")
        #expect(document["species"] == "dog" && document["speciesName"] == "Pies" && document["race"] == "Beagle")
        #expect(document[path: "contact", "email"] == "jan.kowalski@example.pl" && document["chipNumber"] == "61609123456789")
        #expect(document[path: "lastSeen", "latitude"] == .number(JSONNumber(validatedLiteral: "52.22968")))
        #expect(document[path: "photo", "data"] == .string(AnimalsTests.photoWithMetadata), "the owner's photo as it was sent")

        // Written by root above: nobody's poster program makes them anew.
        for file in [poster.arguments, poster.input] { try FileManager.default.removeItem(at: file) }
        let listed = try Self.petspot(daemon, as: Self.publicUser, ["animals", "poster", dog, "--locale", "en", "--png"], environment: environment)
        #expect(listed.status == 0, "\(listed)")
        #expect(try String(contentsOf: poster.arguments, encoding: .utf8) == "--png\n")
        let shown = try JSONParser.parse(Array(Data(contentsOf: poster.input)))
        #expect(shown["locale"] == "en" && shown["speciesName"] == "Dog")
        #expect(shown[path: "contact", "email"] == "j•••@example.pl" && shown["chipNumber"] == .null)
        #expect(shown[path: "lastSeen", "latitude"] == .number(JSONNumber(validatedLiteral: "52.230")))
        #expect(shown[path: "photo", "data"] == .string(AnimalsTests.photoWithoutMetadata))

        let refusing = try Self.recordingPoster(in: directory, exitCode: 65)
        let refused = try runProgram(Paths.petspot, ["poster", dog, "--socket", daemon.socketPath], environment: ["PETSPOT_POSTER": refusing.program])
        #expect(refused.status == 65, "petspot-poster's exit code is petspot's: \(refused)")

        let conn = try daemon.connect()
        _ = try conn.result("reports.close", ["reportId": .string(dog), "outcome": "found"])
        let closed = try runProgram(Paths.petspot, ["poster", dog, "--socket", daemon.socketPath], environment: environment)
        #expect(closed.status == 1 && closed.stderr.contains("is found: no poster"), "\(closed)")
        let missingProgram = try runProgram(Paths.petspot, ["animals", "poster", "x", "--socket", daemon.socketPath],
                                            environment: ["PETSPOT_POSTER": directory.appendingPathComponent("none").path])
        #expect(missingProgram.status == 1 && missingProgram.stderr.contains("[animalNotFound]"), "the animal is asked for first: \(missingProgram)")
    }

    /// petspot-poster as `make poster` builds it beside this package.
    static let posterProgram = Paths.packageRoot.appendingPathComponent("Poster/.build/debug/petspot-poster").path

    @Test("poster through the real petspot-poster: a one-page PDF with the species, the contact and the description")
    func realPoster() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.posterProgram),
                     "petspot-poster is not built: make poster (make test builds it first)")
        let daemon = try AnimalsTests.daemon()
        let conn = try daemon.connect()
        let id = try AnimalsTests.file(conn, latitude: Self.kiosk.latitude, longitude: Self.kiosk.longitude, photo: AnimalsTests.photoWithMetadata)
        let pdf = try Self.folder(in: daemon).appendingPathComponent("rex.pdf").path
        let made = try runProgram(Paths.petspot, ["poster", id, "--socket", daemon.socketPath, "--output", pdf, "--locale", "en"],
                                  environment: ["PETSPOT_POSTER": Self.posterProgram, "PATH": "/usr/bin:/bin"])
        #expect(made.status == 0, "\(made)")
        let text = try runProgram("/usr/bin/pdftotext", [pdf, "-"])
        #expect(text.status == 0, "\(text)")
        #expect(text.stdout.contains("MISSING") && text.stdout.contains("DOG") && text.stdout.contains("owner@example.org"), "\(text.stdout)")
        let info = try runProgram("/usr/bin/pdfinfo", [pdf])
        let pages = info.stdout.split(separator: "\n").first { $0.hasPrefix("Pages:") }?.split(separator: " ").last
        #expect(pages == "1", "\(info.stdout)")
    }
}

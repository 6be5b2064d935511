import Foundation
import PetSpotJSON
import Testing

@Suite("bad input and bad usage, as exit codes and messages", .serialized)
struct PosterInputTests {
    @Test(
        "a document that cannot be printed: exit 65, the member named, no file written",
        arguments: [
            (Documents.publicAnimal(["species": nil]), "species: is missing"),
            (Documents.publicAnimal(["contact": ["phone": .null, "email": .null]]), "contact: has neither a phone nor an email"),
            (Documents.publicAnimal(["lastSeen": ["latitude": 95, "longitude": 21]]), "lastSeen.latitude: must be from -90 to 90, not 95"),
            (Documents.publicAnimal(["gender": "kot"]), "gender: must be \"female\" or \"male\""),
            (Documents.publicAnimal(["description": .string(String(repeating: "ż", count: 501))]), "description: has 501 characters; at most 500"),
            (Documents.publicAnimal(["photo": ["mediaType": "image/jpeg", "bytes": 1000, "sha256": "00"]]), "photo.data: is missing"),
            (Documents.publicAnimal(["photo": ["mediaType": "image/jpeg", "data": "iVBORw0KGgoAAAAN"]]), "photo.mediaType: says image/jpeg, but the data is image/png"),
            (JSONValue.array([]), "the input must be a JSON object"),
        ])
    func dataErrors(document: JSONValue, message: String) throws {
        let poster = try PosterRun.make(document)
        #expect(poster.result.status == 65, "\(poster.result)")
        #expect(poster.result.stderr.contains(message), "\(poster.result)")
        #expect(!FileManager.default.fileExists(atPath: poster.output))
    }

    @Test("not JSON at all: 65; an --input that cannot be read: 66; an output that cannot be written: 73")
    func files() throws {
        let notJSON = try run(Programs.poster, ["--output", "/dev/null"], input: Data("{\"id\":".utf8))
        #expect(notJSON.status == 65 && notJSON.stderr.contains("not JSON"), "\(notJSON)")
        let folder = try ScratchFolder()
        let noInput = try run(Programs.poster, ["--input", folder.path("none.json")])
        #expect(noInput.status == 66 && noInput.stderr.contains("none.json"), "\(noInput)")
        let document = Data(JSONWriter.string(Documents.publicAnimal()).utf8)
        let noFolder = try run(Programs.poster, ["--output", folder.path("no/such/poster.pdf")], input: document)
        #expect(noFolder.status == 73 && noFolder.stderr.contains("cannot write"), "\(noFolder)")
        try document.write(to: URL(fileURLWithPath: folder.path("doc.json")))
        let fromFile = try run(Programs.poster, ["--input", folder.path("doc.json"), "--output", folder.path("p.pdf")])
        #expect(fromFile.status == 0, "\(fromFile)")
    }

    @Test(
        "usage that makes no sense: exit 64",
        arguments: [["--print", "--png"], ["--printer", "x"], ["--dpi", "300"], ["--png", "--dpi", "20"], ["--paper", "a3"],
                    ["--locale", "de"], ["--qr", "url"], ["--max-pixels", "0"], ["--lp-command", "lp"]])
    func usage(arguments: [String]) throws {
        let result = try run(Programs.poster, arguments, input: Data(JSONWriter.string(Documents.publicAnimal()).utf8))
        #expect(result.status == 64, "\(arguments): \(result)")
    }

    @Test("on a terminal with no --input it says what it wants instead of waiting: exit 64")
    func terminal() throws {
        // script(1) gives the program a pseudo-terminal as its standard input.
        let result = try run("/usr/bin/script", ["--quiet", "--return", "--command", Programs.poster, "/dev/null"])
        #expect(result.status == 64, "\(result)")
        #expect(result.text.contains("give the report or animal as JSON on standard input or with --input FILE"), "\(result.text)")
    }

    @Test("--help documents the input document and the exit codes")
    func help() throws {
        let help = try run(Programs.poster, ["--help"])
        #expect(help.status == 0)
        for expected in ["\"lastSeen\"", "\"photo\"", "\"contact\"", "Exit codes", "65", "--qr", "--max-pixels"] {
            #expect(help.text.contains(expected), "\(expected)")
        }
    }
}

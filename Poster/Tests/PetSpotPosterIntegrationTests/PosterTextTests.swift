import Foundation
import PetSpotJSON
import Testing

@Suite("posters read back: text, fonts, one page", .serialized)
struct PosterTextTests {
    @Test("a Polish poster: its letters and the masked contact are in the PDF's text, in DejaVu fonts embedded in it")
    func polish() throws {
        let poster = try PosterRun.make(Documents.publicAnimal(), ["--locale", "pl"])
        #expect(poster.succeeded, "\(poster.result)")
        let text = try PDFTools.text(poster.output)
        for expected in ["ZAGINIONE ZWIERZĘ", "PIES", "Jamnik długowłosy", "Płeć", "Samica", "3 lata", "12 września 2026",
                         "Brązowa sierść, żółta obroża", "•••••••789", "j•••@example.org", "52.22968, 21.01223"] {
            #expect(text.contains(expected), "\(expected) in \(text)")
        }
        for letter in ["ą", "ę", "ł", "ż"] { #expect(text.contains(letter)) }
        let fonts = try PDFTools.fonts(poster.output)
        #expect(Set(fonts.map(\.name)) == ["DejaVuSans", "DejaVuSans-Bold"], "\(fonts)")
        #expect(fonts.allSatisfy { $0.embedded }, "\(fonts)")
        #expect(try PDFTools.info(poster.output)["Pages"] == "1")
        #expect(try PDFTools.info(poster.output)["Title"] == "Zaginione zwierzę: Pies")
    }

    @Test("the language: --locale, else the document's locale, else LANG; English otherwise")
    func language() throws {
        func headline(_ document: JSONValue, _ arguments: [String] = [], _ environment: [String: String] = [:]) throws -> String {
            let poster = try PosterRun.make(document, arguments, environment: environment)
            try #require(poster.succeeded, "\(poster.result)")
            return try PDFTools.text(poster.output).contains("ZAGINIONE ZWIERZĘ") ? "pl" : "en"
        }
        #expect(try headline(Documents.publicAnimal(), [], ["LANG": "pl_PL.UTF-8"]) == "pl")
        #expect(try headline(Documents.publicAnimal(), [], ["LANG": "de_DE.UTF-8"]) == "en")
        #expect(try headline(Documents.publicAnimal(["locale": "pl"]), [], ["LANG": "en_GB.UTF-8"]) == "pl")
        #expect(try headline(Documents.publicAnimal(["locale": "pl"]), ["--locale", "en"], ["LANG": "pl_PL.UTF-8"]) == "en")
        #expect(try headline(Documents.publicAnimal(), [], ["LANG": "en_GB.UTF-8", "LC_MESSAGES": "pl_PL.UTF-8"]) == "pl")
    }

    @Test("the chip number is printed only with --chip")
    func chip() throws {
        let without = try PosterRun.make(Documents.ownReport(), ["--locale", "en"])
        #expect(without.succeeded, "\(without.result)")
        let withoutText = try PDFTools.text(without.output)
        #expect(!withoutText.contains("61609") && !withoutText.contains("Microchip"), "\(withoutText)")
        let with = try PosterRun.make(Documents.ownReport(), ["--locale", "en", "--chip"])
        #expect(try PDFTools.text(with.output).contains("Microchip number: 61609-39000-12345"))
        // The owner's poster carries the whole contact, as given.
        #expect(withoutText.contains("+48123456789") && withoutText.contains("jan.kowalski@example.org"))
    }

    @Test("no photo, no position and 500 characters of description fit on one page, every word inside the margins")
    func longest() throws {
        let words = ["Brązowa", "sierść,", "żółta", "obroża,", "łatka", "na", "uchu,", "kuleje", "na", "tylną", "łapę."]
        var description = ""
        var index = 0
        while description.count < 520 {
            description += words[index % words.count] + " "
            index += 1
        }
        description = String(description.prefix(499)) + "."
        #expect(description.count == 500)
        let document = Documents.ownReport([
            "description": .string(description), "photo": .null, "lastSeen": .null,
            "race": .string(String(repeating: "Owczarek ", count: 11).prefix(100).trimmingCharacters(in: .whitespaces)),
            "contact": ["phone": "+48123456789", "email": .string(String(repeating: "a", count: 240) + "@example.org")],
        ])
        for paper in ["a4", "letter"] {
            let poster = try PosterRun.make(document, ["--locale", "pl", "--chip", "--paper", paper])
            #expect(poster.succeeded, "\(poster.result)")
            #expect(try PDFTools.info(poster.output)["Pages"] == "1")
            let squeezed = try PDFTools.text(poster.output).filter { !$0.isWhitespace }
            #expect(squeezed.contains(description.filter { !$0.isWhitespace }), "the whole description on \(paper)")
            #expect(squeezed.contains(String(repeating: "a", count: 240) + "@example.org"))
            #expect(squeezed.contains("Brakzdjęcia"))
            let page = try PDFTools.pageSize(poster.output)
            let outside = try PDFTools.words(poster.output).filter {
                $0.xMin < 35 || $0.yMin < 35 || $0.xMax > page.width - 35 || $0.yMax > page.height - 35
            }
            #expect(outside.isEmpty, "words outside the margins on \(paper): \(outside)")
            // No position, no QR code.
            #expect(try PDFTools.barcodes(PDFTools.rasterize(poster.output)).isEmpty)
        }
    }

    @Test("A4 in Poland and most of the world, Letter where the locale's country uses it, --paper over both")
    func paper() throws {
        func size(_ arguments: [String], _ environment: [String: String]) throws -> String {
            let poster = try PosterRun.make(Documents.publicAnimal(), arguments, environment: environment)
            try #require(poster.succeeded, "\(poster.result)")
            let page = try PDFTools.pageSize(poster.output)
            return "\(Int(page.width.rounded()))x\(Int(page.height.rounded()))"
        }
        let a4 = "595x842", letter = "612x792"
        #expect(try size([], ["LANG": "pl_PL.UTF-8"]) == a4)
        #expect(try size([], ["LANG": "en_GB.UTF-8"]) == a4)
        #expect(try size([], [:]) == a4)
        #expect(try size([], ["LANG": "en_US.UTF-8"]) == letter)
        #expect(try size([], ["LANG": "fr_CA.UTF-8"]) == letter)
        #expect(try size([], ["LANG": "es_MX.UTF-8"]) == letter)
        #expect(try size([], ["LANG": "pl_PL.UTF-8", "LC_PAPER": "en_CA.UTF-8"]) == letter)
        #expect(try size(["--paper", "a4"], ["LANG": "en_US.UTF-8"]) == a4)
        #expect(try size(["--paper", "letter"], ["LANG": "pl_PL.UTF-8"]) == letter)
    }

    @Test("--png writes a picture of the page at --dpi")
    func png() throws {
        let poster = try PosterRun.make(Documents.publicAnimal(), ["--png", "--dpi", "100", "--paper", "a4"])
        #expect(poster.succeeded, "\(poster.result)")
        let page = try PageImage(png: poster.output)
        #expect(page.width == 827 && page.height == 1169, "A4 at 100 dpi: \(page.width) × \(page.height)")
        #expect(try PDFTools.barcodes(poster.output) == ["geo:52.22968,21.01223"])
        let letter = try PosterRun.make(Documents.publicAnimal(), ["--png", "--paper", "letter"])
        let letterPage = try PageImage(png: letter.output)
        #expect(letterPage.width == 1275 && letterPage.height == 1650, "Letter at 150 dpi")
    }

    @Test("the default file name is missing-<id>.pdf in the working folder; - writes to standard output")
    func outputNames() throws {
        let folder = try ScratchFolder()
        let document = Data(JSONWriter.string(Documents.publicAnimal(["id": "a/b c"])).utf8)
        let result = try run(Programs.poster, [], input: document, in: folder.url)
        #expect(result.status == 0, "\(result)")
        #expect(FileManager.default.fileExists(atPath: folder.path("missing-a-b-c.pdf")))
        let png = try run(Programs.poster, ["--png"], input: document, in: folder.url)
        #expect(png.status == 0 && FileManager.default.fileExists(atPath: folder.path("missing-a-b-c.png")))
        let piped = try run(Programs.poster, ["--output", "-"], input: document, in: folder.url)
        #expect(piped.status == 0 && piped.stdout.starts(with: Data("%PDF-".utf8)))
    }
}
